package io.dplrf.deploy.serve.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.ingest.ContributionBounds;
import io.dplrf.ingest.EpochListener;
import io.dplrf.ingest.IngestConfig;
import io.dplrf.ingest.IngestLoop;
import io.dplrf.ingest.IngestStats;
import io.dplrf.ingest.RecordDecoder;
import io.dplrf.ingest.StateStore;
import io.dplrf.ingest.UpdateRecords;
import io.dplrf.sketch.files.WriteSteps;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.tree.TreeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery with no person in the loop from a crash at <em>every</em> step of the close and
 * snapshot protocol: each file's write (created, written, synced, renamed, durable; {@link
 * WriteSteps}) of every node file and every snapshot, and the release after each durable close.
 *
 * <p>A "process" is the service's ingest path over one state directory — {@link IngestLoop},
 * {@link StateStore}, {@link TreeTarget} with its node files, Kafka's mock consumer — on threads
 * of its own. Its crash at a step freezes it there for good, as {@code kill -9} would: the thread
 * that reached the step parks inside it, and every other thread of that process parks at its next
 * poll or wait, so no code of the dead process runs after the step (no clean-up, no final
 * snapshot; its temp files and open files stay as they are). A new process is then started on the
 * same directory, with nothing removed or repaired by the test, and runs to the end of the stream.
 *
 * <p>The check: the state directory ends <b>bit-for-bit</b> equal to that of a run that never
 * crashed (every node file and the final snapshot, which holds the exact counters, the
 * order-independent checksum of the applied updates and the offsets), so no update is lost or
 * applied twice and no node carries other data; and no temp file is left. Both runs start from
 * the same snapshot of epoch 0 (one instance label, hence the same matrices and noise labels);
 * a crash while that first snapshot is written is checked by counts, since the restart begins a
 * new run with a new label.
 *
 * <p>The IT {@code EmbeddedCrashPointsIT} kills a child JVM with SIGKILL at these steps against a
 * real broker; this test covers every step of every close, fast.
 */
class CrashRecoveryTest {
  private static final String TOPIC = "updates";
  private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
  private static final int EPOCHS = 4;
  private static final int PER_EPOCH = 12;
  private static final SecretKey KEY = SecretKey.forTesting(3);
  private static final TreeConfig TREE = new TreeConfig(Mechanism.PRIV2_SPARSE,
      SketchSizes.of(20, 10, 2, null, null, 0.25), new PrivacyParams(1, 1e-6), 1.0, EPOCHS, true);
  private static final ContributionBounds.Config BOUNDS = new ContributionBounds.Config(20, 10,
      1.0, ContributionBounds.Unit.UPDATE, ContributionBounds.BudgetPolicy.CLIP);
  /** One update per record, epochs of PER_EPOCH updates: every epoch boundary is a record's. */
  private static final List<byte[]> RECORDS = records();

  @TempDir Path dir;
  /** The crash of the process running in each state directory (processes run side by side). */
  private final Map<Path, Crash> crashes = new ConcurrentHashMap<>();
  private WriteSteps.Installed seam;

  /** One observer of every file write, handing each step to its directory's process. */
  @BeforeEach
  void observe() {
    seam = WriteSteps.install((step, file) -> {
      Path d = file.getParent();
      Crash c = crashes.get(d.getFileName().toString().equals("nodes") ? d.getParent() : d);
      if (c != null) {
        c.step(step + " " + file.getFileName());
      }
    });
  }

  @AfterEach
  void noObserver() {
    seam.close();
  }

  private static List<byte[]> records() {
    SplittableRandom rnd = new SplittableRandom(11);
    List<byte[]> out = new ArrayList<>();
    for (int u = 0; u < EPOCHS * PER_EPOCH; u++) {
      double d = u % 7 == 0 ? 2.5 : rnd.nextDouble(-1, 1); // some clipped to C = 1
      out.add(UpdateRecords.encode(new int[] {rnd.nextInt(20)}, new int[] {rnd.nextInt(10)},
          new double[] {d}, 0, 1));
    }
    return out;
  }

  /** A crash: the step at which it happens, and whether it has. */
  static final class Crash {
    final int at;
    final AtomicInteger steps = new AtomicInteger();
    final CountDownLatch happened = new CountDownLatch(1);
    final List<String> seen = Collections.synchronizedList(new ArrayList<>());
    volatile String where;

    /** {@code at} < 0: never (counts the steps only). */
    Crash(int at) {
      this.at = at;
    }

    /** A step of the protocol is reached on some thread of the process. */
    void step(String what) {
      if (happened.getCount() == 0) {
        freeze(); // a thread of a dead process: it never goes on
      }
      int n = steps.getAndIncrement();
      seen.add(what);
      if (n == at) {
        where = n + ": " + what;
        happened.countDown();
        freeze();
      }
    }

    /** Every thread of the crashed process that reaches a poll or a step stays there. */
    void checkpoint() {
      if (happened.getCount() == 0) {
        freeze();
      }
    }

    private static void freeze() {
      while (true) {
        LockSupport.park();
      }
    }
  }

  /** One process: its consumer, loop and target over {@code state}. */
  final class Process {
    final Crash crash;
    final IngestLoop loop;
    final TreeTarget target;
    final List<Integer> released = Collections.synchronizedList(new ArrayList<>());
    final Thread thread;

    Process(Path state, Crash crash) throws IOException {
      this(state, crash, true);
    }

    /** @param records false: the topic is empty */
    Process(Path state, Crash crash, boolean records) throws IOException {
      this.crash = crash;
      crashes.put(state, crash);
      MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest") {
        @Override
        public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
          crash.checkpoint();
          return super.poll(timeout);
        }
      };
      consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null)));
      consumer.updateBeginningOffsets(Map.of(P0, 0L));
      consumer.updateEndOffsets(Map.of(P0, records ? (long) RECORDS.size() : 0L));
      if (records) {
        consumer.schedulePollTask(() -> {
          for (int r = 0; r < RECORDS.size(); r++) {
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, r, null, RECORDS.get(r)));
          }
        });
      }
      consumer.setMaxPollRecords(5);
      StateStore store = new StateStore(state);
      target = TreeTarget.tree(TREE, KEY, state.resolve("nodes"), store.exists());
      EpochListener listener = new EpochListener() {
        @Override
        public void epochClosed(int epoch) {
          crash.step("release of epoch " + epoch); // the snapshot is durable, the release not made
          target.releasable(epoch);
          released.add(epoch);
        }

        @Override
        public void restored(int epochsClosed, java.time.Instant lastClosed) {
          target.releasable(epochsClosed);
        }
      };
      loop = new IngestLoop(IngestConfig.byUpdates(TOPIC, BOUNDS, PER_EPOCH), consumer,
          new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer()),
          store, target, b -> RecordDecoder.updates(b, target::update), listener, () -> 1_000L);
      thread = new Thread(loop, "process");
      thread.setDaemon(true);
    }

    /** Runs until exhausted at epoch T (and its final snapshot is written), or the crash. */
    void runToTheEndOrCrash() throws InterruptedException {
      thread.start();
      while (thread.isAlive() && crash.happened.getCount() > 0) {
        thread.join(10);
      }
    }
  }

  /** Runs a process to the end with no crash; returns it. */
  private Process runToTheEnd(Path state) throws Exception {
    Process p = new Process(state, new Crash(-1));
    p.runToTheEndOrCrash();
    assertEquals(IngestLoop.State.EXHAUSTED, p.loop.state(), "" + p.loop.failure());
    return p;
  }

  /** A new run that wrote its snapshot of epoch 0 and stopped: the common start of the runs. */
  private Path epochZero() throws Exception {
    Path state = dir.resolve("epoch-0");
    Process p = new Process(state, new Crash(-1), false);
    p.thread.start();
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos(); // bounds a hang
    while (!Files.exists(state.resolve(StateStore.FILE_NAME)) && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertTrue(Files.exists(state.resolve(StateStore.FILE_NAME)),
        "a new run writes its snapshot of epoch 0 before it consumes anything");
    p.loop.close();
    p.thread.join(10_000);
    assertEquals(0, p.target.epochsClosed());
    return state;
  }

  private static Path copy(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path f : s.toList()) {
        Files.copy(f, to.resolve(from.relativize(f).toString()));
      }
    }
    return to;
  }

  /** Every file of a state directory, by relative path. */
  private static Map<String, byte[]> files(Path state) throws IOException {
    Map<String, byte[]> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(state)) {
      for (Path f : s.filter(Files::isRegularFile).toList()) {
        out.put(state.relativize(f).toString(), Files.readAllBytes(f));
      }
    }
    return out;
  }

  private static void assertSameFiles(Map<String, byte[]> expected, Map<String, byte[]> actual,
      String what) {
    assertEquals(expected.keySet(), actual.keySet(), what + ": the same files, no temp file");
    for (var e : expected.entrySet()) {
      assertArrayEquals(e.getValue(), actual.get(e.getKey()), what + ": " + e.getKey());
    }
  }

  @Test
  void crashAtEveryStepOfEveryClose_restartsUnattended_andEndsBitForBitAsARunThatNeverCrashed()
      throws Exception {
    Path zero = epochZero();
    Path referenceDir = copy(zero, dir.resolve("reference"));
    Process reference = runToTheEnd(referenceDir);
    Crash counting = reference.crash;
    Map<String, byte[]> expected = files(referenceDir);
    IngestStats stats = reference.loop.stats();
    assertEquals(EPOCHS * PER_EPOCH, stats.updatesApplied());
    assertEquals(List.of(1, 2, 3, 4), reference.released);
    // Per close: 5 steps per node file (1, 2, 1, 3 nodes), 5 for the snapshot, 1 release; then
    // the final snapshot at exhaustion.
    int steps = counting.steps.get();
    assertEquals(5 * (1 + 2 + 1 + 3) + 4 * (5 + 1) + 5, steps, String.join("\n", counting.seen));

    // The crash scenarios run side by side (each in its own directory): fsyncs dominate.
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<String>> scenarios = new ArrayList<>();
    for (int at = 0; at < steps; at++) {
      int crashAt = at;
      scenarios.add(pool.submit(() -> {
        Path state = copy(zero, dir.resolve("crash-" + crashAt));
        Crash crash = new Crash(crashAt);
        new Process(state, crash).runToTheEndOrCrash();
        assertTrue(crash.happened.await(10, TimeUnit.SECONDS), "crash point " + crashAt);
        assertEquals(counting.seen.get(crashAt),
            crash.where.substring(crash.where.indexOf(": ") + 2), "the same step sequence");

        Process restarted = runToTheEnd(state);
        assertSameFiles(expected, files(state), "crash at " + crash.where);
        assertEquals(stats, restarted.loop.stats(), "crash at " + crash.where);
        return crash.where;
      }));
    }
    List<String> where = new ArrayList<>();
    try {
      for (Future<String> f : scenarios) {
        try {
          where.add(f.get(120, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
          if (e.getCause() instanceof AssertionError a) {
            throw a;
          }
          throw e;
        }
      }
    } finally {
      pool.shutdownNow();
    }
    System.out.println("crash points (" + where.size() + "):\n  " + String.join("\n  ", where));
  }

  /**
   * A crash while a new run writes its first snapshot (of epoch 0): nothing was consumed, no node
   * file exists, so the restart starts the run anew (a new instance label) and ends with every
   * update applied once.
   */
  @Test
  void crashAtEveryStepOfTheFirstSnapshot_restartsAsANewRun_withEveryUpdateAppliedOnce()
      throws Exception {
    Process whole = runToTheEnd(dir.resolve("whole"));
    for (WriteSteps.Step step : WriteSteps.Step.values()) {
      Path state = dir.resolve("first-" + step);
      Crash crash = new Crash(step.ordinal()); // the first snapshot's steps come first
      new Process(state, crash).runToTheEndOrCrash();
      assertTrue(crash.happened.await(10, TimeUnit.SECONDS));
      assertEquals(step + " " + StateStore.FILE_NAME,
          crash.where.substring(crash.where.indexOf(": ") + 2));
      assertEquals(List.of(), files(state.resolve("nodes")).keySet().stream().toList(),
          "no node file before the first snapshot");

      Process restarted = runToTheEnd(state);
      IngestStats a = whole.loop.stats();
      IngestStats b = restarted.loop.stats();
      assertEquals(a.updatesApplied(), b.updatesApplied(), step.toString());
      assertEquals(a.updatesClipped(), b.updatesClipped(), step.toString());
      assertEquals(a.checksum(), b.checksum(), step + ": every update applied exactly once");
      assertEquals(a.recordsConsumed(), b.recordsConsumed(), step.toString());
      assertEquals(List.of(1, 2, 3, 4), restarted.released, step.toString());
      assertEquals(files(dir.resolve("whole")).keySet(), files(state).keySet(),
          step + ": the same files, no temp file");
    }
  }
}
