package io.dplrf.it;

/** The crash-and-restart scenario against the embedded broker: runs everywhere, no Docker needed. */
class EmbeddedCrashRestartIT extends CrashRestartScenarios {}
