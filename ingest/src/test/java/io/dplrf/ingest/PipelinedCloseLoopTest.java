package io.dplrf.ingest;

import static io.dplrf.ingest.IngestLoopTest.KEY_CLIP;
import static io.dplrf.ingest.IngestLoopTest.P0;
import static io.dplrf.ingest.IngestLoopTest.P1;
import static io.dplrf.ingest.IngestLoopTest.TOPIC;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop's pipelined epoch close ({@link IngestTarget#beginCloseEpoch}, {@link EpochCloser}):
 * the same end state as closing on the loop's thread, ingest going on while a close finishes, the
 * listener only after the snapshot holding its epoch is durable, and a failed close failing the
 * loop with no snapshot past the previous one. Kafka's mock clients (unit level; the service's
 * ITs run the same path against a real broker).
 */
class PipelinedCloseLoopTest {
  /** How long a wait for the closer thread may take: a bound on a hang (fsync on a busy disk). */
  private static final java.time.Duration HANG = java.time.Duration.ofSeconds(120);

  @TempDir Path dir;

  /** One loop over the mock clients; records, per listener call, the epochs durable then. */
  static final class Run {
    final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    final RecordingTarget target;
    final List<Integer> epochs = Collections.synchronizedList(new ArrayList<>());
    final List<Integer> durableAtListener = Collections.synchronizedList(new ArrayList<>());
    final List<StateStore.Header> headerAtListener = Collections.synchronizedList(new ArrayList<>());
    final IngestLoop loop;
    final Path stateDir;

    Run(Path stateDir, RecordingTarget target, int epochUpdates) {
      this.stateDir = stateDir;
      this.target = target;
      consumer.updatePartitions(TOPIC, List.of(info(0), info(1)));
      consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
      consumer.setMaxPollRecords(1);
      EpochListener listener = epoch -> {
        epochs.add(epoch);
        StateStore.Header h = durable().orElse(null);
        durableAtListener.add(h == null ? 0 : h.epochsClosed());
        headerAtListener.add(h);
      };
      try {
        loop = new IngestLoop(IngestConfig.byUpdates(TOPIC, KEY_CLIP, epochUpdates), consumer,
            new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer()),
            new StateStore(stateDir), target, b -> RecordDecoder.updates(b, target::update),
            listener, () -> 1_000_000L);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    java.util.Optional<StateStore.Header> durable() {
      try {
        return new StateStore(stateDir).read(new ContributionBounds(KEY_CLIP),
            new RecordingTarget(1000));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

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

  @Test
  void pipelinedLoop_endsEqualToTheSynchronousOne_andEachEpochIsDurableBeforeItsListener()
      throws Exception {
    List<ConsumerRecord<byte[], byte[]>> records = IngestLoopTest.stream(60);
    Run sync = new Run(dir.resolve("sync"), new RecordingTarget(1000), 17).start(records);
    PipelinedTarget target = new PipelinedTarget(1000);
    Run piped = new Run(dir.resolve("piped"), target, 17).start(records);
    sync.pollUntil(records.size());
    piped.pollUntil(records.size());
    sync.loop.snapshot();
    piped.loop.snapshot(); // waits for the last close

    assertEquals(records.size(), piped.loop.stats().recordsConsumed());
    assertTrue(sync.epochs.size() >= 5, "epochs closed: " + sync.epochs);
    assertEquals(sync.epochs, piped.epochs);
    assertEquals(sync.epochs, target.finished);
    assertEquals(sync.epochs, piped.durableAtListener, "the listener saw its epoch durable");
    assertEquals(sync.loop.stats(), piped.loop.stats());
    assertArrayEquals(sync.target.stateBytes(), piped.target.stateBytes());
    StateStore.Header a = sync.durable().orElseThrow();
    StateStore.Header b = piped.durable().orElseThrow();
    assertEquals(a.nextOffsets(), b.nextOffsets());
    assertEquals(a.stats(), b.stats());
    assertEquals(a.epochsClosed(), b.epochsClosed());
  }

  @Test
  void whileAnEpochFinishes_ingestGoesOn_andItsSnapshotHoldsTheBoundaryOffsets()
      throws Exception {
    List<ConsumerRecord<byte[], byte[]>> records = IngestLoopTest.stream(30);
    PipelinedTarget target = new PipelinedTarget(1000);
    CountDownLatch gate = new CountDownLatch(1);
    target.gate = gate;
    Run run = new Run(dir, target, 20).start(records);
    while (target.epochsClosed() == 0) {
      assertTrue(run.loop.pollOnce());
    }
    IngestStats atBoundary = run.loop.stats();
    for (int k = 0; k < 3; k++) {
      assertTrue(run.loop.pollOnce());
    }
    assertEquals(atBoundary.recordsConsumed() + 3, run.loop.stats().recordsConsumed(),
        "records are consumed while the close is held");
    assertTrue(run.epochs.isEmpty(), "no listener before the close is durable");
    assertEquals(0, run.durable().orElseThrow().epochsClosed(),
        "the snapshot of epoch 0 only, until the close finished");
    assertEquals(2, run.loop.openEpoch().epoch(), "epoch 2 is filled while epoch 1 finishes");

    gate.countDown();
    run.loop.snapshot(); // waits for the close, then writes the current state
    assertEquals(List.of(1), run.epochs);
    assertEquals(List.of(1), run.durableAtListener);
    StateStore.Header boundary = run.headerAtListener.get(0);
    assertEquals(atBoundary, boundary.stats(), "counters as of the boundary, not of the release");
    assertEquals(0, boundary.updatesInEpoch());
    long offsets = boundary.nextOffsets().values().stream().mapToLong(Long::longValue).sum();
    assertEquals(atBoundary.recordsConsumed(), offsets, "offsets at the boundary");
    StateStore.Header latest = run.durable().orElseThrow();
    assertEquals(run.loop.stats(), latest.stats());
    assertTrue(atBoundary.recordsConsumed() < latest.stats().recordsConsumed());
  }

  /**
   * A close whose node write the state directory refuses (no space left) pauses ingest: the loop
   * says which write waits and why, nothing of the epoch is snapshotted or released, and once the
   * write succeeds the loop goes on by itself and ends equal to a run that never failed.
   */
  @Test
  void aRefusedCloseWrite_pausesIngest_untilItSucceeds_thenEndsEqualToARunThatNeverFailed()
      throws Exception {
    List<ConsumerRecord<byte[], byte[]>> records = IngestLoopTest.stream(40);
    Run whole = new Run(dir.resolve("whole"), new RecordingTarget(1000), 17).start(records);
    whole.pollUntil(records.size());
    whole.loop.snapshot();

    Path state = dir.resolve("failing");
    PipelinedTarget target = new PipelinedTarget(1000);
    Run failing = new Run(state, target, 17);
    failing.loop.stateWriteWaits(java.time.Duration.ofMillis(5), java.time.Duration.ofMillis(20));
    failing.start(records);
    while (target.epochsClosed() < 2) {
      assertTrue(failing.loop.pollOnce());
    }
    failing.loop.snapshot(); // epoch 2's close has finished: the next one is epoch 3's
    target.failing = new IOException("No space left on device");
    while (target.epochsClosed() < 3) {
      assertTrue(failing.loop.pollOnce()); // epoch 3 ends; its close fails on the closer thread
    }
    long deadline = System.nanoTime() + HANG.toNanos();
    while (target.attempts.get() < 3 && System.nanoTime() < deadline) {
      Thread.sleep(1); // the closer retries on its own thread
    }
    assertTrue(target.attempts.get() >= 3, "attempts " + target.attempts);
    StateWrites.Blocked blocked = failing.loop.stateWrites().blocked().orElseThrow();
    assertEquals("closing epoch 3", blocked.what());
    assertEquals("No space left on device", blocked.reason());
    assertTrue(blocked.attempts() >= 3, "" + blocked);
    assertTrue(failing.loop.stateWrites().failures() >= 3);
    assertEquals(IngestLoop.State.RUNNING, failing.loop.state(), "not failed: paused");
    assertEquals(List.of(1, 2), failing.epochs, "the paused epoch is not released");
    assertEquals(2, failing.durable().orElseThrow().epochsClosed());
    assertEquals(List.of(), tempFiles(state), "no temp file is left behind");

    target.failing = null; // space returns
    failing.pollUntil(records.size());
    failing.loop.snapshot();
    assertTrue(failing.loop.stateWrites().blocked().isEmpty());
    assertEquals(whole.loop.stats(), failing.loop.stats());
    assertArrayEquals(whole.target.stateBytes(), failing.target.stateBytes());
    assertEquals(whole.epochs, failing.epochs);
    StateStore.Header a = whole.durable().orElseThrow();
    StateStore.Header b = failing.durable().orElseThrow();
    assertEquals(a.nextOffsets(), b.nextOffsets());
    assertEquals(a.stats(), b.stats());
  }

  /** A stop while a close waits for the state directory abandons it: no failure, no snapshot. */
  @Test
  void aStopWhileACloseWaits_abandonsIt_andTheStateStaysAtTheLastSnapshot() throws Exception {
    List<ConsumerRecord<byte[], byte[]>> records = IngestLoopTest.stream(40);
    PipelinedTarget target = new PipelinedTarget(1000);
    Run run = new Run(dir, target, 17);
    run.loop.stateWriteWaits(java.time.Duration.ofSeconds(30), java.time.Duration.ofSeconds(30));
    target.failing = new IOException("No space left on device");
    run.consumer.schedulePollTask(() -> records.forEach(run.consumer::addRecord));
    Thread runner = new Thread(run.loop);
    runner.start();
    long deadline = System.nanoTime() + HANG.toNanos();
    while (run.loop.stateWrites().blocked().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertTrue(run.loop.stateWrites().blocked().isPresent());
    // Consuming goes on to the next epoch boundary, where the loop waits for the close.
    while (java.util.Arrays.stream(runner.getStackTrace()).noneMatch(f -> f.getMethodName()
        .equals("await") && f.getClassName().endsWith("EpochCloser"))
        && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    long t0 = System.nanoTime();
    java.io.PrintStream err = System.err; // slf4j-simple looks it up at every line
    java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      run.loop.close(); // wakes the 30 s wait at once
      runner.join(10_000);
    } finally {
      System.setErr(err);
    }
    String logged = log.toString(java.nio.charset.StandardCharsets.UTF_8);
    err.print(logged);
    assertEquals(1, logged.lines().filter(l -> l.contains("ingest stopped without a final"
        + " snapshot")).count(), "said once: " + logged);
    assertFalse(runner.isAlive());
    assertTrue(System.nanoTime() - t0 < 10_000_000_000L);
    assertEquals(IngestLoop.State.STOPPED, run.loop.state());
    assertEquals(null, run.loop.failure());
    assertEquals(0, run.durable().orElseThrow().epochsClosed());
    assertEquals(List.of(), run.epochs);
    assertEquals(List.of(), tempFiles(dir));
  }

  static List<String> tempFiles(Path dir) throws IOException {
    try (var s = java.nio.file.Files.walk(dir)) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp")).toList();
    }
  }
}
