package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.ingest.ContributionBounds.BudgetPolicy;
import io.dplrf.ingest.ContributionBounds.Unit;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop's logic against Kafka's MockConsumer/MockProducer (unit tests only; the same scenarios
 * against a real broker belong in it-tests).
 */
class IngestLoopTest {
  static final String TOPIC = "updates";
  static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
  static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
  static final ContributionBounds.Config KEY_CLIP =
      new ContributionBounds.Config(20, 10, 1.0, Unit.KEY, BudgetPolicy.CLIP);

  @TempDir Path dir;

  /** One run of the loop: its clients, target, listener calls and clock. */
  final class Run {
    final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    final MockProducer<byte[], byte[]> producer;
    final RecordingTarget target;
    final List<Integer> epochs = new ArrayList<>();
    /** Records read when each epoch closed: where the epoch boundaries fell in the stream. */
    final List<Long> recordsAtClose = new ArrayList<>();
    final List<Integer> restored = new ArrayList<>();
    final List<java.time.Instant> restoredAt = new ArrayList<>();
    /** The close time handed with each epoch. */
    final List<java.time.Instant> closedAt = new ArrayList<>();
    final AtomicLong clock = new AtomicLong(1_000_000);
    final IngestLoop loop;

    Run(Path stateDir, IngestConfig config, int maxEpochs, boolean autoComplete) throws IOException {
      consumer.updatePartitions(TOPIC, List.of(info(0), info(1)));
      consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
      producer = new MockProducer<>(autoComplete, null, new ByteArraySerializer(),
          new ByteArraySerializer());
      target = new RecordingTarget(maxEpochs);
      EpochListener listener = new EpochListener() {
        @Override
        public void epochClosed(int epoch) {
          epochs.add(epoch);
          recordsAtClose.add(loop.stats().recordsConsumed());
        }

        @Override
        public void epochClosed(int epoch, java.time.Instant at) {
          closedAt.add(at);
          epochClosed(epoch);
        }

        @Override
        public void restored(int epochsClosed, java.time.Instant lastClosed) {
          restored.add(epochsClosed);
          restoredAt.add(lastClosed);
        }
      };
      loop = new IngestLoop(config, consumer, producer, new StateStore(stateDir), target,
          b -> RecordDecoder.updates(b, target::update), listener, clock::get);
    }

    /** start() and hand the mock consumer the records (it only takes them once assigned). */
    Run start(List<ConsumerRecord<byte[], byte[]>> records) throws IOException {
      loop.start();
      records.forEach(consumer::addRecord);
      Map<TopicPartition, Long> end = new HashMap<>();
      for (ConsumerRecord<byte[], byte[]> r : records) {
        end.merge(new TopicPartition(r.topic(), r.partition()), r.offset() + 1, Math::max);
      }
      consumer.updateEndOffsets(end);
      return this;
    }

    /** Polls until the loop has consumed {@code records} in total or stops. */
    void pollUntil(long records) throws IOException {
      for (int k = 0; k < 10_000 && loop.stats().recordsConsumed() < records; k++) {
        if (!loop.pollOnce()) {
          return;
        }
      }
    }
  }

  private static PartitionInfo info(int p) {
    return new PartitionInfo(TOPIC, p, null, null, null);
  }

  private static ConsumerRecord<byte[], byte[]> record(TopicPartition tp, long offset, byte[] key,
      byte[] value) {
    return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, key, value);
  }

  private static byte[] updates(int... ij) {
    int n = ij.length / 2;
    int[] i = new int[n];
    int[] j = new int[n];
    double[] d = new double[n];
    for (int k = 0; k < n; k++) {
      i[k] = ij[2 * k];
      j[k] = ij[2 * k + 1];
      d[k] = 0.125 * (k + 1);
    }
    return UpdateRecords.encode(i, j, d, 0, n);
  }

  /**
   * A deterministic stream over two partitions: keys of forty users, 1-3 updates per record, Δ
   * large enough that budgets clip and drop, and a few malformed records of each kind.
   */
  static List<ConsumerRecord<byte[], byte[]>> stream(int perPartition) {
    SplittableRandom rnd = new SplittableRandom(42);
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    for (TopicPartition tp : List.of(P0, P1)) {
      for (long o = 0; o < perPartition; o++) {
        byte[] key = ("user" + rnd.nextInt(40)).getBytes(StandardCharsets.UTF_8);
        int n = rnd.nextInt(1, 4);
        int[] i = new int[n];
        int[] j = new int[n];
        double[] d = new double[n];
        for (int k = 0; k < n; k++) {
          i[k] = rnd.nextInt(20);
          j[k] = rnd.nextInt(10);
          d[k] = rnd.nextDouble(-0.6, 0.6);
        }
        if (o % 13 == 5) {
          d[n - 1] = Double.NaN;
        } else if (o % 17 == 3) {
          i[0] = 20;
        }
        byte[] value = UpdateRecords.encode(i, j, d, 0, n);
        if (o % 11 == 7) {
          value = java.util.Arrays.copyOf(value, value.length + 3);
        }
        out.add(record(tp, o, o % 19 == 9 ? null : key, value));
      }
    }
    return out;
  }

  @Test
  void epochs_closeAfterEveryEpochUpdatesAppliedUpdates_atRecordBoundaries() throws Exception {
    var bounds = new ContributionBounds.Config(20, 10, 1.0, Unit.UPDATE, BudgetPolicy.CLIP);
    Run run = new Run(dir, IngestConfig.byUpdates(TOPIC, bounds, 5), 100, true);
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int o = 0; o < 10; o++) {
      records.add(record(P0, o, null, updates(1, 1, 2, 2, 3, 3)));
    }
    run.start(records).pollUntil(10);
    // 3 updates per record: the count 5 is reached inside the second record, the epoch closes after it.
    assertEquals(List.of(1, 2, 3, 4, 5), run.epochs);
    assertEquals(Map.of(1, 6L, 2, 6L, 3, 6L, 4, 6L, 5, 6L), run.target.updatesPerEpoch);
    var h = new StateStore(dir).read(new ContributionBounds(bounds), new RecordingTarget(100))
        .orElseThrow();
    assertEquals(Map.of(0, 10L), h.nextOffsets());
    assertEquals(5, h.epochsClosed());
    assertEquals(0, h.updatesInEpoch());
    assertEquals(List.of(0), run.restored);
  }

  @Test
  void epochUpdates_countsEveryUpdatePositionRead_droppedAndDeadLetteredToo() throws Exception {
    var drop = new ContributionBounds.Config(20, 10, 1.0, Unit.KEY, BudgetPolicy.DROP);
    Run run = new Run(dir, IngestConfig.byUpdates(TOPIC, drop, 3), 100, true);
    byte[] k = {7};
    run.start(List.of(
        record(P0, 0, k, UpdateRecords.encode(new int[] {1}, new int[] {1}, new double[] {1.0}, 0, 1)),
        record(P0, 1, k, updates(2, 2)), // k's budget is spent: dropped
        record(P0, 2, k, UpdateRecords.encode(new int[] {3}, new int[] {3},
            new double[] {Double.NaN}, 0, 1)), // dead-lettered
        record(P0, 3, k, new byte[17]))); // dead-lettered, 1 position (17 / 16)
    run.pollUntil(4);
    assertEquals(1, run.loop.stats().updatesApplied());
    assertEquals(List.of(1), run.epochs, "3 positions read by the end of record 2");
    assertEquals(List.of(3L), run.recordsAtClose);
  }

  /**
   * The privacy argument (docs/privacy/continual-release.md §7) needs neighbouring streams cut
   * into the same epochs. Neighbours under epoch-updates: the same records, with one unit's
   * updates zeroed in place. Here unit "a" spends its budget (policy drop), so its later updates
   * are dropped in S but applied (as zeros) in S', and one of its records is dead-lettered in S
   * (a NaN) but not in S'. The epoch boundaries must still fall after the same records.
   */
  @Test
  void epochUpdates_boundariesAreTheSameForStreamsDifferingInOneUnitsValues() throws Exception {
    var drop = new ContributionBounds.Config(20, 10, 1.0, Unit.KEY, BudgetPolicy.DROP);
    List<List<ConsumerRecord<byte[], byte[]>>> neighbours = new ArrayList<>();
    for (boolean zeroed : new boolean[] {false, true}) {
      List<ConsumerRecord<byte[], byte[]>> recs = new ArrayList<>();
      SplittableRandom rnd = new SplittableRandom(9);
      for (int o = 0; o < 60; o++) {
        boolean a = o % 3 == 0;
        int n = 1 + o % 2;
        int[] i = new int[n];
        int[] j = new int[n];
        double[] d = new double[n];
        for (int x = 0; x < n; x++) {
          i[x] = rnd.nextInt(20);
          j[x] = rnd.nextInt(10);
          d[x] = a && o == 21 ? Double.NaN : rnd.nextDouble(-0.6, 0.6);
          if (a && zeroed) {
            d[x] = 0;
          }
        }
        byte[] key = (a ? "a" : "u" + o % 5).getBytes(StandardCharsets.UTF_8);
        recs.add(record(P0, o, key, UpdateRecords.encode(i, j, d, 0, n)));
      }
      neighbours.add(recs);
    }
    List<Run> runs = new ArrayList<>();
    for (int s = 0; s < 2; s++) {
      Run run = new Run(dir.resolve("s" + s), IngestConfig.byUpdates(TOPIC, drop, 7), 1000, true);
      run.consumer.setMaxPollRecords(4);
      run.start(neighbours.get(s)).pollUntil(60);
      runs.add(run);
    }
    IngestStats s = runs.get(0).loop.stats();
    IngestStats z = runs.get(1).loop.stats();
    assertTrue(s.updatesDropped() > z.updatesDropped(), s + " / " + z); // a's drops
    assertTrue(s.deadLetteredTotal() == 1 && z.deadLetteredTotal() == 0, s + " / " + z);
    assertTrue(s.updatesApplied() < z.updatesApplied(), s + " / " + z);
    assertEquals(runs.get(0).recordsAtClose, runs.get(1).recordsAtClose);
    assertTrue(runs.get(0).recordsAtClose.size() >= 8, "" + runs.get(0).recordsAtClose);
  }

  @Test
  void epochs_closeWhenEpochSecondsHaveElapsed_evenWithoutRecords() throws Exception {
    Run run = new Run(dir, IngestConfig.bySeconds(TOPIC, KEY_CLIP, 10), 100, true);
    run.start(List.of(record(P0, 0, new byte[] {1}, updates(1, 1))));
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(), run.epochs);
    run.clock.addAndGet(9_999);
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(), run.epochs);
    run.clock.addAndGet(1);
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(1), run.epochs);
    assertEquals(Map.of(1, 1L), run.target.updatesPerEpoch);
  }

  /**
   * The first epoch by the clock opens with the first record read, not at the start: an hour
   * without records closes nothing and spends no release; the snapshot keeps "not opened".
   */
  @Test
  void epochSeconds_theFirstEpochOpensWithTheFirstRecord_notAtTheStart() throws Exception {
    Run run = new Run(dir, IngestConfig.bySeconds(TOPIC, KEY_CLIP, 10), 100, true);
    run.start(List.of());
    run.clock.addAndGet(3_600_000);
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(), run.epochs, "no epoch before the first record");
    assertEquals(0, run.loop.openEpoch().startMillis());
    run.loop.snapshot();
    assertEquals(0, new StateStore(dir).read(new ContributionBounds(KEY_CLIP), new RecordingTarget(100)).orElseThrow()
        .epochStartMillis(), "the snapshot keeps the first epoch unopened");

    run.consumer.addRecord(record(P0, 0, new byte[] {1}, updates(1, 1)));
    run.clock.addAndGet(5);
    assertTrue(run.loop.pollOnce());
    long opened = run.clock.get();
    assertEquals(opened, run.loop.openEpoch().startMillis());
    run.clock.addAndGet(9_999);
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(), run.epochs);
    run.clock.addAndGet(1);
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(1), run.epochs, "ten seconds after the first record");
  }

  @Test
  void epochs_ofAFractionalLength_closeAfterExactlyThatTime() throws Exception {
    Run run = new Run(dir, IngestConfig.byTime(TOPIC, KEY_CLIP, java.time.Duration.ofMillis(1500)),
        100, true);
    run.start(List.of(record(P0, 0, new byte[] {1}, updates(1, 1))));
    assertTrue(run.loop.pollOnce()); // the first record opens epoch 1
    run.clock.addAndGet(1499);
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(), run.epochs);
    run.clock.addAndGet(1);
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(1), run.epochs);
    run.clock.addAndGet(500);
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(1), run.epochs, "half a second is not an epoch of 1.5 s");
  }

  @Test
  void epochLength_belowAMillisecond_isRoundedUpToTheClock() {
    assertEquals(1, IngestConfig.byTime(TOPIC, KEY_CLIP, java.time.Duration.ofNanos(1)).epochMillis());
    assertEquals(501, IngestConfig.byTime(TOPIC, KEY_CLIP, java.time.Duration.ofNanos(500_000_001))
        .epochMillis());
    assertEquals(500, IngestConfig.byTime(TOPIC, KEY_CLIP, java.time.Duration.ofMillis(500))
        .epochMillis());
    assertThrows(IllegalArgumentException.class,
        () -> IngestConfig.byTime(TOPIC, KEY_CLIP, java.time.Duration.ZERO));
  }

  @Test
  void malformedRecords_goToTheDeadLetterTopicWithReasonHeaders_andIngestionContinues()
      throws Exception {
    Run run = new Run(dir, IngestConfig.byUpdates(TOPIC, KEY_CLIP, 1000), 100, true);
    byte[] k = {7};
    run.start(List.of(
        record(P0, 0, k, new byte[5]),
        record(P0, 1, k, updates(1, 1)),
        record(P1, 0, k, UpdateRecords.encode(new int[] {1, 2}, new int[] {1, 2},
            new double[] {0.5, Double.NaN}, 0, 2)),
        record(P1, 1, null, updates(3, 3)),
        record(P1, 2, k, updates(19, 9, 20, 0))));
    run.pollUntil(5);
    IngestStats s = run.loop.stats();
    assertEquals(5, s.recordsConsumed());
    assertEquals(1, s.updatesApplied());
    assertEquals(1, s.deadLettered(DeadLetterReason.BAD_LENGTH));
    assertEquals(1, s.deadLettered(DeadLetterReason.NON_FINITE_DELTA));
    assertEquals(1, s.deadLettered(DeadLetterReason.MISSING_KEY));
    assertEquals(1, s.deadLettered(DeadLetterReason.INDEX_OUT_OF_RANGE));
    assertEquals(0.125, run.target.get(1, 1));
    assertEquals(0.0, run.target.get(1, 2)); // nothing of the NaN record applied

    Map<String, ProducerRecord<byte[], byte[]>> byOffset = new HashMap<>();
    for (ProducerRecord<byte[], byte[]> r : run.producer.history()) {
      assertEquals(TOPIC + ".dead-letter", r.topic());
      byOffset.put(header(r, IngestLoop.PARTITION_HEADER) + "@" + header(r, IngestLoop.OFFSET_HEADER), r);
    }
    assertEquals(4, byOffset.size());
    ProducerRecord<byte[], byte[]> bad = byOffset.get("0@0");
    assertEquals("length 5 is not a positive multiple of 16", header(bad, IngestLoop.REASON_HEADER));
    assertEquals("BAD_LENGTH", header(bad, IngestLoop.REASON_CODE_HEADER));
    assertEquals(TOPIC, header(bad, IngestLoop.TOPIC_HEADER));
    assertArrayEquals(new byte[5], bad.value());
    assertArrayEquals(k, bad.key());
    assertEquals("update 1: delta NaN is not finite",
        header(byOffset.get("1@0"), IngestLoop.REASON_HEADER));
    assertEquals("missing record key (privacy unit)",
        header(byOffset.get("1@1"), IngestLoop.REASON_HEADER));
    assertEquals("update 1: row index 20 is outside [0, 20)",
        header(byOffset.get("1@2"), IngestLoop.REASON_HEADER));
  }

  private static String header(ProducerRecord<byte[], byte[]> r, String name) {
    return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  @Test
  void crashAndRestart_reappliesExactlyTheUpdatesAfterTheSnapshot_andEndsEqualToAnUninterruptedRun()
      throws Exception {
    List<ConsumerRecord<byte[], byte[]>> records = stream(60);
    IngestConfig config = IngestConfig.byUpdates(TOPIC, KEY_CLIP, 17);

    Run whole = new Run(dir.resolve("whole"), config, 1000, true);
    whole.consumer.setMaxPollRecords(7);
    whole.start(records).pollUntil(records.size());
    assertEquals(records.size(), whole.loop.stats().recordsConsumed());

    // A run that dies (kill -9: no final snapshot) somewhere after an epoch close.
    Path crashDir = dir.resolve("crash");
    Run crashed = new Run(crashDir, config, 1000, true);
    crashed.consumer.setMaxPollRecords(7);
    crashed.start(records);
    StateStore.Header atCrash;
    do {
      assertTrue(crashed.loop.pollOnce());
      atCrash = new StateStore(crashDir)
          .read(new ContributionBounds(KEY_CLIP), new RecordingTarget(1000)).orElse(null);
      // die once two epochs are durable and some updates were applied after the last snapshot
    } while (crashed.epochs.size() < 2
        || crashed.loop.stats().updatesApplied() == atCrash.stats().updatesApplied());
    assertTrue(crashed.loop.stats().recordsConsumed() < records.size());

    Run restarted = new Run(crashDir, config, 1000, true);
    restarted.consumer.setMaxPollRecords(5);
    restarted.start(records).pollUntil(records.size());
    assertEquals(List.of(atCrash.epochsClosed()), restarted.restored);

    assertEquals(whole.loop.stats(), restarted.loop.stats());
    assertEquals(whole.loop.stats().checksum(), restarted.loop.stats().checksum());
    assertArrayEquals(whole.target.stateBytes(), restarted.target.stateBytes());
    assertEquals(whole.loop.stats().updatesApplied() - atCrash.stats().updatesApplied(),
        restarted.target.appliedThisRun);
    assertTrue(whole.loop.stats().updatesClipped() > 0);
    assertTrue(whole.loop.stats().updatesDropped() > 0);
    assertTrue(whole.loop.stats().deadLetteredTotal() > 0);
    // Epochs closed after the restart continue the numbering.
    assertEquals(atCrash.epochsClosed() + 1, (int) restarted.epochs.get(0));
    assertEquals(whole.epochs, concat(crashed.epochs.subList(0, atCrash.epochsClosed()),
        restarted.epochs));
  }

  private static List<Integer> concat(List<Integer> a, List<Integer> b) {
    List<Integer> c = new ArrayList<>(a);
    c.addAll(b);
    return c;
  }

  @Test
  void exhausted_stopsApplyingAndConsuming_keepsOffsetsAtTheLastAppliedRecord() throws Exception {
    var bounds = new ContributionBounds.Config(20, 10, 1.0, Unit.UPDATE, BudgetPolicy.CLIP);
    IngestConfig config = IngestConfig.byUpdates(TOPIC, bounds, 3);
    Run run = new Run(dir, config, 2, true);
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int o = 0; o < 10; o++) {
      records.add(record(P0, o, null, updates(o, o % 10)));
    }
    run.start(records);
    run.pollUntil(10);
    assertEquals(IngestLoop.State.EXHAUSTED, run.loop.state());
    assertFalse(run.loop.pollOnce());
    assertEquals(6, run.target.appliedThisRun);
    assertEquals(List.of(1, 2), run.epochs);
    var h = new StateStore(dir).read(new ContributionBounds(bounds), new RecordingTarget(2))
        .orElseThrow();
    assertEquals(Map.of(0, 6L), h.nextOffsets());

    Run again = new Run(dir, config, 2, true);
    again.loop.start();
    assertEquals(IngestLoop.State.EXHAUSTED, again.loop.state());
    assertFalse(again.loop.pollOnce());
    assertEquals(0, again.target.appliedThisRun);
    assertTrue(again.consumer.assignment().isEmpty());
  }

  @Test
  void deadLetterSendFailure_failsThePollAndNeverSnapshotsPastIt() throws Exception {
    Run run = new Run(dir, IngestConfig.byUpdates(TOPIC, KEY_CLIP, 1000), 100, false);
    run.start(List.of(record(P0, 0, new byte[] {1}, new byte[3])));
    assertTrue(run.loop.pollOnce());
    assertTrue(run.producer.errorNext(new org.apache.kafka.common.errors.TimeoutException("x")));
    assertThrows(IOException.class, run.loop::pollOnce);
    assertThrows(IOException.class, run.loop::snapshot);
    var h = new StateStore(dir).read(new ContributionBounds(KEY_CLIP), new RecordingTarget(100))
        .orElseThrow();
    assertEquals(Map.of(), h.nextOffsets(), "the snapshot of epoch 0 only: " + h);
    assertEquals(0, h.stats().recordsConsumed());
  }

  @Test
  void restore_ofASnapshotItCannotUse_failsNamingTheFile_beforeAnyKafkaCall() throws Exception {
    java.nio.file.Files.write(dir.resolve(StateStore.FILE_NAME), new byte[64]);
    Run run = new Run(dir, IngestConfig.byUpdates(TOPIC, KEY_CLIP, 1000), 100, true);
    IOException e = assertThrows(IOException.class, run.loop::restore);
    assertTrue(e.getMessage().contains(dir.resolve(StateStore.FILE_NAME).toString()),
        e.getMessage());
    assertTrue(run.consumer.assignment().isEmpty());
    assertEquals(IngestLoop.State.NEW, run.loop.state());
    assertEquals(List.of(), run.restored);
  }

  @Test
  void restore_beforeRun_isNotRepeatedByRun() throws Exception {
    Run first = new Run(dir, IngestConfig.byUpdates(TOPIC, KEY_CLIP, 1), 100, true);
    first.start(List.of(record(P0, 0, new byte[] {1}, updates(1, 1)))).pollUntil(1);
    assertEquals(List.of(1), first.epochs);
    Run again = new Run(dir, IngestConfig.byUpdates(TOPIC, KEY_CLIP, 1), 100, true);
    again.loop.restore();
    again.loop.start();
    assertEquals(List.of(1), again.restored);
    assertEquals(1, again.target.epochsClosed());
    assertEquals(1, again.loop.stats().updatesApplied());
  }

  @Test
  void runThenClose_stopsAtARecordBoundaryAndSnapshotsTheOffsets() throws Exception {
    Run run = new Run(dir, IngestConfig.byUpdates(TOPIC, KEY_CLIP, 1000), 100, true);
    List<ConsumerRecord<byte[], byte[]>> records = stream(20);
    // run() assigns on its own thread: schedule the records for its first poll.
    run.consumer.schedulePollTask(() -> records.forEach(run.consumer::addRecord));
    Thread t = new Thread(run.loop, "ingest");
    t.start();
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(120).toNanos(); // a hang
    while (run.loop.stats().recordsConsumed() < records.size() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertEquals(records.size(), run.loop.stats().recordsConsumed());
    run.loop.close();
    t.join(10_000);
    assertEquals(IngestLoop.State.STOPPED, run.loop.state());
    assertTrue(run.consumer.closed());
    var h = new StateStore(dir).read(new ContributionBounds(KEY_CLIP), new RecordingTarget(100))
        .orElseThrow();
    assertEquals(Map.of(0, 20L, 1, 20L), h.nextOffsets());
    assertEquals(run.loop.stats(), h.stats());
  }

  @Test
  void lag_reportsRecordsBehindTheEndOfEachPartition() throws Exception {
    Run run = new Run(dir, IngestConfig.byUpdates(TOPIC, KEY_CLIP, 1000), 100, true);
    run.consumer.setMaxPollRecords(3);
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int o = 0; o < 10; o++) {
      records.add(record(P0, o, new byte[] {1}, updates(1, 1)));
    }
    run.start(records);
    run.loop.pollOnce();
    assertEquals(7L, run.loop.lag().get(P0));
  }
  /** A record of {@code n} updates at (1, 1). */
  private static byte[] positions(int n) {
    int[] ij = new int[2 * n];
    java.util.Arrays.fill(ij, 1);
    return updates(ij);
  }

  @Test
  void idleClose_closesAPartialEpochOnceNoRecordIsReadForTheIdleTime_andNeverAnEmptyOne()
      throws Exception {
    IngestConfig config = IngestConfig.byUpdates(TOPIC, KEY_CLIP, 100)
        .withIdleClose(java.time.Duration.ofSeconds(5));
    Run run = new Run(dir, config, 100, true);
    run.start(List.of(record(P0, 0, new byte[] {1}, positions(3)),
        record(P0, 1, new byte[] {2}, positions(2))));
    assertTrue(run.loop.pollOnce());
    assertEquals(5, run.loop.openEpoch().updatePositions());
    run.clock.addAndGet(4_999);
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(), run.epochs, "4.999 s without a record is not idle for 5 s");
    run.clock.addAndGet(1);
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(1), run.epochs);
    assertEquals(Map.of(1, 5L), run.target.updatesPerEpoch);
    assertEquals(new OpenEpoch(2, 0, run.clock.get(), run.clock.get() - 5_000,
        run.clock.get() - 5_000), run.loop.openEpoch());
    run.clock.addAndGet(60_000);
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(1), run.epochs, "an empty epoch is never closed for idleness");

    // A record restarts the idle time; the count still closes full epochs on its own.
    run.consumer.addRecord(record(P0, 2, new byte[] {1}, positions(1)));
    run.consumer.updateEndOffsets(Map.of(P0, 3L));
    assertTrue(run.loop.pollOnce());
    run.clock.addAndGet(4_000);
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(1), run.epochs);
    run.clock.addAndGet(1_000);
    assertTrue(run.loop.pollOnce());
    assertEquals(List.of(1, 2), run.epochs);
    assertEquals(1L, run.target.updatesPerEpoch.get(2));
  }

  @Test
  void idleClose_isOnlyForEpochsByCount() {
    assertThrows(IllegalArgumentException.class, () -> IngestConfig.bySeconds(TOPIC, KEY_CLIP, 10)
        .withIdleClose(java.time.Duration.ofSeconds(5)));
    assertThrows(IllegalArgumentException.class, () -> IngestConfig.byUpdates(TOPIC, KEY_CLIP, 10)
        .withIdleClose(java.time.Duration.ofSeconds(-1)));
  }

  /**
   * The idle rule keeps neighbours cut alike (docs/privacy/epoch-boundaries.md): the streams of
   * {@code epochUpdates_boundariesAreTheSame...} — one unit's values zeroed, its drops and its
   * dead letter gone — read at the same times, with pauses that trigger the rule, close after
   * the same records.
   */
  @Test
  void idleClose_boundariesAreTheSameForStreamsDifferingInOneUnitsValues() throws Exception {
    var drop = new ContributionBounds.Config(20, 10, 1.0, Unit.KEY, BudgetPolicy.DROP);
    List<List<Long>> cuts = new ArrayList<>();
    for (boolean zeroed : new boolean[] {false, true}) {
      Run run = new Run(dir.resolve("z" + zeroed), IngestConfig.byUpdates(TOPIC, drop, 1000)
          .withIdleClose(java.time.Duration.ofSeconds(2)), 1000, true);
      run.start(List.of());
      SplittableRandom rnd = new SplittableRandom(4);
      for (int o = 0; o < 40; o++) {
        boolean a = o % 3 == 0;
        double d = a && o == 9 ? Double.NaN : a && zeroed ? 0 : rnd.nextDouble(-0.9, 0.9);
        byte[] key = (a ? "a" : "u" + o % 5).getBytes(StandardCharsets.UTF_8);
        run.consumer.addRecord(record(P0, o, key,
            UpdateRecords.encode(new int[] {o % 20}, new int[] {o % 10}, new double[] {d}, 0, 1)));
        run.consumer.updateEndOffsets(Map.of(P0, o + 1L));
        assertTrue(run.loop.pollOnce());
        run.clock.addAndGet(o % 7 == 6 ? 2_500 : 300); // a pause after every seventh record
        assertTrue(run.loop.pollOnce());
      }
      assertTrue(run.epochs.size() >= 5, "" + run.recordsAtClose);
      cuts.add(run.recordsAtClose);
    }
    assertEquals(cuts.get(0), cuts.get(1));
  }

  @Test
  void requestClose_closesTheOpenEpochAtARecordBoundary_refusingAnEmptyOne() throws Exception {
    Run run = new Run(dir, IngestConfig.byUpdates(TOPIC, KEY_CLIP, 100), 100, true);
    run.start(List.of(record(P0, 0, new byte[] {1}, positions(3))));
    assertTrue(run.loop.pollOnce());
    var request = run.loop.requestClose();
    assertFalse(request.isDone(), "taken by the loop's thread after its next poll");
    assertTrue(run.loop.pollOnce());
    assertEquals(1, request.getNow(-1));
    assertEquals(List.of(1), run.epochs);
    assertEquals(Map.of(1, 3L), run.target.updatesPerEpoch);
    var h = new StateStore(dir).read(new ContributionBounds(KEY_CLIP), new RecordingTarget(100))
        .orElseThrow();
    assertEquals(1, h.epochsClosed());
    assertEquals(Map.of(0, 1L), h.nextOffsets());

    var empty = run.loop.requestClose();
    assertTrue(run.loop.pollOnce());
    var e = assertThrows(java.util.concurrent.ExecutionException.class, empty::get);
    assertTrue(e.getCause().getMessage().contains("epoch 2 holds no update"),
        e.getCause().getMessage());
    assertEquals(List.of(1), run.epochs);
  }

  @Test
  void requestClose_isRefusedWithEpochsByTime_beforeConsuming_andOnceExhausted() throws Exception {
    Run timed = new Run(dir.resolve("t"), IngestConfig.bySeconds(TOPIC, KEY_CLIP, 10), 100, true);
    timed.start(List.of(record(P0, 0, new byte[] {1}, positions(1))));
    assertTrue(timed.loop.pollOnce());
    assertTrue(refusal(timed.loop).contains("clock"));

    Run fresh = new Run(dir.resolve("f"), IngestConfig.byUpdates(TOPIC, KEY_CLIP, 10), 100, true);
    assertTrue(refusal(fresh.loop).contains("state new"), refusal(fresh.loop));

    Run spent = new Run(dir.resolve("s"), IngestConfig.byUpdates(TOPIC, KEY_CLIP, 1), 1, true);
    spent.start(List.of(record(P0, 0, new byte[] {1}, positions(1)))).pollUntil(1);
    assertEquals(IngestLoop.State.EXHAUSTED, spent.loop.state());
    assertTrue(refusal(spent.loop).contains("all T epochs"));
  }

  private static String refusal(IngestLoop loop) {
    var request = loop.requestClose();
    assertTrue(request.isDone(), "refused at once");
    var e = assertThrows(java.util.concurrent.ExecutionException.class, request::get);
    return e.getCause().getMessage();
  }

  @Test
  void restore_tellsTheListenerWhenTheLastEpochClosed_andIsStartingNotNew() throws Exception {
    Run first = new Run(dir, IngestConfig.byUpdates(TOPIC, KEY_CLIP, 1), 100, true);
    first.start(List.of(record(P0, 0, new byte[] {1}, updates(1, 1)))).pollUntil(1);
    assertEquals(java.util.Arrays.asList((java.time.Instant) null), first.restoredAt);
    long closedAt = first.clock.get();
    first.loop.snapshot();

    Run again = new Run(dir, IngestConfig.byUpdates(TOPIC, KEY_CLIP, 1), 100, true);
    again.clock.addAndGet(3_600_000); // restarted an hour later
    again.loop.restore();
    assertEquals(List.of(1), again.restored, "told at restore, before any Kafka call");
    assertEquals(List.of(java.time.Instant.ofEpochMilli(closedAt)), again.restoredAt);
    assertEquals(first.closedAt, again.restoredAt, "the close time told at the close is restored");
    assertEquals(IngestLoop.State.STARTING, again.loop.state());
    assertEquals(2, again.loop.openEpoch().epoch());
    assertTrue(again.consumer.assignment().isEmpty());
    assertEquals(closedAt, first.loop.openEpoch().lastRecordMillis(), "the record read");

    // Consuming again: the idle time counts from the start, but no record has been read.
    again.start(List.of());
    assertEquals(again.clock.get(), again.loop.openEpoch().idleSinceMillis());
    assertEquals(0, again.loop.openEpoch().lastRecordMillis(), "a restart is not a record");
  }

  /**
   * The loop counts only time spent asking: polls that end without records (the mock has no
   * response metric) add their duration, a record resets it.
   */
  @Test
  void brokerContact_becomesUnreachableAfterFifteenSecondsOfPollingWithoutAnAnswer()
      throws Exception {
    Run run = new Run(dir, IngestConfig.byUpdates(TOPIC, KEY_CLIP, 1000), 100, true);
    run.start(List.of(record(P0, 0, new byte[] {1}, positions(1))));
    assertTrue(run.loop.pollOnce());
    long answered = run.clock.get();
    assertEquals(new BrokerContact(answered, 0), run.loop.brokerContact());
    for (int s = 0; s < 15; s++) {
      assertTrue(run.loop.brokerContact().reachable(), "after " + s + " s of asking");
      run.consumer.schedulePollTask(() -> run.clock.addAndGet(1_000)); // a poll of one second
      assertTrue(run.loop.pollOnce());
    }
    assertFalse(run.loop.brokerContact().reachable());
    assertEquals(new BrokerContact(answered, 15_000), run.loop.brokerContact());

    run.clock.addAndGet(60_000); // not asking (a close, a snapshot) adds nothing
    assertEquals(15_000, run.loop.brokerContact().silentMillis());
    run.consumer.addRecord(record(P0, 1, new byte[] {1}, positions(1)));
    assertTrue(run.loop.pollOnce());
    assertTrue(run.loop.brokerContact().reachable());
    assertEquals(run.clock.get(), run.loop.brokerContact().lastAnswerMillis());
  }
}
