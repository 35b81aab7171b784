package io.dplrf.it;

/** The service scenarios against the embedded broker: runs everywhere, no Docker needed. */
class EmbeddedServiceIT extends ServiceScenarios {}
