package io.dplrf.it;

/** The smoke scenarios against a Kafka 3.x broker ({@link Kafka3Environment}). */
@KafkaSuite.OnKafka3
class Kafka3SmokeIT extends KafkaSmokeScenarios {}
