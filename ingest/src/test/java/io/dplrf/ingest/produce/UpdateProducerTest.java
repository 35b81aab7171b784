package io.dplrf.ingest.produce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.ingest.UpdateRecords;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class UpdateProducerTest {

  private static MockProducer<byte[], byte[]> mock(boolean autoComplete) {
    return new MockProducer<>(autoComplete, null, new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  @Test
  void send_packsBatchUpdatesPerRecordWithTheKey_lastRecordHoldsTheRest() throws Exception {
    MockProducer<byte[], byte[]> mock = mock(true);
    List<long[]> progress = new ArrayList<>();
    UpdateProducer p = new UpdateProducer(mock, "updates", 4, new byte[] {9}, Double.POSITIVE_INFINITY,
        (u, r) -> progress.add(new long[] {u, r}));
    long n = p.send(sink -> {
      for (int k = 0; k < 10; k++) {
        sink.accept(k, k + 1, k * 0.5);
      }
    });
    assertEquals(10, n);
    List<ProducerRecord<byte[], byte[]>> h = mock.history();
    assertEquals(3, h.size());
    assertEquals(List.of(64, 64, 32), h.stream().map(r -> r.value().length).toList());
    List<String> decoded = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : h) {
      assertEquals("updates", r.topic());
      assertArrayEquals(new byte[] {9}, r.key());
      UpdateRecords.forEach(r.value(), (i, j, d) -> decoded.add(i + "," + j + "," + d));
    }
    assertEquals(10, decoded.size());
    assertEquals("9,10,4.5", decoded.get(9));
    assertEquals(List.of(4L, 8L, 10L), progress.stream().map(x -> x[0]).toList());
    assertEquals(List.of(1L, 2L, 3L), progress.stream().map(x -> x[1]).toList());
  }

  @Test
  void sendKeyed_recordsHoldOneKeyEach_aChangeOfKeyStartsARecord() throws Exception {
    MockProducer<byte[], byte[]> mock = mock(true);
    UpdateProducer p = new UpdateProducer(mock, "updates", 3, null, Double.POSITIVE_INFINITY, null);
    String[] keys = {"a", "a", "a", "a", "b", "a", "a"};
    long n = p.sendKeyed(sink -> {
      for (int k = 0; k < keys.length; k++) {
        sink.accept(keys[k].getBytes(java.nio.charset.StandardCharsets.UTF_8), k, 0, 1);
      }
    });
    assertEquals(7, n);
    List<String> records = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : mock.history()) {
      StringBuilder b = new StringBuilder(new String(r.key(), java.nio.charset.StandardCharsets.UTF_8))
          .append(':');
      UpdateRecords.forEach(r.value(), (i, j, d) -> b.append(i));
      records.add(b.toString());
    }
    // Full at 3 updates; "b" interrupts the run of "a"; every update sent once, in order.
    assertEquals(List.of("a:012", "a:3", "b:4", "a:56"), records);
    UpdateProducer fixedKey = new UpdateProducer(mock(true), "updates", 3, new byte[] {1},
        Double.POSITIVE_INFINITY, null);
    assertThrows(IllegalStateException.class, () -> fixedKey.sendKeyed(sink -> {}));
  }

  @Test
  void send_isPacedToTheRateLimit() throws Exception {
    AtomicLong now = new AtomicLong();
    UpdateProducer p = new UpdateProducer(mock(true), "updates", 100, null, 1000.0, null,
        now::get, now::addAndGet);
    p.send(sink -> {
      for (int k = 0; k < 5000; k++) {
        sink.accept(0, 0, 1);
      }
    });
    // 50 records: the last one is due after 4900 updates at 1000/s.
    assertEquals(4_900_000_000L, now.get());
  }

  @Test
  void send_flushFailure_propagates() {
    MockProducer<byte[], byte[]> mock = mock(false);
    mock.flushException = new org.apache.kafka.common.KafkaException("broker gone");
    UpdateProducer p = new UpdateProducer(mock, "updates", 2, null, Double.POSITIVE_INFINITY, null);
    assertThrows(RuntimeException.class, () -> p.send(sink -> sink.accept(0, 0, 1)));
  }

  /**
   * A record Kafka did not deliver is named by its first update's position in the input, with
   * how many were delivered and whether any after it were, so that the input can be resent.
   */
  @Test
  void send_callbackFailure_namesTheFirstUpdateNotDelivered_forAResend() throws Exception {
    MockProducer<byte[], byte[]> mock = mock(false);
    UpdateProducer p = new UpdateProducer(mock, "updates", 2, null, Double.POSITIVE_INFINITY, null);
    IOException gap = assertThrows(IOException.class, () -> p.send(sink -> {
      for (int u = 0; u < 6; u++) {
        sink.accept(u, 0, 1); // records of updates 0-1, 2-3, 4-5
      }
      assertTrue(mock.completeNext());
      assertTrue(mock.errorNext(new org.apache.kafka.common.errors.TimeoutException("expired")));
      // the third record is delivered by the flush
    }));
    assertTrue(gap.getMessage().endsWith("; 4 of 6 updates handed to Kafka were delivered, the"
        + " first not delivered is update 2 of the input (0-based, in input order; 2 after it"
        + " were delivered: resending from it would add those twice)"), gap.getMessage());

    MockProducer<byte[], byte[]> tail = mock(false);
    UpdateProducer q = new UpdateProducer(tail, "updates", 2, null, Double.POSITIVE_INFINITY,
        null);
    IOException suffix = assertThrows(IOException.class, () -> q.send(sink -> {
      for (int u = 0; u < 6; u++) {
        sink.accept(u, 0, 1);
      }
      assertTrue(tail.completeNext());
      assertTrue(tail.errorNext(new org.apache.kafka.common.errors.TimeoutException("expired")));
      assertTrue(tail.errorNext(new org.apache.kafka.common.errors.TimeoutException("expired")));
    }));
    assertTrue(suffix.getMessage().endsWith("; 2 of 6 updates handed to Kafka were delivered, the"
        + " first not delivered is update 2 of the input (0-based, in input order; none after it"
        + " was delivered: resend the input from it)"), suffix.getMessage());
  }

  @Test
  void send_callbackFailure_isReportedAsIOException() throws Exception {
    MockProducer<byte[], byte[]> mock = mock(false);
    UpdateProducer p = new UpdateProducer(mock, "updates", 1, null, Double.POSITIVE_INFINITY, null);
    IOException e = assertThrows(IOException.class, () -> p.send(sink -> {
      sink.accept(0, 0, 1);
      assertTrue(mock.errorNext(new org.apache.kafka.common.errors.TimeoutException("x")));
    }));
    assertTrue(e.getMessage().contains("failed"));
  }
}
