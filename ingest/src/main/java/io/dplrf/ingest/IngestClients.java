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

  /**
   * Consumer defaults the caller may override (in the {@code kafka-config} file), chosen for
   * throughput.
   *
   * <p>{@code group.protocol=consumer} selects Kafka's new consumer (KIP-848), whose background
   * thread does the network I/O, so the next fetch's bytes arrive while the loop applies the
   * previous one's. The classic consumer reads the socket only inside {@code poll}: a fetch's
   * megabyte is mostly read while the loop waits in its next {@code poll}. With no group and no
   * commits (see {@link #consumerConfig}) nothing of the new group protocol is used; the broker
   * sees only Metadata, ListOffsets and Fetch requests. A poll returns a whole fetch, so the next
   * fetch is sent when the loop starts applying this one. Measured with {@code dplrf bench
   * ingest} (m = n = 10⁵, k = 10, 50 M updates): the ingest thread is blocked in {@code poll}
   * 1.5–2.4 s per run against 3.0–5.0 s with the classic consumer and 500 records per poll; either
   * setting alone gives no gain (docs/benchmarks-ingest.md, "Consumer settings").
   *
   * <p>{@code max.partition.fetch.bytes} = 8 MiB (Kafka's default: 1 MiB) and {@code
   * max.poll.records=10000}, still a whole fetch per poll: fewer, larger fetches, so that the loop
   * waits less for the next one after each flush of the update buffer. Measured against 1 MiB
   * fetches and 5,000 records per poll (four processes of three rounds each, alternating): dplrf
   * 9.7 against 8.9 M updates/s (+9%), and its median ratio to a bare consumer with Kafka's own
   * defaults 0.38–0.43 against 0.34–0.42. A bare consumer with these settings gains more, so
   * dplrf's ratio to it does not rise. A fetch response holds at most {@code fetch.max.bytes} (50
   * MiB) whatever the partition count.
   */
  public static final Map<String, Object> CONSUMER_DEFAULTS = Map.of(
      ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer",
      ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000,
      ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);

  /**
   * Consumer settings: no group, no auto commit, no silent offset reset, committed reads only;
   * {@link #CONSUMER_DEFAULTS} unless the caller sets them.
   */
  public static Map<String, Object> consumerConfig(Map<String, Object> clientProperties) {
    Map<String, Object> c = new HashMap<>(CONSUMER_DEFAULTS);
    c.putAll(clientProperties);
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
  static String clientId(Map<String, Object> clientProperties, String role) {
    Object id = clientProperties.get(CommonClientConfigs.CLIENT_ID_CONFIG);
    return (id == null || id.toString().isEmpty() ? "dplrf" : id) + "-" + role;
  }
}
