package io.dplrf.ingest.produce;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends already-encoded local-DP reports ({@code dplrf produce --local}): one report per record,
 * the value exactly as the client library encoded it, and no record key — a report is private on
 * its own and must not be linked to a user by its key. This class never sees a row: it is handed
 * bytes that the client randomizer produced. Delivery as {@link UpdateProducer}: idempotent,
 * {@code acks=all}, {@link #send} flushes and fails if any record failed.
 *
 * <p>Thread-safety: one {@link #send} at a time.
 */
public final class ReportProducer implements AutoCloseable {

  /** Feeds encoded reports to the sink, in order. */
  @FunctionalInterface
  public interface ReportSource {
    void emit(java.util.function.Consumer<byte[]> sink) throws IOException;
  }

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private volatile Exception failure;
  private long sent;

  public ReportProducer(Producer<byte[], byte[]> producer, String topic) {
    this.producer = Objects.requireNonNull(producer, "producer");
    this.topic = Objects.requireNonNull(topic, "topic");
  }

  /**
   * A producer over a real {@link KafkaProducer}.
   *
   * @param maxReportBytes the largest encoded report to be sent (sets max.request.size)
   */
  public static ReportProducer create(Map<String, Object> clientProperties, String topic,
      int maxReportBytes) {
    Map<String, Object> c = new HashMap<>(clientProperties);
    c.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "dplrf-produce-local");
    c.put(ProducerConfig.ACKS_CONFIG, "all");
    c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    c.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
    c.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Math.max(1 << 20, maxReportBytes + 1024));
    c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return new ReportProducer(new KafkaProducer<>(c), topic);
  }

  /**
   * Sends every report the source emits, then flushes.
   *
   * @return the number of reports sent by this call
   * @throws IOException if the source fails or a record could not be delivered
   */
  public long send(ReportSource source) throws IOException {
    long before = sent;
    try {
      source.emit(value -> {
        if (failure != null) {
          throw SendFailure.unchecked(topic, failure);
        }
        producer.send(new ProducerRecord<>(topic, null, value), (m, e) -> {
          if (e != null && failure == null) {
            failure = e;
          }
        });
        sent++;
      });
    } catch (SendFailure.Unchecked e) {
      throw e.getCause();
    }
    producer.flush();
    if (failure != null) {
      throw SendFailure.of(topic, failure);
    }
    return sent - before;
  }

  @Override
  public void close() {
    producer.close();
  }
}
