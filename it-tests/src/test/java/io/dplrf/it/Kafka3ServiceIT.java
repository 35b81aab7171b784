package io.dplrf.it;

/**
 * The service scenarios (accuracy, dead letters, key budgets, epoch length) against a Kafka 3.x
 * broker: {@code dplrf serve}'s 4.x clients, including Kafka's new consumer, on an older cluster.
 */
@KafkaSuite.OnKafka3
class Kafka3ServiceIT extends ServiceScenarios {}
