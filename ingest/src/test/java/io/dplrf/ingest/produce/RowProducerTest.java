package io.dplrf.ingest.produce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.dplrf.ingest.RowRecords;
import java.util.List;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class RowProducerTest {
  @Test
  void denseRows_becomeOneKeylessRowRecordEach_withSequentialIdsAndTheirNonZeros() throws Exception {
    MockProducer<byte[], byte[]> mock =
        new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    try (RowProducer p = new RowProducer(mock, "rows")) {
      p.send(new double[] {0, 1.5, 0});
      p.send(new double[] {0, 0, 0});
      p.send(new double[] {-2, 0, 3});
      p.flush();
      assertEquals(3, p.rowsSent());
    }
    List<ProducerRecord<byte[], byte[]>> sent = mock.history();
    assertEquals(3, sent.size());
    for (int r = 0; r < 3; r++) {
      assertEquals("rows", sent.get(r).topic());
      assertNull(sent.get(r).key());
      assertEquals(r, RowRecords.rowId(sent.get(r).value()));
    }
    byte[] v = sent.get(2).value();
    assertEquals(2, RowRecords.count(v));
    assertEquals(0, RowRecords.index(v, 0));
    assertEquals(-2.0, RowRecords.value(v, 0));
    assertEquals(2, RowRecords.index(v, 1));
    assertEquals(3.0, RowRecords.value(v, 1));
    assertEquals(0, RowRecords.count(sent.get(1).value()));
  }
}
