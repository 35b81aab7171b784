package io.dplrf.it;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
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
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic " + name, e.getCause());
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException("cannot create topic " + name + ": no answer within 30 s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + name, e);
    }
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
