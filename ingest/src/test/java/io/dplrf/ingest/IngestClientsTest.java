package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

class IngestClientsTest {
  /** The throughput defaults apply unless the caller sets them; exactly-once settings always win. */
  @Test
  void consumerConfig_defaultsYieldToTheCaller_forcedSettingsDoNot() {
    Map<String, Object> plain = IngestClients.consumerConfig(Map.of("bootstrap.servers", "h:1"));
    assertEquals("consumer", plain.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG));
    assertEquals(10_000, plain.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG));
    assertEquals(8 << 20, plain.get(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG));
    assertEquals("h:1", plain.get("bootstrap.servers"));

    Map<String, Object> tuned = IngestClients.consumerConfig(Map.of(
        ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic",
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "100",
        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "1024",
        ConsumerConfig.GROUP_ID_CONFIG, "g",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true"));
    assertEquals("classic", tuned.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG));
    assertEquals("100", tuned.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG));
    assertEquals("1024", tuned.get(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG));
    assertFalse(tuned.containsKey(ConsumerConfig.GROUP_ID_CONFIG));
    assertEquals(false, tuned.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG));
    assertEquals("dplrf-ingest", tuned.get(ConsumerConfig.CLIENT_ID_CONFIG));
  }
}
