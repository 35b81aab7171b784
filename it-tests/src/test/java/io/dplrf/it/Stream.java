package io.dplrf.it;

import io.dplrf.ingest.IngestStats;
import io.dplrf.ingest.UpdateRecords;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Test-side view of an update stream: the updates, how they are packed into Kafka records (the wire
 * format of docs/user-guide.md, "Records", via {@link UpdateRecords#encode}), and what the service
 * must report for them (counts and the order-independent checksum of {@link
 * IngestStats#updateHash}).
 */
final class Stream {
  private Stream() {}

  /** One turnstile update A[i][j] += d. */
  record Update(int i, int j, double d) {}

  /** A record value holding {@code updates} (non-empty), packed big-endian. */
  static byte[] pack(List<Update> updates) {
    int n = updates.size();
    int[] is = new int[n];
    int[] js = new int[n];
    double[] ds = new double[n];
    for (int x = 0; x < n; x++) {
      is[x] = updates.get(x).i();
      js[x] = updates.get(x).j();
      ds[x] = updates.get(x).d();
    }
    return UpdateRecords.encode(is, js, ds, 0, n);
  }

  /** The stream cut into record values of {@code batch} updates (the last may be shorter). */
  static List<byte[]> records(List<Update> updates, int batch) {
    List<byte[]> out = new ArrayList<>();
    for (int from = 0; from < updates.size(); from += batch) {
      out.add(pack(updates.subList(from, Math.min(updates.size(), from + batch))));
    }
    return out;
  }

  /**
   * The checksum the service must report when it applied exactly {@code updates}, each clamped to
   * |Δ| ≤ clip (privacy unit "update": no budgets), as unsigned hex like /admin/ingest.
   */
  static String checksum(List<Update> updates, double clip) {
    long sum = 0;
    for (Update u : updates) {
      sum += IngestStats.updateHash(u.i(), u.j(), clamp(u.d(), clip));
    }
    return Long.toUnsignedString(sum, 16);
  }

  static double clamp(double d, double clip) {
    return Math.abs(d) > clip ? Math.copySign(clip, d) : d;
  }

  /** An idempotent acks=all byte-array producer (keys may be null). */
  static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    return new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
        ProducerConfig.LINGER_MS_CONFIG, 5,
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
  }

  /** One record to send: key (may be null) and value. */
  record Rec(byte[] key, byte[] value) {}

  /**
   * Sends the records in order to partition 0 of {@code topic} and waits until every one is
   * acknowledged (so the topic holds exactly these, in this order).
   */
  static void sendAll(String bootstrap, String topic, List<Rec> recs) {
    try (KafkaProducer<byte[], byte[]> p = producer(bootstrap)) {
      List<Future<RecordMetadata>> acks = new ArrayList<>();
      for (Rec r : recs) {
        acks.add(p.send(new ProducerRecord<>(topic, 0, r.key(), r.value())));
      }
      p.flush();
      for (Future<RecordMetadata> a : acks) {
        a.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("producing to " + topic + " failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while producing to " + topic, e);
    }
  }

  /** Key-less records of the given values. */
  static List<Rec> unkeyed(List<byte[]> values) {
    List<Rec> out = new ArrayList<>(values.size());
    for (byte[] v : values) {
      out.add(new Rec(null, v));
    }
    return out;
  }
}
