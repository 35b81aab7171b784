package io.dplrf.deploy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.ingest.IngestClients;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientSettingsTest {
  @TempDir Path dir;

  private Path file(String text) throws IOException {
    Path f = dir.resolve("client.properties");
    Files.writeString(f, text);
    return f;
  }

  @Test
  void load_readsPropertiesSyntax() throws IOException {
    Path f = file("""
        # comments and blank lines are skipped

        security.protocol = SASL_SSL
        sasl.mechanism: SCRAM-SHA-512
        ssl.truststore.location=/etc/kafka/trust store.jks
        max.partition.fetch.bytes=16777216
        """);
    assertEquals(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512",
        "ssl.truststore.location", "/etc/kafka/trust store.jks",
        "max.partition.fetch.bytes", "16777216"), KafkaClientSettings.load(f, "kafka-config"));
  }

  /**
   * Every key dplrf forces on a client is refused with the reason, and without the value (which
   * could be a secret elsewhere in the file).
   */
  @Test
  void load_refusesEverySettingDplrfSetsItself() throws IOException {
    assertEquals(12, KafkaClientSettings.reserved().size());
    for (String key : KafkaClientSettings.reserved()) {
      Path f = file("client.id = x\n" + key + " = v4lue\n");
      ConfigException e = assertThrows(ConfigException.class,
          () -> KafkaClientSettings.load(f, "kafka-config"), key);
      assertTrue(e.getMessage().contains("sets " + key + ", which dplrf sets itself"), e.getMessage());
      assertFalse(e.getMessage().contains("v4lue"), e.getMessage());
    }
  }

  /**
   * Every setting the ingest consumer and the dead-letter producer force (all they set but the
   * client.id default and the consumer's overridable defaults) is refused in the file, so that a
   * setting added to them later without a refusal here fails this test.
   */
  @Test
  void reservedKeys_includeEverySettingTheServicesClientsForce() {
    Set<String> forced = new TreeSet<>(IngestClients.consumerConfig(Map.of()).keySet());
    forced.removeAll(IngestClients.CONSUMER_DEFAULTS.keySet());
    forced.addAll(IngestClients.producerConfig(Map.of()).keySet());
    forced.remove("client.id");
    assertEquals(9, forced.size(), "" + forced);
    assertTrue(KafkaClientSettings.reserved().containsAll(forced), "" + forced);
  }

  @Test
  void load_missingOrUnreadableFile_isAConfigError() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> KafkaClientSettings.load(dir.resolve("nope.properties"), "--kafka-config"));
    assertTrue(e.getMessage().startsWith("--kafka-config: cannot read Kafka client settings from ")
        && e.getMessage().endsWith("nope.properties: no such file"), e.getMessage());
  }
}
