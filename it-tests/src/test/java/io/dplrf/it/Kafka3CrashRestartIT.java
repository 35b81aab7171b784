package io.dplrf.it;

/** The crash-and-restart (exactly once) scenario against a Kafka 3.x broker. */
@KafkaSuite.OnKafka3
class Kafka3CrashRestartIT extends CrashRestartScenarios {}
