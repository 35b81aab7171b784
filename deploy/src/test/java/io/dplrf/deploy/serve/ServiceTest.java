package io.dplrf.deploy.serve;

import io.dplrf.sketch.params.Mechanism;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.ingest.IngestConfig;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The wiring from settings to the ingest loop (the running service is tested in it-tests). */
class ServiceTest {
  private static ServiceConfig config(String name, String value) {
    return ServiceConfig.load(null, Map.of(), Map.of("rows", "10", "cols", "8", "rank", "2",
        "epsilon", "1", "delta", "1e-6", "epochs", "4", name, value));
  }

  /** Counted epochs plus the given settings (name, value, name, value, ...). */
  private static ServiceConfig counted(String... settings) {
    Map<String, String> m = new java.util.HashMap<>(Map.of("rows", "10", "cols", "8", "rank", "2",
        "epsilon", "1", "delta", "1e-6", "epochs", "4", "epoch-updates", "10"));
    for (int x = 0; x < settings.length; x += 2) {
      m.put(settings[x], settings[x + 1]);
    }
    return ServiceConfig.load(null, Map.of(), m);
  }

  @Test
  void neighbouring_saysWhatTheEpochCutMakesPublic() {
    String byCount = ServiceDescription.neighbouring(config("epoch-updates", "40"));
    assertTrue(byCount.startsWith("streams differing in one update (i, j, delta) with |delta| <= 1.0;")
        && byCount.contains("zero updates in their place") && byCount.contains("public"), byCount);
    String byTime = ServiceDescription.neighbouring(config("epoch-seconds", "60"));
    assertTrue(byTime.contains("lacks them") && byTime.contains("arrival times are public"), byTime);
  }

  @Test
  void neighbouring_ofTheRobustMechanisms_isEntrywiseL1() {
    ServiceConfig c = ServiceConfig.load(null, Map.of(), Map.of("rows", "10", "cols", "8",
        "rank", "2", "epsilon", "1", "delta", "1e-6", "epochs", "4", "epoch-updates", "40",
        "mechanism", "robust-pca", "p", "1.25", "privacy-unit", "key"));
    String text = ServiceDescription.neighbouring(c);
    assertTrue(text.startsWith("entrywise l1 (robust, p = 1.25, pure epsilon-DP): streams "
        + "differing in all updates carrying one record key, sum |delta| <= 1.0"), text);
    assertEquals("robust-pca", ServiceDescription.mechanismName(c));
  }

  @Test
  void modeRows_decodesRowRecordsClippedToC_andNamesTheRowRelation() {
    ServiceConfig c = ServiceConfig.load(null, Map.of(), Map.of("mode", "rows", "cols", "8",
        "rank", "2", "epsilon", "1", "delta", "1e-6", "epochs", "4", "epoch-updates", "40",
        "clip", "2"));
    IngestConfig ingest = ServiceDescription.ingestConfig(c);
    assertEquals(io.dplrf.ingest.ContributionBounds.Unit.ROW_RECORD, ingest.bounds().unit());
    assertEquals(2.0, ingest.bounds().clip());
    assertEquals(8, ingest.bounds().cols());
    assertEquals("dplrf-rows", ingest.topic());
    assertEquals("ata-sketch", ServiceDescription.mechanismName(c));
    String n = ServiceDescription.neighbouring(c);
    assertTrue(n.contains("one row record") && n.contains("<= 2.0") && n.contains("<= 4.0")
        && n.contains("all-zero row in its place"), n);
  }

  @Test
  void ingestConfig_fractionalEpochSeconds_reachTheLoopExactly() {
    assertEquals(Duration.ofMillis(1500),
        ServiceDescription.ingestConfig(config("epoch-seconds", "1.5")).epochLength());
    assertEquals(Duration.ofMillis(500),
        ServiceDescription.ingestConfig(config("epoch-seconds", "0.5")).epochLength());
    IngestConfig byCount = ServiceDescription.ingestConfig(config("epoch-updates", "40"));
    assertEquals(40, byCount.epochUpdates());
    assertEquals(Duration.ZERO, byCount.epochLength());
  }

  @Test
  void priv1_refusesKeyAndRowUnits_beforeTouchingState(@TempDir Path dir) {
    for (String unit : new String[] {"key", "row"}) {
      Path state = dir.resolve("priv1-" + unit);
      ServiceConfig c = ServiceConfig.load(null, Map.of(), Map.of("rows", "10", "cols", "8",
          "rank", "2", "epsilon", "1", "delta", "1e-6", "epochs", "4", "epoch-updates", "10",
          "mechanism", "priv1", "privacy-unit", unit, "state-dir", state.toString()));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> Service.start(c, new PrintStream(OutputStream.nullOutputStream())));
      assertTrue(e.getMessage().contains("mechanism priv1 protects one update only"),
          e.getMessage());
      assertFalse(Files.exists(state), "nothing created for a refused configuration");
    }
  }

  /**
   * The relation each configuration's tree is calibrated for and the service names
   * (docs/privacy/l1-units.md): one update is one entry; a key's or a row's updates are bounded
   * in ℓ1 and spread over entries and epochs, for priv2-sparse (the default) and priv2 alike;
   * rows mode's AᵀA changes by a Frobenius-bounded x xᵀ.
   */
  @Test
  void relation_followsTheUnitAndTheMode() {
    assertEquals(NeighbouringRelation.ONE_ENTRY, ServiceDescription.relation(counted()));
    for (String unit : new String[] {"key", "row"}) {
      for (String mechanism : new String[] {"priv2-sparse", "priv2"}) {
        ServiceConfig c = counted("privacy-unit", unit, "mechanism", mechanism);
        assertEquals(NeighbouringRelation.ENTRYWISE_L1, ServiceDescription.relation(c));
        assertEquals("entrywise-l1", ServiceDescription.releaseMetadata(c).get("relation"));
        assertTrue(ServiceDescription.neighbouring(c).startsWith("entrywise l1"),
            ServiceDescription.neighbouring(c));
      }
    }
    assertEquals(NeighbouringRelation.ENTRYWISE_L1,
        ServiceDescription.relation(counted("mechanism", "robust-lra")));
    assertEquals(NeighbouringRelation.RANK_ONE,
        ServiceDescription.relation(counted("mechanism", "priv1")));
    ServiceConfig rows = ServiceConfig.load(null, Map.of(), Map.of("mode", "rows", "cols", "8",
        "rank", "2", "epsilon", "1", "delta", "1e-6", "epochs", "4", "epoch-updates", "10"));
    assertEquals(Mechanism.PRIV2, rows.mechanism());
    assertEquals(NeighbouringRelation.FROBENIUS, ServiceDescription.relation(rows));
  }
}
