package io.dplrf.ingest.produce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class ReportProducerTest {
  private static MockProducer<byte[], byte[]> mock(boolean autoComplete) {
    return new MockProducer<>(autoComplete, null, new ByteArraySerializer(), new ByteArraySerializer());
  }

  @Test
  void send_oneRecordPerReport_valueAsGiven_noKey() throws IOException {
    MockProducer<byte[], byte[]> m = mock(true);
    ReportProducer p = new ReportProducer(m, "reports");
    long n = p.send(sink -> {
      sink.accept(new byte[] {1, 2});
      sink.accept(new byte[] {3});
    });
    assertEquals(2, n);
    List<ProducerRecord<byte[], byte[]>> h = m.history();
    assertEquals(2, h.size());
    assertArrayEquals(new byte[] {1, 2}, h.get(0).value());
    assertNull(h.get(0).key());
    assertEquals("reports", h.get(1).topic());
  }

  @Test
  void send_callbackFailure_isReportedAsIOException() {
    MockProducer<byte[], byte[]> m = mock(false);
    ReportProducer p = new ReportProducer(m, "reports");
    IOException e = assertThrows(IOException.class, () -> p.send(sink -> {
      sink.accept(new byte[] {1});
      assertTrue(m.errorNext(new org.apache.kafka.common.errors.TimeoutException("x")));
    }));
    assertTrue(e.getMessage().contains("failed"));
  }
}
