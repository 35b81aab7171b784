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
    assertFalse(new StateStore(dir).exists(), "no snapshot before the close finished");
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
   * A close that fails (a node file that cannot be written) fails the loop at its next poll; no
   * snapshot covers the epoch, nothing is released, and a restart re-reads the epoch and ends
   * equal to a run that never failed.
   */
  @Test
  void aFailedClose_failsTheLoop_withNoSnapshotPastThePreviousOne() throws Exception {
    List<ConsumerRecord<byte[], byte[]>> records = IngestLoopTest.stream(40);
    Run whole = new Run(dir.resolve("whole"), new RecordingTarget(1000), 17).start(records);
    whole.pollUntil(records.size());
    whole.loop.snapshot();

    Path state = dir.resolve("failing");
    PipelinedTarget target = new PipelinedTarget(1000);
    Run failing = new Run(state, target, 17).start(records);
    while (target.epochsClosed() < 2) {
      assertTrue(failing.loop.pollOnce());
    }
    failing.loop.snapshot(); // epoch 2's close has finished: the next one is epoch 3's
    target.failNext = new IOException("disk full");
    IOException thrown = null;
    for (int k = 0; k < 10_000 && thrown == null; k++) {
      try {
        assertTrue(failing.loop.pollOnce());
      } catch (IOException e) {
        thrown = e;
      }
    }
    assertEquals("disk full", thrown == null ? null : thrown.getMessage());
    assertEquals(List.of(1, 2), failing.epochs, "the failed epoch was never released");
    assertEquals(2, failing.durable().orElseThrow().epochsClosed());
    assertThrows(IOException.class, failing.loop::snapshot, "nothing is written past the failure");
    assertEquals(2, failing.durable().orElseThrow().epochsClosed());

    Run restarted = new Run(state, new PipelinedTarget(1000), 17).start(records);
    restarted.pollUntil(records.size());
    restarted.loop.snapshot();
    assertEquals(whole.loop.stats(), restarted.loop.stats());
    assertArrayEquals(whole.target.stateBytes(), restarted.target.stateBytes());
    assertEquals(whole.epochs.subList(2, whole.epochs.size()), restarted.epochs);
  }
}
