package io.dplrf.ingest.produce;

import io.dplrf.ingest.RowRecords;
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
 * Sends dense rows as row records ({@link RowRecords}, the service's rows mode): one record per
 * row, its non-zeros in column order, row ids 0, 1, 2, … in sending order, no key. Idempotent,
 * {@code acks=all}. Not thread-safe.
 */
public final class RowProducer implements AutoCloseable {
  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private long rows;
  private volatile Exception failure;

  public RowProducer(Producer<byte[], byte[]> producer, String topic) {
    this.producer = Objects.requireNonNull(producer, "producer");
    this.topic = Objects.requireNonNull(topic, "topic");
  }

  /** A producer over a real {@link KafkaProducer} ({@code clientProperties}: at least bootstrap.servers). */
  public static RowProducer create(Map<String, Object> clientProperties, String topic) {
    Map<String, Object> c = new HashMap<>(clientProperties);
    c.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "dplrf-produce-rows");
    c.put(ProducerConfig.ACKS_CONFIG, "all");
    c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    c.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
    c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return new RowProducer(new KafkaProducer<>(c), topic);
  }

  /**
   * Sends one dense row as the next row record (asynchronously; {@link #flush} reports failures).
   *
   * @throws java.io.UncheckedIOException if an earlier send failed (Kafka's reason in the message)
   */
  public void send(double[] row) {
    if (failure != null) {
      throw SendFailure.unchecked(topic, failure);
    }
    producer.send(new ProducerRecord<>(topic, null, RowRecords.encodeDense(rows, row)), (m, e) -> {
      if (e != null && failure == null) {
        failure = e;
      }
    });
    rows++;
  }

  /** Waits for every record sent so far to be acknowledged. */
  public void flush() throws IOException {
    producer.flush();
    if (failure != null) {
      throw SendFailure.of(topic, failure);
    }
  }

  public long rowsSent() {
    return rows;
  }

  @Override
  public void close() {
    producer.close();
  }
}
