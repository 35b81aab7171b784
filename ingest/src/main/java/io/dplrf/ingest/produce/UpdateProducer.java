package io.dplrf.ingest.produce;

import io.dplrf.ingest.UpdateRecords;
import io.dplrf.ingest.UpdateVisitor;
import io.dplrf.sketch.params.Preconditions;
import java.io.IOException;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends turnstile updates to the updates topic, {@code batch} updates per record (the last record
 * may hold fewer), at most {@code rate} updates per second. The record key is the privacy unit:
 * with {@link #send}, one key for every record (or none); with {@link #sendKeyed}, each update's
 * own key, a record holding updates of one key only (a change of key starts a new record, so a
 * file grouped by key packs as densely as an unkeyed one).
 *
 * <p>Delivery: an idempotent {@code acks=all} producer, so retries do not duplicate records
 * within a run; {@link #send} flushes and fails if any record failed. Re-running a failed {@code
 * produce} sends everything again (the topic then holds duplicates: the producer side is at least
 * once across runs).
 *
 * <p>Thread-safety: one {@link #send} at a time.
 */
public final class UpdateProducer implements AutoCloseable {

  /** Feeds updates to the sink, in order; called once per {@link #send}. */
  @FunctionalInterface
  public interface UpdateSource {
    void emit(UpdateVisitor sink) throws IOException;
  }

  /** Receives one update and its record key (the privacy unit; not null). */
  @FunctionalInterface
  public interface KeyedUpdateVisitor {
    void accept(byte[] key, int i, int j, double delta);
  }

  /** Feeds keyed updates to the sink, in order; called once per {@link #sendKeyed}. */
  @FunctionalInterface
  public interface KeyedUpdateSource {
    void emit(KeyedUpdateVisitor sink) throws IOException;
  }

  /** Told after each record is handed to the producer. */
  @FunctionalInterface
  public interface Progress {
    void sent(long updates, long records);
  }

  /** Sleeps for the rate limit; replaced in tests. */
  @FunctionalInterface
  interface Sleeper {
    void sleepNanos(long nanos) throws InterruptedException;
  }

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final int batch;
  private final byte[] key;
  private final double rate;
  private final Progress progress;
  private final LongSupplier nanoTime;
  private final Sleeper sleeper;

  private final int[] is;
  private final int[] js;
  private final double[] ds;
  private int buffered;
  /** The key of the buffered updates' record. */
  private byte[] recordKey;
  private long updates;
  private long records;
  private long startNanos;
  private volatile Exception failure;
  /** Each record handed to the producer: its first update's position (all calls together). */
  private long[] recordStarts = new long[64];
  /** Records whose delivery Kafka confirmed, by index; guarded by itself (callbacks' thread). */
  private final BitSet delivered = new BitSet();

  /**
   * @param batch updates per record, &gt; 0
   * @param key the record key (privacy unit) of every record, or null for none
   * @param rate updates per second, or {@code Double.POSITIVE_INFINITY} for no limit
   */
  public UpdateProducer(Producer<byte[], byte[]> producer, String topic, int batch, byte[] key,
      double rate, Progress progress) {
    this(producer, topic, batch, key, rate, progress, System::nanoTime, UpdateProducer::sleep);
  }

  UpdateProducer(Producer<byte[], byte[]> producer, String topic, int batch, byte[] key,
      double rate, Progress progress, LongSupplier nanoTime, Sleeper sleeper) {
    this.producer = Objects.requireNonNull(producer, "producer");
    this.topic = Objects.requireNonNull(topic, "topic");
    this.batch = Preconditions.checkPositive("batch", batch);
    this.key = key == null ? null : key.clone();
    Preconditions.check(rate > 0, "rate", "> 0 (infinity for no limit)", rate);
    this.rate = rate;
    this.progress = progress == null ? (u, r) -> {} : progress;
    this.nanoTime = nanoTime;
    this.sleeper = sleeper;
    this.is = new int[batch];
    this.js = new int[batch];
    this.ds = new double[batch];
  }

  /** A producer over a real {@link KafkaProducer} ({@code clientProperties}: at least bootstrap.servers). */
  public static UpdateProducer create(Map<String, Object> clientProperties, String topic,
      int batch, byte[] key, double rate, Progress progress) {
    Map<String, Object> c = new HashMap<>(clientProperties);
    c.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "dplrf-produce");
    c.put(ProducerConfig.ACKS_CONFIG, "all");
    c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    c.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
    c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return new UpdateProducer(new KafkaProducer<>(c), topic, batch, key, rate, progress);
  }

  /**
   * Sends every update the source emits, then flushes.
   *
   * @return the number of updates sent by this call
   * @throws IOException if the source fails, a record could not be delivered, or the thread was
   *     interrupted while rate limiting
   */
  public long send(UpdateSource source) throws IOException {
    recordKey = key;
    return run(base -> source.emit((i, j, d) -> add(base, i, j, d)));
  }

  /**
   * Sends every update the source emits, each in a record keyed by its own key, then flushes.
   *
   * @return the number of updates sent by this call
   * @throws IllegalStateException if this producer was made with a key for every record
   * @throws IOException as {@link #send}
   */
  public long sendKeyed(KeyedUpdateSource source) throws IOException {
    if (key != null) {
      throw new IllegalStateException("this producer keys every record with its own key");
    }
    return run(base -> source.emit((k, i, j, d) -> {
      Objects.requireNonNull(k, "key");
      if (buffered > 0 && !Arrays.equals(k, recordKey)) {
        flushBatch(base);
      }
      if (buffered == 0) {
        recordKey = k.clone();
      }
      add(base, i, j, d);
    }));
  }

  /** A call's emission; {@code base} is the count of updates sent before the call. */
  private interface Emission {
    void emit(long base) throws IOException;
  }

  private void add(long base, int i, int j, double d) {
    is[buffered] = i;
    js[buffered] = j;
    ds[buffered] = d;
    if (++buffered == batch) {
      flushBatch(base);
    }
  }

  private long run(Emission emission) throws IOException {
    long before = updates;
    startNanos = nanoTime.getAsLong();
    long base = updates;
    try {
      emission.emit(base);
      if (buffered > 0) {
        flushBatch(base);
      }
    } catch (RateLimitInterrupted e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e.getCause());
    } catch (SendFailure.Unchecked e) {
      // A record failed: nothing more is handed over; say what of the rest was delivered.
      try {
        producer.flush();
      } catch (RuntimeException flushFailed) {
        e.addSuppressed(flushFailed);
      }
      throw undelivered(before);
    }
    producer.flush();
    if (failure != null) {
      throw undelivered(before);
    }
    return updates - before;
  }

  /**
   * The failure, with what was not delivered, so that it can be resent: the first update of
   * this call that Kafka did not confirm (by its position in the input, 0-based), how many were
   * confirmed, and whether any after it were (resending from it would then repeat them).
   */
  private IOException undelivered(long before) {
    IOException cause = SendFailure.of(topic, failure);
    synchronized (delivered) {
      int first = -1;
      long confirmed = 0;
      long after = 0;
      for (int r = 0; r < records; r++) {
        if (recordStarts[r] < before) {
          continue; // an earlier call's
        }
        long size = (r + 1 < records ? recordStarts[r + 1] : updates) - recordStarts[r];
        if (delivered.get(r)) {
          confirmed += size;
          if (first >= 0) {
            after += size;
          }
        } else if (first < 0) {
          first = r;
        }
      }
      if (first < 0) {
        return cause;
      }
      long from = recordStarts[first] - before;
      return new IOException(cause.getMessage() + "; " + confirmed + " of " + (updates - before)
          + " updates handed to Kafka were delivered, the first not delivered is update " + from
          + " of the input (0-based, in input order; " + (after == 0
              ? "none after it was delivered: resend the input from it"
              : after + " after it were delivered: resending from it would add those twice")
          + ")", cause.getCause());
    }
  }

  private void flushBatch(long base) {
    if (failure != null) {
      throw SendFailure.unchecked(topic, failure);
    }
    pace(updates - base);
    byte[] value = UpdateRecords.encode(is, js, ds, 0, buffered);
    if (records == recordStarts.length) {
      recordStarts = Arrays.copyOf(recordStarts, 2 * recordStarts.length);
    }
    recordStarts[(int) records] = updates;
    int index = (int) records;
    producer.send(new ProducerRecord<>(topic, recordKey, value), (m, e) -> {
      if (e != null && failure == null) {
        failure = e;
      }
      if (e == null) {
        synchronized (delivered) {
          delivered.set(index);
        }
      }
    });
    updates += buffered;
    records++;
    buffered = 0;
    progress.sent(updates, records);
  }

  /** Waits until {@code sentThisCall} updates are due at the configured rate. */
  private void pace(long sentThisCall) {
    if (Double.isInfinite(rate)) {
      return;
    }
    long due = startNanos + (long) (sentThisCall * 1e9 / rate);
    long wait = due - nanoTime.getAsLong();
    if (wait > 0) {
      try {
        sleeper.sleepNanos(wait);
      } catch (InterruptedException e) {
        throw new RateLimitInterrupted(e);
      }
    }
  }

  private static void sleep(long nanos) throws InterruptedException {
    Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
  }

  public long updatesSent() {
    return updates;
  }

  public long recordsSent() {
    return records;
  }

  @Override
  public void close() {
    producer.close();
  }

  private static final class RateLimitInterrupted extends RuntimeException {
    RateLimitInterrupted(InterruptedException cause) {
      super(cause);
    }
  }
}
