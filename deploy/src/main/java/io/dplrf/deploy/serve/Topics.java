package io.dplrf.deploy.serve;

import io.dplrf.ingest.KafkaReason;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The service's topics at start: the updates topic and the dead-letter topic, created where they
 * are missing (one replica: on a real cluster operators create them beforehand, operations.md
 * §2).
 *
 * <p>A principal that may not create topics — on a secured cluster whose operators create them,
 * the usual case — is refused even for a topic that exists; then the topic need only be there,
 * which describing it shows (consuming and producing need DESCRIBE on it anyway). Kafka's
 * refusals (authentication, authorization, no answer) become an {@link IOException} naming the
 * settings to check, which {@code dplrf serve} prints as one line.
 */
final class Topics {
  /** How long each request may wait for Kafka's answer. */
  private static final int ADMIN_SECONDS = 30;

  private Topics() {}

  /**
   * @param clientProps the service's Kafka client settings ({@code kafka-config} and bootstrap)
   * @param bootstrap for messages
   * @param partitions topic name → partitions to create it with
   */
  static void ensure(Map<String, Object> clientProps, String bootstrap,
      Map<String, Integer> partitions) throws IOException, InterruptedException {
    Admin admin = Admin.create(clientProps);
    try {
      for (Map.Entry<String, Integer> t : partitions.entrySet()) {
        String topic = t.getKey();
        try {
          createOrFind(admin, topic, t.getValue(), bootstrap);
        } catch (ExecutionException e) {
          throw new IOException("cannot create topic '" + topic + "' on Kafka at " + bootstrap
              + ": " + KafkaReason.of(e.getCause()) + " (check bootstrap-servers and kafka-config)",
              e.getCause());
        } catch (TimeoutException e) {
          throw new IOException("Kafka at " + bootstrap + " did not answer within "
              + ADMIN_SECONDS + " s while creating topic '" + topic
              + "' (check bootstrap-servers and kafka-config)", e);
        }
      }
    } finally {
      // Not Admin.close(), which would wait up to default.api.timeout.ms (60 s) more for a
      // request that has just timed out here.
      admin.close(Duration.ofSeconds(5));
    }
  }

  private static void createOrFind(Admin admin, String topic, int partitions, String bootstrap)
      throws ExecutionException, TimeoutException, InterruptedException, IOException {
    try {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all()
          .get(ADMIN_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TopicExistsException) {
        return;
      }
      if (!(e.getCause() instanceof TopicAuthorizationException
          || e.getCause() instanceof ClusterAuthorizationException)) {
        throw e;
      }
      try {
        admin.describeTopics(List.of(topic)).allTopicNames().get(ADMIN_SECONDS, TimeUnit.SECONDS);
      } catch (ExecutionException d) {
        throw new IOException("topic '" + topic + "' cannot be used on Kafka at " + bootstrap
            + ": this principal is not authorized to create it, and describing it failed: "
            + KafkaReason.of(d.getCause()) + ". Create it beforehand and grant DESCRIBE and READ on"
            + " the updates topic, DESCRIBE and WRITE on the dead-letter topic (check"
            + " kafka-config's credentials)", d.getCause());
      }
    }
  }
}
