package io.dplrf.it;

/**
 * A Kafka cluster that end-to-end tests talk to, whatever runs it: the embedded broker from the
 * Maven Central jars ({@link EmbeddedKafkaEnvironment}) or {@code apache/kafka} in Docker
 * ({@link TestcontainersKafkaEnvironment}). Shared by every test of a suite (see {@link KafkaSuite}),
 * so tests use their own topic and group names.
 */
public interface KafkaEnvironment {

  /** {@code host:port} for producers, consumers and admins. */
  String bootstrapServers();

  /** Creates a topic with one replica; an existing topic of that name is fine. */
  void createTopic(String name, int partitions);
}
