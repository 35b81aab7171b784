package io.dplrf.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dplrf.it.Stream.Update;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Synthetic inputs and small readers shared by the end-to-end scenarios (seeded test data). */
final class TestData {
  private TestData() {}

  /** A = L Rᵀ, L and R standard normal (seeded: synthetic data), scaled to max |A_ij| = maxEntry. */
  static double[][] lowRank(int m, int n, int k, double maxEntry, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[][] l = new double[m][k];
    double[][] r = new double[n][k];
    for (double[] row : l) {
      for (int c = 0; c < k; c++) {
        row[c] = gaussian(rnd);
      }
    }
    for (double[] row : r) {
      for (int c = 0; c < k; c++) {
        row[c] = gaussian(rnd);
      }
    }
    double[][] a = new double[m][n];
    double max = 0;
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        for (int c = 0; c < k; c++) {
          a[i][j] += l[i][c] * r[j][c];
        }
        max = Math.max(max, Math.abs(a[i][j]));
      }
    }
    for (double[] row : a) {
      for (int j = 0; j < n; j++) {
        row[j] *= maxEntry / max;
      }
    }
    return a;
  }

  static double gaussian(SplittableRandom rnd) {
    return Math.sqrt(-2 * Math.log(1 - rnd.nextDouble())) * Math.cos(2 * Math.PI * rnd.nextDouble());
  }

  /**
   * Each entry x arrives as ⌈|x|⌉ equal updates x/⌈|x|⌉ (so |Δ| ≤ 1), plus turnstile pairs
   * (+0.5, −0.5) on random entries until the count is a multiple of {@code multiple}; shuffled.
   */
  static List<Update> splitIntoUpdates(double[][] a, long seed, int multiple) {
    SplittableRandom rnd = new SplittableRandom(seed + 1);
    List<Update> out = new ArrayList<>();
    for (int i = 0; i < a.length; i++) {
      for (int j = 0; j < a[i].length; j++) {
        int parts = (int) Math.ceil(Math.abs(a[i][j]));
        for (int p = 0; p < parts; p++) {
          out.add(new Update(i, j, a[i][j] / parts));
        }
      }
    }
    while (out.size() % multiple != 0) {
      int i = rnd.nextInt(a.length);
      int j = rnd.nextInt(a[0].length);
      if (multiple - out.size() % multiple == 1) {
        out.add(new Update(i, j, 0.0));
      } else {
        out.add(new Update(i, j, 0.5));
        out.add(new Update(i, j, -0.5));
      }
    }
    for (int x = out.size() - 1; x > 0; x--) {
      int y = rnd.nextInt(x + 1);
      Update t = out.get(x);
      out.set(x, out.get(y));
      out.set(y, t);
    }
    return out;
  }

  static double frobeniusDistance(double[][] x, double[][] y) {
    double s = 0;
    for (int i = 0; i < x.length; i++) {
      for (int j = 0; j < x[i].length; j++) {
        double d = x[i][j] - y[i][j];
        s += d * d;
      }
    }
    return Math.sqrt(s);
  }

  static void assertOrthonormalColumns(String name, double[][] q, double tol) {
    int k = q[0].length;
    for (int p = 0; p < k; p++) {
      for (int r = 0; r < k; r++) {
        double dot = 0;
        for (double[] row : q) {
          dot += row[p] * row[r];
        }
        assertEquals(p == r ? 1.0 : 0.0, dot, tol, name + "ᵀ" + name + "[" + p + "][" + r + "]");
      }
    }
  }

  /** A fixed 32-byte key file, owner-only, so that the noise (keyed streams) is reproducible. */
  static void writeKey(Path file, long seed) throws Exception {
    byte[] key = MessageDigest.getInstance("SHA-256")
        .digest(("dplrf-it/key/" + seed).getBytes(StandardCharsets.UTF_8));
    Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.write(file, key);
  }

  /** Reads partition 0 of {@code topic} from the beginning until {@code count} records arrived. */
  static List<ConsumerRecord<byte[], byte[]>> readAll(KafkaEnvironment kafka, String topic, int count) {
    List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      Poll.until(count + " records on " + topic, Duration.ofSeconds(60), () -> {
        c.poll(Duration.ofMillis(200)).forEach(got::add);
        return got.size();
      }, size -> size >= count);
    }
    assertEquals(count, got.size(), "records on " + topic);
    return got;
  }
}
