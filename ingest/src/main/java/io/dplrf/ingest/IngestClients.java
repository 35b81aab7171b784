package io.dplrf.ingest;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The settings of {@link IngestLoop}'s two Kafka clients: the caller's ({@code bootstrap.servers},
 * security, tuning) with those that exactly-once ingest and the record format depend on forced.
 */
public final class IngestClients {
  private IngestClients() {}

  /** Consumer settings: no group, no auto commit, no silent offset reset, committed reads only. */
  public static Map<String, Object> consumerConfig(Map<String, Object> clientProperties) {
    Map<String, Object> c = new HashMap<>(clientProperties);
    c.remove(ConsumerConfig.GROUP_ID_CONFIG);
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId(clientProperties, "ingest"));
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    return c;
  }

  /** Dead-letter producer settings: idempotent, {@code acks=all}. */
  public static Map<String, Object> producerConfig(Map<String, Object> clientProperties) {
    Map<String, Object> c = new HashMap<>(clientProperties);
    c.put(ProducerConfig.CLIENT_ID_CONFIG, clientId(clientProperties, "dead-letter"));
    c.put(ProducerConfig.ACKS_CONFIG, "all");
    c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return c;
  }

  /**
   * {@code <client.id>-<role>}, or {@code dplrf-<role>} without a client.id: the loop's two
   * clients get distinct ids (one per client, as Kafka's metrics and JMX names expect).
   */
  private static String clientId(Map<String, Object> clientProperties, String role) {
    Object id = clientProperties.get(CommonClientConfigs.CLIENT_ID_CONFIG);
    return (id == null || id.toString().isEmpty() ? "dplrf" : id) + "-" + role;
  }
}
