package io.dplrf.ingest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes one topic exactly once into a service mode's state: its {@link RecordDecoder} decodes,
 * validates and bounds each record ({@link ContributionBounds}) into the mode's sink, and its
 * {@link IngestTarget} closes epochs and is snapshotted; the loop dead-letters the malformed.
 *
 * <p><b>Exactly once.</b> No consumer group steers the loop: the next offset of every
 * partition is written in the same atomic snapshot as the target's state, the budgets and the
 * counters ({@link Checkpoint}: a {@link StateStore} file, or in completion mode the {@link
 * RatingsStore} database), at each epoch close and on clean shutdown, always at a record
 * boundary (the offsets are exactly those after the last record applied). At start the loop
 * restores the snapshot and seeks to its offsets (the beginning for partitions it does not name).
 * After a crash at any point (kill -9) the state is that of the last snapshot, and consuming from
 * its offsets re-applies exactly the updates after it, in the same per-partition order: none is
 * lost, none is applied twice. The listener (which releases) runs only after the snapshot holding
 * the closed epoch is durable, so nothing released can be rolled back by a crash. Between the two,
 * the loop records the epoch on the broker ({@link ReleaseWitness}: the snapshot's offsets
 * committed to a member-less group of the stream's own, never read back as a position), so that
 * a start from an older backup is refused ({@link #checkWitness}); then the target raises its
 * released-epoch guard ({@link IngestTarget#beforeRelease}).
 *
 * <p><b>Pipelined close.</b> Where the target can end an epoch at once and finish it later
 * ({@link IngestTarget#beginCloseEpoch}: the sketch tree with its nodes kept as files) and the
 * store can write a snapshot captured earlier ({@link Checkpoint#capture}), the loop captures the
 * header (offsets at the boundary, counters, budgets) at the boundary, begins the close and goes
 * on consuming the next epoch, while a second thread ({@link EpochCloser}) finishes the close
 * (the tree's node files, written durably), then writes the captured snapshot with the target's
 * state as of the boundary, then calls the listener. The invariants above hold unchanged: the
 * snapshot is the state at a record boundary; it is written after the nodes it names are durable
 * and before anything of the epoch is released; a crash before it restores the previous snapshot
 * and re-reads the whole epoch. One close runs at a time: the loop waits for it before the next
 * close, before any other snapshot and before it returns.
 *
 * <p><b>A state directory that refuses writes</b> (no space left, a quota, an I/O error) pauses
 * ingest instead of failing it: every close and snapshot write is retried until it succeeds
 * ({@link StateWrites}: idempotent writes that leave no temp file behind), {@link #stateWrites}
 * says which write waits and why, and the loop goes on by itself once the write succeeds. The
 * invariants above hold unchanged: nothing of a close is released before its snapshot is written.
 *
 * <p><b>A new run</b> writes the snapshot of epoch 0 before it consumes anything ({@link #start}),
 * so that a crash at any step of the first close restarts from a snapshot like a crash at any
 * later close: no person is needed (docs/privacy/recovery.md has the privacy argument).
 *
 * <p><b>Dead letters</b> are sent with an idempotent {@code acks=all} producer; before each
 * snapshot the producer is flushed and any failed send fails the loop, so a snapshot never covers
 * a malformed record that is not in the dead-letter topic. After a crash, dead letters sent since
 * the last snapshot are sent again: the dead-letter topic is at least once (duplicates carry the
 * same {@code dplrf-partition}/{@code dplrf-offset} headers, so they can be recognised).
 * The log names the first dead letter of each reason with a hint, then sums the rest up at
 * most once a minute and at each epoch close ({@link DeadLetterLog}).
 *
 * <p><b>assign, not subscribe.</b> One loop owns the whole sketch, so it must read every
 * partition; a consumer group would add rebalances (revocations mid-epoch would force a snapshot
 * at arbitrary points) and committed offsets that would compete with the snapshot's. So the loop
 * {@code assign}s all partitions of the topic at start, without a group. Partitions added to the
 * topic later are picked up at the next start. Offsets that retention has deleted are an error
 * ({@code auto.offset.reset=none}), never a silent skip.
 *
 * <p><b>Epochs</b> close every {@code epochUpdates} update positions read (every update of every
 * record counts, whatever becomes of it; at the end of the record that reaches the count: see
 * {@link #epochDue} for why not applied updates) or every {@code epochLength} (any length, fractions of a second too;
 * checked after each record and after each poll). The first epoch opens when the run's first
 * record is read (so a service started before its producers spends no release on an empty
 * epoch), and every later one at the previous close; the snapshot keeps that time across
 * restarts. With epochs by count, an epoch that holds at least one update position also
 * closes after {@code idleClose} without a record read (when set), or at once on {@link
 * #requestClose} (an operator's action), so that a stream that ends inside an epoch is released
 * (docs/privacy/epoch-boundaries.md: which neighbours these rules cut alike, and what the first
 * record's time makes public). <b>Exhaustion:</b> once the target says all T epochs are
 * closed, the loop stops consuming, logs "epoch T reached", keeps its offsets at the last applied
 * record and {@link #run} returns with state {@link State#EXHAUSTED}.
 *
 * <p><b>Broker contact.</b> After every poll the loop notes whether the broker answered (records,
 * or any response counted by the consumer's {@code response-total} metric) and publishes a
 * {@link BrokerContact}, so that an outage shows in health, status and metrics although {@code
 * poll} itself only returns nothing.
 *
 * <p>Thread-safety: {@link #run} on one thread; {@link #close}, {@link #stats}, {@link #lag},
 * {@link #state}, {@link #brokerContact}, {@link #openEpoch} and {@link #requestClose} from any
 * thread (they read published copies, or hand a request to the loop's thread).
 *
 * <p>Size: past STYLE's 500 lines on purpose. Restore, poll, apply, dead-letter flush, epoch close
 * and snapshot share the invariants above (offsets at a record boundary, snapshot before release,
 * dead letters flushed before the snapshot that covers them); they are kept in one class so those
 * orderings can be checked in one reading — the pipelined close's included, which is where they
 * are easiest to get wrong. Decoding, bounds, storage and the closer's thread live elsewhere
 * ({@link RecordDecoder}, {@link ContributionBounds}, {@link StateStore}, {@link EpochCloser}).
 */
public final class IngestLoop implements Runnable, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IngestLoop.class);

  /** Header with the human-readable reason of a dead letter. */
  public static final String REASON_HEADER = "dplrf-reason";
  /** Header with the {@link DeadLetterReason} name. */
  public static final String REASON_CODE_HEADER = "dplrf-reason-code";
  public static final String TOPIC_HEADER = "dplrf-topic";
  public static final String PARTITION_HEADER = "dplrf-partition";
  public static final String OFFSET_HEADER = "dplrf-offset";

  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(60);
  private static final long TOPIC_WAIT_MILLIS = 1000;

  /**
   * Life cycle: NEW until the snapshot is restored; STARTING from then until every partition is
   * assigned (waiting for the topic); RUNNING while consuming; then EXHAUSTED (epoch T closed),
   * STOPPED (closed) or FAILED.
   */
  public enum State { NEW, STARTING, RUNNING, EXHAUSTED, STOPPED, FAILED }

  /** The consumer's metric of responses received from any broker (Kafka's network selector). */
  private static final String RESPONSES_METRIC = "response-total";
  private static final String RESPONSES_GROUP = "consumer-metrics";

  private final IngestConfig config;
  private final Consumer<byte[], byte[]> consumer;
  private final Producer<byte[], byte[]> deadLetters;
  private final Checkpoint store;
  private final IngestTarget target;
  private final EpochListener listener;
  /** The broker's record of the stream's durable snapshots ({@link ReleaseWitness}). */
  private final ReleaseWitness witness;
  /** Whether the restored snapshot has been checked against {@link #witness}. */
  private boolean witnessChecked;
  private final LongSupplier clock;
  private final ContributionBounds bounds;
  private final long epochMillis;

  private IngestStats stats = new IngestStats();
  private final Map<Integer, Long> nextOffsets = new TreeMap<>();
  private final List<TopicPartition> assigned = new ArrayList<>();
  /** Update positions read in the open epoch (see {@link #epochDue}). */
  private long updatesInEpoch;
  /** When the open epoch opened; 0 until the run's first record is read. */
  private long epochStartMillis;
  /**
   * Epochs whose close has begun: the target's count, ahead of it while a pipelined close
   * finishes on the closer's thread. The open epoch is the next one.
   */
  private int epochsBegun;
  /** Whether {@link #abandoned} has said that ingest stopped without a final snapshot. */
  private boolean abandonedLogged;
  /** When a record was last read, or consuming began (the idle rule of {@link IngestConfig#idleClose}). */
  private long idleSinceMillis;
  /** When this process last read a record; 0 before the first. */
  private long lastRecordMillis;
  /** The consumer's response-total metric, once looked up; null if it has none (a mock). */
  private Metric responses;
  private boolean responsesLookedUp;
  private double lastResponses = -1;
  private boolean restored;
  private boolean started;
  private final RecordDecoder decoder;
  /** The log's account of dead letters: the first of each reason, then summaries. */
  private final DeadLetterLog deadLetterLog;

  private volatile boolean stopRequested;
  private volatile State state = State.NEW;
  private volatile IngestStats published = new IngestStats();
  private volatile Map<TopicPartition, Long> publishedLag = Map.of();
  private volatile BrokerContact contact = BrokerContact.NONE;
  private volatile OpenEpoch openEpoch = new OpenEpoch(1, 0, 0, 0, 0);
  /** An operator's request to close the open epoch, taken by the loop's thread after a poll. */
  private final AtomicReference<CompletableFuture<Integer>> closeRequest = new AtomicReference<>();
  private volatile Throwable deadLetterFailure;
  private volatile Throwable failure;
  private final CountDownLatch finished = new CountDownLatch(1);
  private volatile boolean running;
  private final EpochCloser closer = new EpochCloser();
  /** Every write of the state (close, snapshot), retried while the state directory refuses it. */
  private StateWrites writes =
      new StateWrites(() -> stopRequested, Duration.ofSeconds(1), Duration.ofSeconds(30));

  /**
   * A loop over the given clients (which it then owns and closes).
   *
   * @param decoder the mode's decoder of one record into its sink, made around the loop's own
   *     contribution bounds (whose budgets the snapshot keeps)
   * @param clockMillis wall-clock milliseconds, for time-based epochs
   */
  public IngestLoop(IngestConfig config, Consumer<byte[], byte[]> consumer,
      Producer<byte[], byte[]> deadLetters, Checkpoint store, IngestTarget target,
      Function<ContributionBounds, RecordDecoder> decoder, EpochListener listener,
      LongSupplier clockMillis) {
    this(config, consumer, deadLetters, store, target, decoder, listener, clockMillis,
        ReleaseWitness.NONE);
  }

  /**
   * As above, with the broker's record of the stream's progress ({@link ReleaseWitness}), which
   * the loop then owns and closes.
   */
  public IngestLoop(IngestConfig config, Consumer<byte[], byte[]> consumer,
      Producer<byte[], byte[]> deadLetters, Checkpoint store, IngestTarget target,
      Function<ContributionBounds, RecordDecoder> decoder, EpochListener listener,
      LongSupplier clockMillis, ReleaseWitness witness) {
    this.witness = Objects.requireNonNull(witness, "witness");
    this.config = Objects.requireNonNull(config, "config");
    this.consumer = Objects.requireNonNull(consumer, "consumer");
    this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
    this.store = Objects.requireNonNull(store, "store");
    this.target = Objects.requireNonNull(target, "target");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.clock = Objects.requireNonNull(clockMillis, "clockMillis");
    this.bounds = new ContributionBounds(config.bounds());
    this.epochMillis = config.epochMillis();
    this.decoder = Objects.requireNonNull(decoder.apply(bounds), "decoder");
    this.deadLetterLog = new DeadLetterLog(config.deadLetterTopic(), clockMillis);
  }

  /**
   * A loop with a real {@link KafkaConsumer} and {@link KafkaProducer}.
   *
   * @param clientProperties at least {@code bootstrap.servers}; may add security settings. The
   *     settings exactly once depends on are forced (see {@link IngestClients}).
   */
  public static IngestLoop create(IngestConfig config, Map<String, Object> clientProperties,
      Checkpoint store, IngestTarget target, Function<ContributionBounds, RecordDecoder> decoder,
      EpochListener listener) {
    KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(IngestClients.consumerConfig(clientProperties));
    try {
      KafkaProducer<byte[], byte[]> producer =
          new KafkaProducer<>(IngestClients.producerConfig(clientProperties));
      // Used only if the target names a stream (after its restore); the Admin client connects
      // on its first request.
      ReleaseWitness witness = ReleaseWitness.kafka(clientProperties, config.topic());
      return new IngestLoop(config, consumer, producer, store, target, decoder, listener,
          System::currentTimeMillis, witness);
    } catch (RuntimeException e) {
      consumer.close();
      throw e;
    }
  }

  /** Restores, assigns, then consumes until exhausted, closed or failed; snapshots on a clean stop. */
  @Override
  public void run() {
    running = true;
    boolean clean = false;
    try {
      start();
      while (!stopRequested && pollOnce()) {
        // pollOnce does the work
      }
      clean = true;
    } catch (WakeupException e) {
      clean = true; // close() interrupted a poll: we are at a record boundary
    } catch (StateWrites.Abandoned e) {
      abandoned(e);
    } catch (IOException e) {
      fail(new UncheckedIOException(e));
    } catch (RuntimeException | Error e) {
      fail(e);
      throw e;
    } finally {
      try {
        closer.await(); // a begun close ends (or fails) before anything else
        if (clean && started) {
          deadLetterLog.summarize(" (ingest stops)");
          snapshot();
          if (state == State.RUNNING) {
            state = State.STOPPED;
          }
          LOG.info("ingest stopped cleanly at {} ({} epochs closed)", nextOffsets,
              target.epochsClosed());
        }
      } catch (StateWrites.Abandoned e) {
        abandoned(e);
      } catch (IOException | RuntimeException e) {
        fail(e);
      } finally {
        closer.close();
        closeClients();
        CompletableFuture<Integer> pending = closeRequest.getAndSet(null);
        if (pending != null) {
          pending.completeExceptionally(new IllegalStateException(notRunning()));
        }
        finished.countDown();
      }
    }
  }

  /**
   * A stop while the state directory refused a write: not a failure of ingest — the state stays
   * at the last snapshot written, as after a crash, and the next start replays from there.
   */
  private void abandoned(StateWrites.Abandoned e) {
    if (state != State.FAILED) {
      state = State.STOPPED;
    }
    // A close abandoned while the loop waited for it is thrown there and again by the closer's
    // later await (it keeps its failure): one stop, one warning.
    if (abandonedLogged) {
      return;
    }
    abandonedLogged = true;
    LOG.warn("ingest stopped without a final snapshot: {}; the next start resumes from the last"
        + " snapshot written", e.getMessage());
  }

  private void fail(Throwable e) {
    if (failure != null && failure != e) {
      failure.addSuppressed(e); // keep the first cause
    } else {
      failure = e;
    }
    state = State.FAILED;
    LOG.error("ingest failed; state and offsets stay at the last snapshot", e);
  }

  /**
   * Restores the snapshot, if there is one, into the target, the budgets and the counters, checks
   * it against the broker's record of the stream ({@link #checkWitness}: the one Kafka call, for
   * targets that name a stream), then tells the listener ({@link EpochListener#restored}, with the
   * time the last restored epoch closed). Call it before {@link #run} to find out at start that a
   * snapshot cannot be used (other key, other settings, corrupt, older than the broker's record):
   * the service then refuses to start
   * instead of serving nothing; and so that what the listener serves is back before anyone asks.
   * {@link #run} restores by itself when this was not called. At most once.
   *
   * @throws IOException naming the snapshot file and the reason it cannot be restored, or if the
   *     broker's record cannot be read
   */
  public void restore() throws IOException {
    if (restored) {
      return;
    }
    var header = store.read(bounds, target);
    if (header.isPresent()) {
      var h = header.get();
      if (!h.topic().equals(config.topic())) {
        throw new IOException("snapshot " + store.file() + " is for topic '" + h.topic()
            + "', configured '" + config.topic() + "'");
      }
      stats = h.stats().copy();
      nextOffsets.putAll(h.nextOffsets());
      updatesInEpoch = h.updatesInEpoch();
      epochStartMillis = h.epochStartMillis();
      LOG.info("restored snapshot: {} epochs closed, offsets {}, {}", h.epochsClosed(),
          h.nextOffsets(), stats);
    } else {
      epochStartMillis = 0; // the first epoch opens with the first record read
      LOG.info("no snapshot in {}: consuming '{}' from the beginning", store.file().getParent(),
          config.topic());
    }
    restored = true;
    try {
      checkWitness();
    } catch (IOException e) {
      // The broker cannot be asked now (an outage): the restored epochs are served, nothing is
      // consumed or closed before the check (start), so no epoch can be closed a second time.
      LOG.warn("the broker's record of the stream cannot be read yet ({}); it is checked before"
          + " anything is consumed", e.getMessage());
    }
    guardRestored();
    epochsBegun = target.epochsClosed();
    state = State.STARTING;
    publish();
    int closed = target.epochsClosed();
    // Every close sets the open epoch's start to its own time, and the snapshot keeps it.
    listener.restored(closed, closed > 0 ? Instant.ofEpochMilli(epochStartMillis) : null);
  }

  /**
   * Refuses a restored snapshot older than the broker's record of the stream ({@link
   * ReleaseWitness}; docs/privacy/recovery.md §6): an older backup put back whole, whose later
   * epochs may have been released and would be closed again with their noise. Then records the
   * restored epoch, which renews the record. Runs in {@link #restore}, before the listener hears
   * of the restored epochs (it may release them).
   *
   * @throws OlderThanBrokerRecordException naming the consumer group and both epochs
   * @throws IOException if the broker cannot be asked (the caller retries)
   */
  private void checkWitness() throws IOException {
    String stream = target.streamLabel();
    if (stream == null || witnessChecked) {
      witnessChecked = true;
      return;
    }
    int closed = target.epochsClosed();
    int witnessed = witness.witnessed(stream);
    if (witnessed > closed) {
      throw new OlderThanBrokerRecordException("the broker records that the snapshot of epoch " + witnessed
          + " of this stream was durable (consumer group " + ReleaseWitness.group(stream)
          + " on topic '" + config.topic() + "'), but " + store.file() + " is of epoch " + closed
          + ": it is an older backup, and restoring it would close epochs that may have been"
          + " released again with the same noise on possibly other updates"
          + " (docs/privacy/recovery.md §6). Restore the latest backup of this state directory,"
          + " or start a new run in an empty one (docs/operations.md §4)");
    }
    if (closed > 0) {
      witness.record(stream, closed, new TreeMap<>(nextOffsets));
    }
    witnessChecked = true;
  }

  /**
   * A restored snapshot older than the broker's record of its stream: never retried, the start
   * (or ingest) fails with it.
   */
  public static final class OlderThanBrokerRecordException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    OlderThanBrokerRecordException(String message) {
      super(message);
    }
  }

  /**
   * The restored epochs may be released by the listener (their snapshot is durable): the
   * target's guard is raised to them first, as after a close ({@link #beforeRelease}); a crash
   * between a snapshot and its guard is completed here.
   */
  private void guardRestored() throws IOException {
    int closed = target.epochsClosed();
    if (closed > 0) {
      target.beforeRelease(closed);
    }
  }

  /**
   * What must be durable before anything of {@code epoch} is released, once its snapshot is:
   * the broker's record of the epoch at {@code offsets} ({@link ReleaseWitness}), then the
   * target's released-epoch guard ({@link IngestTarget#beforeRelease}). Each is retried while it
   * is refused, like a state write: the release waits.
   */
  private void beforeRelease(int epoch, Map<Integer, Long> offsets) throws IOException {
    String stream = target.streamLabel();
    if (stream != null) {
      writes.run("the broker's record of epoch " + epoch,
          () -> witness.record(stream, epoch, offsets));
    }
    writes.run("the released-epoch guard of epoch " + epoch, () -> target.beforeRelease(epoch));
  }

  /** Restores the snapshot (unless {@link #restore} did), then assigns all partitions and seeks. */
  void start() throws IOException {
    restore();
    if (!witnessChecked) {
      writes.run("reading the broker's record of the stream", this::checkWitness);
    }
    started = true;
    if (!store.exists()) {
      // A run exists on disk before its first epoch closes: the snapshot of epoch 0 (no offsets,
      // the target's empty state, e.g. the tree's instance label) is written before anything is
      // consumed, so that no file of a close (the tree's node files) is ever written without a
      // snapshot beside it. A crash during the first close then restarts from this snapshot
      // like any other (docs/privacy/recovery.md), and node files without a snapshot can only
      // mean a snapshot lost after the fact, which the tree refuses.
      snapshot();
      LOG.info("new run: wrote the snapshot of epoch 0 to {}", store.file());
    }
    if (target.exhausted()) {
      exhausted();
      return;
    }
    List<PartitionInfo> parts = partitions();
    if (parts == null) {
      return; // stop requested while waiting for the topic
    }
    for (PartitionInfo p : parts) {
      assigned.add(new TopicPartition(config.topic(), p.partition()));
    }
    assigned.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
    for (Integer p : nextOffsets.keySet()) {
      if (parts.stream().noneMatch(info -> info.partition() == p)) {
        throw new IOException("snapshot has offsets for partition " + p + " of '"
            + config.topic() + "', which no longer has it");
      }
    }
    consumer.assign(assigned);
    List<TopicPartition> fromBeginning = new ArrayList<>();
    for (TopicPartition tp : assigned) {
      Long next = nextOffsets.get(tp.partition());
      if (next != null) {
        consumer.seek(tp, next);
      } else {
        fromBeginning.add(tp);
      }
    }
    if (!fromBeginning.isEmpty()) {
      consumer.seekToBeginning(fromBeginning);
    }
    idleSinceMillis = clock.getAsLong();
    state = State.RUNNING;
    publish();
  }

  /**
   * The topic's partitions, once it exists; waits (and counts the time as asking the broker)
   * while the topic is missing or the broker does not answer.
   */
  private List<PartitionInfo> partitions() {
    boolean logged = false;
    while (!stopRequested) {
      long t0 = clock.getAsLong();
      List<PartitionInfo> parts;
      try {
        parts = consumer.partitionsFor(config.topic());
        contact = contact.after(clock.getAsLong(), clock.getAsLong() - t0, true);
      } catch (TimeoutException e) {
        contact = contact.after(clock.getAsLong(), clock.getAsLong() - t0, false);
        LOG.warn("no answer from Kafka about topic '{}' within the client's timeout: {}",
            config.topic(), e.getMessage());
        continue;
      }
      if (parts != null && !parts.isEmpty()) {
        return parts;
      }
      if (!logged) {
        LOG.info("waiting for topic '{}' to exist", config.topic());
        logged = true;
      }
      try {
        Thread.sleep(TOPIC_WAIT_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
    return null;
  }

  /**
   * One poll: applies every record returned (closing epochs as they become due) unless the
   * target is exhausted.
   *
   * @return false once the target is exhausted (nothing more will be consumed)
   */
  boolean pollOnce() throws IOException {
    if (state == State.EXHAUSTED || target.exhausted()) {
      exhausted();
      return false;
    }
    if (closer.ended()) {
      closer.await(); // throws if the close failed
    }
    long t0 = clock.getAsLong();
    ConsumerRecords<byte[], byte[]> records = consumer.poll(config.pollTimeout());
    long t1 = clock.getAsLong();
    contact = contact.after(t1, t1 - t0, !records.isEmpty() || brokerAnswered());
    try {
      for (ConsumerRecord<byte[], byte[]> r : records) {
        process(r);
        if (epochDue()) {
          closeEpoch();
          if (target.exhausted()) {
            exhausted();
            return false;
          }
        }
      }
      if (!records.isEmpty()) {
        lastRecordMillis = clock.getAsLong();
        idleSinceMillis = lastRecordMillis;
      }
      deadLetterLog.tick();
      CompletableFuture<Integer> request = takeCloseRequest();
      boolean idle = idleDue();
      if (epochDue() || idle || request != null) {
        int epoch = epochsBegun + 1;
        if (request == null && idle) {
          LOG.info("closing epoch {}: no record read for {} (idle close)", epoch,
              config.idleClose());
        }
        try {
          closeEpoch();
        } catch (IOException | RuntimeException e) {
          if (request != null) {
            request.completeExceptionally(e);
          }
          throw e;
        }
        if (request != null) {
          request.complete(epoch);
        }
        if (target.exhausted()) {
          exhausted();
          return false;
        }
      }
      if (deadLetterFailure != null) {
        throw new IOException("sending to dead-letter topic '" + config.deadLetterTopic()
            + "' failed", deadLetterFailure);
      }
      return true;
    } finally {
      publish();
    }
  }

  private void process(ConsumerRecord<byte[], byte[]> r) {
    if (epochStartMillis == 0) {
      epochStartMillis = clock.getAsLong();
      LOG.info("the first record is read: epoch 1 opens");
    }
    stats.recordConsumed();
    try {
      decoder.apply(r.key(), r.value(), stats);
    } catch (MalformedRecordException e) {
      stats.countDeadLetter(e.reason());
      sendDeadLetter(r, e);
      deadLetterLog.deadLettered(e.reason(), r.topic(), r.partition(), r.offset(), e.getMessage(),
          decoder.positions(r.value()));
    }
    updatesInEpoch += decoder.positions(r.value());
    nextOffsets.put(r.partition(), r.offset() + 1);
  }

  private void sendDeadLetter(ConsumerRecord<byte[], byte[]> r, MalformedRecordException e) {
    RecordHeaders headers = new RecordHeaders();
    for (Header h : r.headers()) {
      headers.add(h);
    }
    headers.add(REASON_HEADER, utf8(e.getMessage()));
    headers.add(REASON_CODE_HEADER, utf8(e.reason().name()));
    headers.add(TOPIC_HEADER, utf8(r.topic()));
    headers.add(PARTITION_HEADER, utf8(Integer.toString(r.partition())));
    headers.add(OFFSET_HEADER, utf8(Long.toString(r.offset())));
    LOG.debug("dead letter {}-{}@{}: {}", r.topic(), r.partition(), r.offset(), e.getMessage());
    deadLetters.send(new ProducerRecord<>(config.deadLetterTopic(), null, r.key(), r.value(),
        headers), (metadata, ex) -> {
          if (ex != null && deadLetterFailure == null) {
            deadLetterFailure = ex;
          }
        });
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Whether the open epoch is over.
   *
   * <p>Privacy: the tree analysis assumes neighbouring streams are cut into the same epochs, so
   * that only the nodes holding the unit's own updates differ, by at most C per level; the cut
   * must not depend on the protected data (docs/privacy/continual-release.md §7). So epochs by
   * count count update <em>positions</em> read (length / 16 of every record, whether its updates
   * are applied, clipped, dropped or dead-lettered), not applied updates: whether an update is
   * applied depends on its value (a NaN dead-letters its record) and on its unit's earlier values
   * (a spent budget drops it), so one unit's values would move every later boundary and make O(T)
   * nodes differ by other units' updates. Positions depend only on the stream's shape (which
   * records, how long, in which order), which is public: protected are the values of a unit's
   * updates (the neighbour has zeros in their place), not how many it sent. Epochs by time are
   * cut by the clock at which records are read, from the time the first record is read: under
   * the same relation that time is public too (docs/privacy/epoch-boundaries.md).
   */
  private boolean epochDue() {
    if (config.epochUpdates() > 0) {
      return updatesInEpoch >= config.epochUpdates();
    }
    return epochStartMillis != 0 && clock.getAsLong() - epochStartMillis >= epochMillis;
  }

  /**
   * Whether the idle rule closes the open epoch now ({@link IngestConfig#idleClose}): epochs by
   * count, at least one update position in it, and no record read for the idle time. Read
   * times are public under the relation epochs by count protect (docs/privacy/continual-release.md
   * §7), and so is whether the epoch holds a position: neighbours are cut alike.
   */
  private boolean idleDue() {
    long idle = config.idleCloseMillis();
    return idle > 0 && updatesInEpoch > 0 && clock.getAsLong() - idleSinceMillis >= idle;
  }

  /**
   * The pending {@link #requestClose}, if it can be honoured now; one that cannot (an empty
   * epoch) is answered here and null returned.
   */
  private CompletableFuture<Integer> takeCloseRequest() {
    CompletableFuture<Integer> request = closeRequest.getAndSet(null);
    if (request != null && updatesInEpoch == 0) {
      request.completeExceptionally(new IllegalStateException("epoch "
          + (epochsBegun + 1) + " holds no update yet: closing it would spend one of"
          + " the T releases on nothing"));
      return null;
    }
    return request;
  }

  /**
   * Asks the loop to close the open epoch at the next record boundary (after its current poll),
   * as an operator's action; the future completes with the epoch's number once its close has
   * begun (its release follows as for any close), or exceptionally with the reason it cannot be
   * closed: epochs cut by the clock (the clock closes them), an epoch that holds no update
   * position yet, all T epochs closed, or the loop not consuming.
   *
   * <p>Privacy: the cut stays public only if the decision is. Ending a stream, or a schedule, is
   * public; a decision drawn from the data's values (which {@code /admin/ingest}'s checksum and
   * clipped and dropped counts reflect) is not (docs/privacy/epoch-boundaries.md).
   */
  public CompletableFuture<Integer> requestClose() {
    CompletableFuture<Integer> request = new CompletableFuture<>();
    if (config.epochUpdates() == 0) {
      request.completeExceptionally(new IllegalStateException("epochs are cut by the clock"
          + " (epoch-seconds): the open epoch closes at its time"));
      return request;
    }
    State s = state;
    if (s == State.EXHAUSTED || target.exhausted()) {
      request.completeExceptionally(new IllegalStateException("all T epochs are closed"));
      return request;
    }
    if (s != State.RUNNING) {
      request.completeExceptionally(new IllegalStateException(notRunning()));
      return request;
    }
    CompletableFuture<Integer> earlier = closeRequest.getAndSet(request);
    if (earlier != null) {
      request.whenComplete((epoch, e) -> {
        if (e == null) {
          earlier.complete(epoch);
        } else {
          earlier.completeExceptionally(e);
        }
      });
    }
    if (state != State.RUNNING && closeRequest.compareAndSet(request, null)) {
      request.completeExceptionally(new IllegalStateException(notRunning())); // run() has ended
    }
    return request;
  }

  private String notRunning() {
    return "ingest is not consuming (state " + state.name().toLowerCase(Locale.ROOT)
        + ")";
  }

  /**
   * Whether the broker answered since the last call: the consumer's count of responses received
   * moved. False for a consumer without that metric (a mock), where records alone count.
   */
  private boolean brokerAnswered() {
    if (!responsesLookedUp) {
      responsesLookedUp = true;
      for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
        if (e.getKey().name().equals(RESPONSES_METRIC)
            && e.getKey().group().equals(RESPONSES_GROUP)) {
          responses = e.getValue();
        }
      }
    }
    if (responses == null || !(responses.metricValue() instanceof Number n)) {
      return false;
    }
    double now = n.doubleValue();
    boolean moved = now != lastResponses;
    lastResponses = now;
    return moved;
  }

  /**
   * Closes the epoch, makes it durable with the offsets, then tells the listener: here, or, for
   * a pipelined close, the closer's thread finishes it (class comment).
   */
  private void closeEpoch() throws IOException {
    deadLetterLog.summarize(" (epoch " + (epochsBegun + 1) + " closes)");
    closer.await();
    IngestTarget.ClosingEpoch closing = target.beginCloseEpoch();
    if (closing == null) {
      // A close that fails on a node write has changed nothing and is tried again.
      writes.run("closing epoch " + (target.epochsClosed() + 1), target::closeEpoch);
      epochsBegun = target.epochsClosed();
      updatesInEpoch = 0;
      epochStartMillis = clock.getAsLong();
      snapshot();
      epochClosed(target.epochsClosed(), epochStartMillis, nextOffsets);
      return;
    }
    flushDeadLetters();
    epochsBegun = closing.epoch();
    updatesInEpoch = 0;
    epochStartMillis = clock.getAsLong();
    long closedAt = epochStartMillis;
    Map<Integer, Long> offsets = new TreeMap<>(nextOffsets);
    Checkpoint.DeferredWrite write = store.capture(new StateStore.Header(config.topic(), offsets,
        stats.copy(), closing.epoch(), 0, epochStartMillis), bounds);
    if (write == null) { // the store cannot write later: finish here
      closing.finish();
      snapshot();
      epochClosed(closing.epoch(), closedAt, offsets);
      return;
    }
    closer.start(() -> {
      // Each step is retried while the state directory refuses it; finish resumes at the node
      // write that failed. The listener (the release) comes only after the snapshot is written.
      writes.run("closing epoch " + closing.epoch(), closing::finish);
      long[] t0 = new long[1];
      writes.run("the snapshot of epoch " + closing.epoch(), () -> {
        t0[0] = System.nanoTime();
        write.write(closing::writeState);
      });
      snapshotWritten(t0[0]);
      LOG.info("epoch {} closed at offsets {}", closing.epoch(), offsets);
      beforeRelease(closing.epoch(), offsets);
      listener.epochClosed(closing.epoch(), Instant.ofEpochMilli(closedAt));
    });
    publish();
  }

  /** A close finished on the loop's thread: publish the counters, then tell the listener. */
  private void epochClosed(int epoch, long closedAt, Map<Integer, Long> offsets)
      throws IOException {
    LOG.info("epoch {} closed at offsets {}", epoch, offsets);
    beforeRelease(epoch, new TreeMap<>(offsets));
    publish();
    listener.epochClosed(epoch, Instant.ofEpochMilli(closedAt));
  }

  /** Flushes dead letters, so that the snapshot to be written never covers an unsent one. */
  private void flushDeadLetters() throws IOException {
    deadLetters.flush();
    if (deadLetterFailure != null) {
      throw new IOException("sending to dead-letter topic '" + config.deadLetterTopic()
          + "' failed; not snapshotting past it", deadLetterFailure);
    }
  }

  /**
   * Writes the snapshot, after the pending close if there is one; flushes dead letters first so
   * it never covers an unsent one.
   */
  void snapshot() throws IOException {
    closer.await();
    flushDeadLetters();
    StateStore.Header header = new StateStore.Header(config.topic(), nextOffsets, stats,
        target.epochsClosed(), updatesInEpoch, epochStartMillis);
    long[] t0 = new long[1];
    writes.run("the snapshot of epoch " + header.epochsClosed(), () -> {
      t0[0] = System.nanoTime();
      store.write(header, bounds, target);
    });
    snapshotWritten(t0[0]);
  }

  /** Tells the listener how long the snapshot write begun at {@code t0} took, and its size. */
  private void snapshotWritten(long t0) {
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    long bytes;
    try {
      bytes = store.sizeInBytes();
    } catch (IOException e) {
      LOG.warn("cannot read the size of {} for the metrics: {}", store.file(), e.getMessage());
      return; // the snapshot is written; only its metric is lost
    }
    listener.snapshotWritten(took, bytes);
  }

  private void exhausted() {
    if (state != State.EXHAUSTED) {
      state = State.EXHAUSTED;
      LOG.info("epoch T reached: all epochs are closed; not consuming further (offsets stay at {})",
          nextOffsets);
    }
  }

  private void publish() {
    published = stats.copy();
    openEpoch = new OpenEpoch(epochsBegun + 1, updatesInEpoch, epochStartMillis,
        idleSinceMillis, lastRecordMillis);
    Map<TopicPartition, Long> lag = new HashMap<>();
    for (TopicPartition tp : assigned) {
      OptionalLong l = consumer.currentLag(tp);
      if (l.isPresent()) {
        lag.put(tp, l.getAsLong());
      }
    }
    publishedLag = Collections.unmodifiableMap(lag);
  }

  /** The counters as of the last poll (a copy; safe from any thread). */
  public IngestStats stats() {
    return published;
  }

  /**
   * Hands the loop's Kafka clients to a metrics binder (e.g. Micrometer's KafkaClientMetrics),
   * which only reads their thread-safe {@code metrics()}; never use them for anything else.
   */
  public void bindClientMetrics(java.util.function.Consumer<Object> binder) {
    binder.accept(consumer);
    binder.accept(deadLetters);
  }

  /**
   * Records behind the end of each partition, as of the last poll (only partitions whose end the
   * consumer knows). For metrics: the end is the one last fetched, so while the broker is
   * unreachable ({@link #brokerContact}) this is stale.
   */
  public Map<TopicPartition, Long> lag() {
    return publishedLag;
  }

  /** What the loop knows of its broker, as of its last poll or metadata call. */
  public BrokerContact brokerContact() {
    return contact;
  }

  /** The epoch being filled, as of the last poll. */
  public OpenEpoch openEpoch() {
    return openEpoch;
  }

  public State state() {
    return state;
  }

  /** Tests: shorter waits between attempts of a refused state write; before {@link #run}. */
  void stateWriteWaits(Duration first, Duration max) {
    writes = new StateWrites(() -> stopRequested, first, max);
  }

  /**
   * Whether ingest waits for the state directory (a close or snapshot write it refused, retried
   * until it succeeds), and how many writes failed; any thread.
   */
  public StateWrites stateWrites() {
    return writes;
  }

  /** Why the loop failed, or null. */
  public Throwable failure() {
    return failure;
  }

  /**
   * Stops the loop: interrupts a poll, waits until {@link #run} has written the final snapshot and
   * closed the clients. Idempotent.
   */
  @Override
  public void close() {
    stopRequested = true;
    writes.wake();
    if (!running) {
      closeClients();
      return;
    }
    if (finished.getCount() == 0) {
      return; // run() has ended (exhausted or failed) and closed the clients
    }
    consumer.wakeup();
    try {
      if (!finished.await(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("ingest loop did not stop within {}", CLOSE_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized void closeClients() {
    try {
      consumer.close();
    } catch (RuntimeException e) {
      LOG.warn("closing the consumer", e);
    }
    try {
      deadLetters.close();
    } catch (RuntimeException e) {
      LOG.warn("closing the dead-letter producer", e);
    }
    try {
      witness.close();
    } catch (RuntimeException e) {
      LOG.warn("closing the broker record's client", e);
    }
  }
}
