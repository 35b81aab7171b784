package io.dplrf.it;

/** The failure scenarios against the embedded broker: runs everywhere, no Docker needed. */
class EmbeddedFailureIT extends FailureScenarios {}
