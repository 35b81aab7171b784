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

/** Topic creation through Kafka's Admin client, for clusters this process does not run itself. */
final class AdminTopics {
  private AdminTopics() {}

  /** Creates a topic with one replica; an existing topic of that name is fine. */
  static void create(String bootstrapServers, String name, int partitions) {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
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
}
