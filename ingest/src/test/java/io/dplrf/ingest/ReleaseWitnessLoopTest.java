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
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop and the broker's record of a stream's progress ({@link ReleaseWitness}; its Kafka form
 * runs against a real broker in it-tests' StateRestoreIT): every epoch is recorded after its
 * snapshot is written and before the listener may release it, and a start refuses a snapshot
 * older than the record (an older backup put back whole), naming both epochs.
 */
class ReleaseWitnessLoopTest {
  static final String TOPIC = "updates";
  static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
  static final String STREAM = "stream/0123456789abcdef";

  @TempDir Path dir;

  /** A witness in memory, writing what happens into {@code events}. */
  static final class Witness implements ReleaseWitness {
    final List<String> events;
    int epoch = -1;

    Witness(List<String> events) {
      this.events = events;
    }

    @Override
    public int witnessed(String stream) {
      assertEquals(STREAM, stream);
      return epoch;
    }

    @Override
    public void record(String stream, int e, Map<Integer, Long> nextOffsets) {
      assertEquals(STREAM, stream);
      events.add("witness " + e + " at " + nextOffsets);
      epoch = e;
    }

    @Override
    public void close() {}
  }

  private static final class Target extends RecordingTarget {
    Target() {
      super(100);
    }

    @Override
    public String streamLabel() {
      return STREAM;
    }
  }

  private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");

  private IngestLoop loop(Witness witness, List<String> events) throws IOException {
    consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null)));
    consumer.updateBeginningOffsets(Map.of(P0, 0L));
    MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null,
        new ByteArraySerializer(), new ByteArraySerializer());
    var bounds = new ContributionBounds.Config(20, 10, 1.0, Unit.UPDATE, BudgetPolicy.CLIP);
    EpochListener listener = new EpochListener() {
      @Override
      public void epochClosed(int epoch) {
        events.add("release " + epoch);
      }
    };
    return new IngestLoop(IngestConfig.byUpdates(TOPIC, bounds, 3), consumer, producer,
        new StateStore(dir), new Target(), b -> RecordDecoder.updates(b, (i, j, d) -> { }),
        listener, System::currentTimeMillis, witness);
  }

  private static byte[] threeUpdates() {
    return UpdateRecords.encode(new int[] {1, 2, 3}, new int[] {1, 2, 3},
        new double[] {0.5, -0.25, 0.125}, 0, 3);
  }

  @Test
  void everyEpoch_isRecordedBeforeItsRelease_andAnOlderSnapshotIsRefused() throws Exception {
    List<String> events = new ArrayList<>();
    Witness witness = new Witness(events);
    IngestLoop first = loop(witness, events);
    first.start();
    for (int o = 0; o < 4; o++) {
      consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, o, null, threeUpdates()));
    }
    for (int k = 0; k < 100 && first.stats().recordsConsumed() < 4; k++) {
      first.pollOnce();
    }
    assertEquals(List.of("witness 1 at {0=1}", "release 1", "witness 2 at {0=2}", "release 2",
        "witness 3 at {0=3}", "release 3", "witness 4 at {0=4}", "release 4"), events);

    // A restart on the latest snapshot: accepted, and the record renewed.
    events.clear();
    IngestLoop again = loop(witness, events);
    again.checkWitness();
    assertEquals(List.of("witness 4 at {0=4}"), events);

    // The broker records a later epoch than the snapshot: an older backup put back whole.
    witness.epoch = 6;
    IOException older = assertThrows(IOException.class, () -> loop(witness, events)
        .checkWitness());
    assertTrue(older.getMessage().contains("the broker records that the snapshot of epoch 6 of"
        + " this stream was durable (consumer group dplrf-stream-0123456789abcdef"),
        older.getMessage());
    assertTrue(older.getMessage().contains("is of epoch 4: it is an older backup"),
        older.getMessage());
  }

  @Test
  void theGroup_isTheStreamsLabelMadeAGroupName() {
    assertEquals("dplrf-stream-0123456789abcdef", ReleaseWitness.group(STREAM));
    assertEquals("dplrf-a-b.c_d", ReleaseWitness.group("a b.c_d"));
  }
}
