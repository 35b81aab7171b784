package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.ingest.ContributionBounds.BudgetPolicy;
import io.dplrf.ingest.ContributionBounds.Unit;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The RocksDB ratings store: bounds, atomic checkpoints, and exactly once under the ingest loop. */
class RatingsStoreTest {
  static final String TOPIC = "ratings";
  static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
  static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
  static final int USERS = 30;
  static final int ITEMS = 12;
  static final int XI = 5;
  static final ContributionBounds.Config BOUNDS =
      new ContributionBounds.Config(USERS, ITEMS, 5.0, Unit.USER_RATING, BudgetPolicy.CLIP);

  @TempDir Path dir;

  /** Closes an epoch and checkpoints, as the ingest loop does. */
  private static void commit(RatingsStore s) throws IOException {
    s.target().closeEpoch();
    s.write(new StateStore.Header(TOPIC, Map.of(0, 7L), new IngestStats(),
        s.target().epochsClosed(), 0, 0), new ContributionBounds(BOUNDS), s.target());
  }

  @Test
  void rate_latestRatingReplaces_andItemsBeyondMaxRatingsAreDropped() throws IOException {
    try (RatingsStore s = RatingsStore.open(dir, 3)) {
      RatingSink t = s.sink();
      assertTrue(t.rate(4, 9, 1.0));
      assertTrue(t.rate(4, 2, 2.0));
      assertTrue(t.rate(4, 9, 4.5)); // a change: replaces
      assertTrue(t.rate(4, 5, 3.0));
      assertFalse(t.rate(4, 7, 1.0), "a 4th distinct item is beyond max-ratings 3");
      assertTrue(t.rate(4, 2, -1.0), "re-rating a stored item is still allowed at the cap");
      assertTrue(t.rate(8, 0, 0.5));
      commit(s);
      var r = s.ratings(4);
      assertArrayEquals(new int[] {2, 5, 9}, r.items());
      assertArrayEquals(new double[] {-1.0, 3.0, 4.5}, r.values());
      assertEquals(2, s.users());
      assertEquals(4, s.ratingsStored());
      assertEquals(0, s.ratings(5).size());
    }
  }

  @Test
  void pendingRatings_areInvisibleUntilTheCheckpoint_andACrashLosesOnlyThem() throws IOException {
    try (RatingsStore s = RatingsStore.open(dir, XI)) {
      s.sink().rate(1, 1, 1.0);
      commit(s);
      s.sink().rate(1, 2, 2.0);
      s.sink().rate(2, 2, 2.0);
      assertEquals(1, s.ratings(1).size(), "readers see committed ratings only");
      assertEquals(1, s.ratingsStored());
    } // closed without a checkpoint: what a kill -9 leaves
    try (RatingsStore s = RatingsStore.open(dir, XI)) {
      var h = s.read(new ContributionBounds(BOUNDS), s.target()).orElseThrow();
      assertEquals(Map.of(0, 7L), h.nextOffsets());
      assertEquals(1, s.target().epochsClosed());
      assertArrayEquals(new int[] {1}, s.ratings(1).items());
      assertEquals(0, s.ratings(2).size());
      assertEquals(1, s.users());
      assertEquals(1, s.ratingsStored());
    }
  }

  @Test
  void reopen_withAnotherMaxRatingsOrOtherBounds_isRefused() throws IOException {
    try (RatingsStore s = RatingsStore.open(dir, XI)) {
      s.sink().rate(1, 1, 1.0);
      commit(s);
    }
    try (RatingsStore s = RatingsStore.open(dir, XI + 1)) {
      IOException e = assertThrows(IOException.class,
          () -> s.read(new ContributionBounds(BOUNDS), s.target()));
      assertTrue(e.getMessage().contains("max-ratings 5, configured 6"), e.getMessage());
    }
    try (RatingsStore s = RatingsStore.open(dir, XI)) {
      var other = new ContributionBounds.Config(USERS, ITEMS, 4.0, Unit.USER_RATING,
          BudgetPolicy.CLIP);
      IOException e = assertThrows(IOException.class,
          () -> s.read(new ContributionBounds(other), s.target()));
      assertTrue(e.getMessage().contains("contribution bounds"), e.getMessage());
    }
  }

  @Test
  void forEachUser_seesUsersAscending_fromOneCommittedView() throws IOException {
    try (RatingsStore s = RatingsStore.open(dir, XI)) {
      for (int u : new int[] {17, 3, 256, 0}) {
        s.sink().rate(u, u % ITEMS, 1.0);
      }
      commit(s);
      s.sink().rate(5, 5, 1.0); // pending: not seen
      List<Integer> seen = new ArrayList<>();
      s.forEachUser(r -> seen.add(r.user()));
      assertEquals(List.of(0, 3, 17, 256), seen);
    }
  }

  @Test
  void meta_isDurableAndSeparateFromTheIngestBatch() throws IOException {
    try (RatingsStore s = RatingsStore.open(dir, XI)) {
      s.sink().rate(1, 1, 1.0); // pending, never checkpointed
      s.putMeta("runs", new byte[] {1, 2});
    }
    try (RatingsStore s = RatingsStore.open(dir, XI)) {
      assertArrayEquals(new byte[] {1, 2}, s.meta("runs").orElseThrow());
      assertTrue(s.meta("other").isEmpty());
      assertEquals(0, s.ratings(1).size());
      assertFalse(s.exists());
    }
  }

  // ---- exactly once under the ingest loop ------------------------------------------------------

  /** A stream of rating records over two partitions, with malformed records of each kind. */
  static List<ConsumerRecord<byte[], byte[]>> stream(int perPartition) {
    SplittableRandom rnd = new SplittableRandom(7);
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    for (TopicPartition tp : List.of(P0, P1)) {
      for (long o = 0; o < perPartition; o++) {
        int n = rnd.nextInt(1, 4);
        int[] u = new int[n];
        int[] j = new int[n];
        double[] r = new double[n];
        for (int k = 0; k < n; k++) {
          u[k] = rnd.nextInt(USERS);
          j[k] = rnd.nextInt(ITEMS);
          r[k] = rnd.nextInt(1, 11) * 0.5;
        }
        if (o % 13 == 5) {
          r[n - 1] = Double.NaN;
        } else if (o % 17 == 3) {
          j[0] = ITEMS;
        } else if (o % 19 == 4) {
          r[0] = 5.5; // beyond the bound 5
        }
        out.add(new ConsumerRecord<>(TOPIC, tp.partition(), o, null,
            UpdateRecords.encode(u, j, r, 0, n)));
      }
    }
    return out;
  }

  /** What the store must hold after the stream: latest rating wins, first ξ items per user. */
  static Map<Integer, TreeMap<Integer, Double>> expected(List<ConsumerRecord<byte[], byte[]>> rs) {
    Map<Integer, TreeMap<Integer, Double>> m = new TreeMap<>();
    // In list order: the caller passes one partition's records, which the loop reads in order.
    for (ConsumerRecord<byte[], byte[]> r : rs) {
      byte[] v = r.value();
      int n = v.length / 16;
      boolean ok = true;
      for (int k = 0; k < n; k++) {
        double x = UpdateRecords.delta(v, k);
        ok &= UpdateRecords.col(v, k) < ITEMS && Double.isFinite(x) && Math.abs(x) <= 5.0;
      }
      if (!ok) {
        continue;
      }
      for (int k = 0; k < n; k++) {
        var row = m.computeIfAbsent(UpdateRecords.row(v, k), x -> new TreeMap<>());
        int item = UpdateRecords.col(v, k);
        if (row.containsKey(item) || row.size() < XI) {
          row.put(item, UpdateRecords.delta(v, k));
        }
      }
    }
    return m;
  }

  private final class Run {
    final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null,
        new ByteArraySerializer(), new ByteArraySerializer());
    final RatingsStore store;
    final IngestLoop loop;

    Run(Path stateDir, List<ConsumerRecord<byte[], byte[]>> records) throws IOException {
      consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null),
          new PartitionInfo(TOPIC, 1, null, null, null)));
      consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
      consumer.setMaxPollRecords(4); // several polls, so that a crash can fall mid-epoch
      store = RatingsStore.open(stateDir, XI);
      loop = new IngestLoop(IngestConfig.byUpdates(TOPIC, BOUNDS, 10), consumer, producer, store,
          store.target(), b -> RecordDecoder.ratings(b, -BOUNDS.clip(), BOUNDS.clip(), store.sink()), epoch -> { }, () -> 0L);
      loop.start();
      // MockConsumer hands out only records at or after the position the loop sought to.
      for (ConsumerRecord<byte[], byte[]> r : records) {
        consumer.addRecord(r);
      }
    }

    void pollUntil(long records) throws IOException {
      for (int k = 0; k < 10_000 && loop.stats().recordsConsumed() < records; k++) {
        loop.pollOnce();
      }
    }
  }

  private static Map<Integer, TreeMap<Integer, Double>> contents(RatingsStore s)
      throws IOException {
    Map<Integer, TreeMap<Integer, Double>> m = new TreeMap<>();
    s.forEachUser(r -> {
      var row = new TreeMap<Integer, Double>();
      for (int k = 0; k < r.size(); k++) {
        row.put(r.items()[k], r.values()[k]);
      }
      m.put(r.user(), row);
    });
    return m;
  }

  @Test
  void crashMidEpoch_thenRestart_appliesEveryRatingExactlyOnce() throws IOException {
    // Partition 1 only: one partition keeps the loop's order equal to the list's order.
    List<ConsumerRecord<byte[], byte[]>> records = stream(120).subList(120, 240);
    Path clean = dir.resolve("clean");
    Path crashed = dir.resolve("crashed");

    Run a = new Run(clean, records);
    a.pollUntil(records.size());
    a.loop.snapshot();
    IngestStats reference = a.loop.stats();
    var referenceContents = contents(a.store);
    a.store.close();
    assertEquals(expected(records), referenceContents);
    assertTrue(reference.updatesDropped() > 0, "the stream must exercise max-ratings");
    long deadLettered = reference.deadLetteredTotal();
    assertTrue(reference.deadLettered(DeadLetterReason.RATING_OUT_OF_RANGE) > 0);
    assertTrue(reference.deadLettered(DeadLetterReason.INDEX_OUT_OF_RANGE) > 0);
    assertTrue(reference.deadLettered(DeadLetterReason.NON_FINITE_DELTA) > 0);
    assertEquals(deadLettered, a.producer.history().size());

    // Crash twice, each time in the middle of an epoch (pending ratings never committed).
    Run b = new Run(crashed, records);
    b.pollUntil(47);
    b.store.close();
    Run c = new Run(crashed, records);
    assertTrue(c.loop.stats().recordsConsumed() < 47, "restored at the last epoch close");
    c.pollUntil(93);
    c.store.close();
    Run d = new Run(crashed, records);
    d.pollUntil(records.size());
    d.loop.snapshot();
    assertEquals(reference, d.loop.stats(), "same counters and checksum as the clean run");
    assertEquals(referenceContents, contents(d.store));
    assertEquals(referenceContents.size(), d.store.users());
    assertEquals(referenceContents.values().stream().mapToLong(Map::size).sum(),
        d.store.ratingsStored());
    d.store.close();
  }
}
