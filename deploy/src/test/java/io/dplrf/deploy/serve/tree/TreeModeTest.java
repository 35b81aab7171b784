package io.dplrf.deploy.serve.tree;

import io.dplrf.sketch.params.Mechanism;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.serve.IngestSettings;
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

/** What the tree modes make of their settings (the running service is tested in it-tests). */
class TreeModeTest {
  private static IngestConfig ingest(ServiceConfig c) {
    return IngestSettings.of(c, TreeMode.bounds(c));
  }

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
    String byCount = TreeMode.neighbouring(config("epoch-updates", "40"));
    assertTrue(byCount.startsWith("streams differing in one update (i, j, delta) with |delta| <= 1.0;")
        && byCount.contains("zero updates in their place") && byCount.contains("public"), byCount);
    String byTime = TreeMode.neighbouring(config("epoch-seconds", "60"));
    assertTrue(byTime.contains("zero updates in their place")
        && byTime.contains("read times are public") && byTime.contains("first record"), byTime);
  }

  @Test
  void neighbouring_ofTheRobustMechanisms_isEntrywiseL1() {
    ServiceConfig c = ServiceConfig.load(null, Map.of(), Map.of("rows", "10", "cols", "8",
        "rank", "2", "epsilon", "1", "delta", "1e-6", "epochs", "4", "epoch-updates", "40",
        "mechanism", "robust-pca", "p", "1.25", "privacy-unit", "key"));
    String text = TreeMode.neighbouring(c);
    assertTrue(text.startsWith("entrywise l1 (robust, p = 1.25, pure epsilon-DP): streams "
        + "differing in all updates carrying one record key, sum |delta| <= 1.0"), text);
    assertEquals("robust-pca", TreeMode.mechanismName(c));
  }

  @Test
  void modeRows_decodesRowRecordsClippedToC_andNamesTheRowRelation() {
    ServiceConfig c = ServiceConfig.load(null, Map.of(), Map.of("mode", "rows", "cols", "8",
        "rank", "2", "epsilon", "1", "delta", "1e-6", "epochs", "4", "epoch-updates", "40",
        "clip", "2"));
    IngestConfig ingest = ingest(c);
    assertEquals(io.dplrf.ingest.ContributionBounds.Unit.ROW_RECORD, ingest.bounds().unit());
    assertEquals(2.0, ingest.bounds().clip());
    assertEquals(8, ingest.bounds().cols());
    assertEquals("dplrf-rows", ingest.topic());
    assertEquals("ata-sketch", TreeMode.mechanismName(c));
    String n = TreeMode.neighbouring(c);
    assertTrue(n.contains("one row record") && n.contains("<= 2.0") && n.contains("<= 4.0")
        && n.contains("all-zero row in its place"), n);
  }

  @Test
  void ingestConfig_fractionalEpochSeconds_reachTheLoopExactly() {
    assertEquals(Duration.ofMillis(1500),
        ingest(config("epoch-seconds", "1.5")).epochLength());
    assertEquals(Duration.ofMillis(500),
        ingest(config("epoch-seconds", "0.5")).epochLength());
    IngestConfig byCount = ingest(config("epoch-updates", "40"));
    assertEquals(40, byCount.epochUpdates());
    assertEquals(Duration.ZERO, byCount.epochLength());
  }

  /**
   * The relation each configuration's tree is calibrated for and the service names
   * (docs/privacy/l1-units.md): one update is one entry; a key's or a row's updates are bounded
   * in ℓ1 and spread over entries and epochs, for priv2-sparse (the default) and priv2 alike;
   * rows mode's AᵀA changes by a Frobenius-bounded x xᵀ.
   */
  @Test
  void relation_followsTheUnitAndTheMode() {
    assertEquals(NeighbouringRelation.ONE_ENTRY, TreeMode.relation(counted()));
    for (String unit : new String[] {"key", "row"}) {
      for (String mechanism : new String[] {"priv2-sparse", "priv2"}) {
        ServiceConfig c = counted("privacy-unit", unit, "mechanism", mechanism);
        assertEquals(NeighbouringRelation.ENTRYWISE_L1, TreeMode.relation(c));
        assertEquals("entrywise-l1", TreeMode.releaseMetadata(c).get("relation"));
        assertTrue(TreeMode.neighbouring(c).startsWith("entrywise l1"),
            TreeMode.neighbouring(c));
      }
    }
    assertEquals(NeighbouringRelation.ENTRYWISE_L1,
        TreeMode.relation(counted("mechanism", "robust-lra")));
    assertEquals(NeighbouringRelation.RANK_ONE,
        TreeMode.relation(counted("mechanism", "priv1")));
    ServiceConfig rows = ServiceConfig.load(null, Map.of(), Map.of("mode", "rows", "cols", "8",
        "rank", "2", "epsilon", "1", "delta", "1e-6", "epochs", "4", "epoch-updates", "10"));
    assertEquals(Mechanism.PRIV2, rows.tree().mechanism());
    assertEquals(NeighbouringRelation.FROBENIUS, TreeMode.relation(rows));
  }
}
