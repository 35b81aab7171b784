package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.ingest.ContributionBounds.BudgetPolicy;
import io.dplrf.ingest.ContributionBounds.Unit;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop, the broker's record of a stream's progress ({@link ReleaseWitness}; its Kafka form
 * runs against a real broker in it-tests' StateRestoreIT) and the target's released-epoch guard:
 * every epoch is recorded after its snapshot is durable, then guarded, and only then may the
 * listener release it; a start refuses a snapshot older than the record (an older backup put back
 * whole), naming both epochs.
 */
class ReleaseWitnessLoopTest {
  static final String TOPIC = "updates";
  static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
  static final String STREAM = "stream/0123456789abcdef";

  @TempDir Path dir;

  /** A witness in memory, writing what happens into {@code events}. */
  final class Witness implements ReleaseWitness {
    final List<String> events;
    volatile int epoch = -1;
    /** While set, the broker cannot be asked. */
    volatile boolean unavailable;

    Witness(List<String> events) {
      this.events = events;
    }

    @Override
    public int witnessed(String stream) throws IOException {
      assertEquals(STREAM, stream);
      if (unavailable) {
        throw new IOException("the broker does not answer");
      }
      return epoch;
    }

    @Override
    public void record(String stream, int e, Map<Integer, Long> nextOffsets) throws IOException {
      assertEquals(STREAM, stream);
      int durable = new StateStore(dir).read(new ContributionBounds(BOUNDS),
          new RecordingTarget(100)).orElseThrow().epochsClosed();
      events.add("witness " + e + " at " + nextOffsets + ", snapshot of " + durable + " durable");
      epoch = e;
    }

    @Override
    public void close() {}
  }

  /** A target that names a stream and records its guard, around a test target. */
  private static final class Labelled implements IngestTarget {
    final RecordingTarget inner;
    final List<String> events;

    Labelled(RecordingTarget inner, List<String> events) {
      this.inner = inner;
      this.events = events;
    }

    @Override
    public String streamLabel() {
      return STREAM;
    }

    @Override
    public void beforeRelease(int epoch) {
      events.add("guard " + epoch);
    }

    @Override
    public void closeEpoch() {
      inner.closeEpoch();
    }

    @Override
    public ClosingEpoch beginCloseEpoch() {
      return inner.beginCloseEpoch();
    }

    @Override
    public boolean exhausted() {
      return inner.exhausted();
    }

    @Override
    public int epochsClosed() {
      return inner.epochsClosed();
    }

    @Override
    public void writeState(java.io.OutputStream out) throws IOException {
      inner.writeState(out);
    }

    @Override
    public void readState(java.io.InputStream in) throws IOException {
      inner.readState(in);
    }
  }

  static final ContributionBounds.Config BOUNDS =
      new ContributionBounds.Config(20, 10, 1.0, Unit.UPDATE, BudgetPolicy.CLIP);
  private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");

  private IngestLoop loop(Witness witness, List<String> events, RecordingTarget inner)
      throws IOException {
    consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null)));
    consumer.updateBeginningOffsets(Map.of(P0, 0L));
    MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null,
        new ByteArraySerializer(), new ByteArraySerializer());
    EpochListener listener = new EpochListener() {
      @Override
      public void epochClosed(int epoch) {
        events.add("release " + epoch);
      }

      @Override
      public void restored(int epochsClosed, java.time.Instant lastClosed) {
        events.add("restored " + epochsClosed);
      }
    };
    Labelled target = new Labelled(inner, events);
    return new IngestLoop(IngestConfig.byUpdates(TOPIC, BOUNDS, 3), consumer, producer,
        new StateStore(dir), target, b -> RecordDecoder.updates(b, inner::update),
        listener, System::currentTimeMillis, witness);
  }

  private static byte[] threeUpdates() {
    return UpdateRecords.encode(new int[] {1, 2, 3}, new int[] {1, 2, 3},
        new double[] {0.5, -0.25, 0.125}, 0, 3);
  }

  /**
   * In both close paths (one step, and pipelined on the closer thread), each epoch is recorded on
   * the broker with its snapshot already durable, then its guard raised, then released; a
   * restart on the latest snapshot is accepted, renews the record and raises the guard before the
   * listener hears of the restored epochs; a snapshot older than the record is refused before it.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void everyEpoch_isRecordedAndGuardedBeforeItsRelease_andAnOlderSnapshotIsRefused(
      boolean pipelined) throws Exception {
    List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
    Witness witness = new Witness(events);
    IngestLoop first = loop(witness, events, pipelined ? new PipelinedTarget(100)
        : new RecordingTarget(100));
    first.start();
    for (int o = 0; o < 4; o++) {
      consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, o, null, threeUpdates()));
    }
    for (int k = 0; k < 100 && first.stats().recordsConsumed() < 4; k++) {
      first.pollOnce();
    }
    first.snapshot(); // waits for a pipelined close
    List<String> want = new ArrayList<>(List.of("restored 0"));
    for (int e = 1; e <= 4; e++) {
      want.add("witness " + e + " at {0=" + e + "}, snapshot of " + e + " durable");
      want.add("guard " + e);
      want.add("release " + e);
    }
    assertEquals(want, events);

    events.clear();
    loop(witness, events, new RecordingTarget(100)).restore();
    assertEquals(List.of("witness 4 at {0=4}, snapshot of 4 durable", "guard 4", "restored 4"),
        events);

    // The broker records a later epoch than the snapshot: an older backup put back whole.
    events.clear();
    witness.epoch = 6;
    IngestLoop.OlderThanBrokerRecordException older = assertThrows(
        IngestLoop.OlderThanBrokerRecordException.class,
        () -> loop(witness, events, new RecordingTarget(100)).restore());
    assertTrue(older.getMessage().contains("the broker records that the snapshot of epoch 6 of"
        + " this stream was durable (consumer group dplrf-stream-0123456789abcdef"),
        older.getMessage());
    assertTrue(older.getMessage().contains("is of epoch 4: it is an older backup"),
        older.getMessage());
    assertEquals(List.of(), events, "nothing is released, and the record is left as it is");
  }

  /**
   * A broker that cannot be asked at the restore (an outage): the service starts and the listener
   * hears of the restored epochs (already released, the same files), and the record is asked
   * before anything is consumed; a record above the snapshot then fails the start of ingest.
   */
  @Test
  void aBrokerThatCannotBeAskedAtTheRestore_isAskedBeforeAnythingIsConsumed() throws Exception {
    List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
    Witness witness = new Witness(events);
    IngestLoop first = loop(witness, events, new RecordingTarget(100));
    first.start();
    consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 0, null, threeUpdates()));
    for (int k = 0; k < 100 && first.stats().recordsConsumed() < 1; k++) {
      first.pollOnce();
    }
    first.snapshot();
    events.clear();
    witness.unavailable = true;
    witness.epoch = 3; // a later run of this stream's backup went on to epoch 3
    IngestLoop again = loop(witness, events, new RecordingTarget(100));
    again.restore();
    assertEquals(List.of("guard 1", "restored 1"), events);
    witness.unavailable = false;
    IngestLoop.OlderThanBrokerRecordException older = assertThrows(
        IngestLoop.OlderThanBrokerRecordException.class, again::start);
    assertTrue(older.getMessage().contains("is of epoch 1: it is an older backup"),
        older.getMessage());
    assertEquals(List.of("guard 1", "restored 1"), events, "nothing consumed or released");
  }

  @Test
  void theGroup_isTheStreamsLabelMadeAGroupName() {
    assertEquals("dplrf-stream-0123456789abcdef", ReleaseWitness.group(STREAM));
    assertEquals("dplrf-a-b.c_d", ReleaseWitness.group("a b.c_d"));
  }
}
