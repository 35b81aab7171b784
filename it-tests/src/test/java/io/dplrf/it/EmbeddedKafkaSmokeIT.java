package io.dplrf.it;

/** The smoke scenarios against the embedded broker: runs everywhere, no Docker needed. */
class EmbeddedKafkaSmokeIT extends KafkaSmokeScenarios {}
