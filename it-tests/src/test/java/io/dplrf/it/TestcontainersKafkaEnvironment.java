package io.dplrf.it;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;

/**
 * {@code apache/kafka} in Docker via Testcontainers, for machines that have Docker. The image tag
 * follows the project's {@code kafka.version} (failsafe passes {@code dplrf.it.kafka.image}).
 */
final class TestcontainersKafkaEnvironment implements KafkaEnvironment, AutoCloseable {

  private static final String IMAGE = System.getProperty("dplrf.it.kafka.image", "apache/kafka:4.3.1");

  private final KafkaContainer container;

  private TestcontainersKafkaEnvironment(KafkaContainer container) {
    this.container = container;
  }

  static boolean dockerAvailable() {
    return DockerClientFactory.instance().isDockerAvailable();
  }

  static TestcontainersKafkaEnvironment start() {
    KafkaContainer container = new KafkaContainer(IMAGE);
    container.start();
    return new TestcontainersKafkaEnvironment(container);
  }

  @Override
  public String bootstrapServers() {
    return container.getBootstrapServers();
  }

  @Override
  public void createTopic(String name, int partitions) {
    AdminTopics.create(bootstrapServers(), name, partitions);
  }

  @Override
  public void close() {
    container.stop();
  }

  @Override
  public String toString() {
    return IMAGE + " in Docker at " + bootstrapServers();
  }
}
