package io.dplrf.deploy.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.serve.tree.TreeMode;
import io.dplrf.release.Priv2Release;
import io.dplrf.release.ReportedFactorization;
import io.dplrf.release.UtilityReport;
import io.dplrf.sketch.continual.BltStream;
import io.dplrf.sketch.lra.Priv2Sketches;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.tree.ContinualSketch;
import io.dplrf.sketch.tree.TreeConfig;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The plan and the service agree: for the same settings, key and instance, the noise the plan
 * predicts for release t is the noise the stream releases at t, and so is the floor. At 400×20,
 * k = 2 (t = 40, v = 160) the floor's Y term σ_Y(√400 + √40) ≈ 26σ exceeds the Z term
 * σ_Z(√4 + √20)/σmin(SU) ≈ 8σ for any σmin(SU) > 0.25, so the service's floor is the Y term
 * whatever basis the data gives, and must equal the plan's exactly.
 */
class ReleasePlanTest {
  @TempDir Path dir;

  private static final int EPOCHS = 7;

  private static ServiceConfig config(String mechanism, String unit, String continual) {
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("continual", continual);
    flags.put("rows", "400");
    flags.put("cols", "20");
    flags.put("rank", "2");
    flags.put("epsilon", "1");
    flags.put("delta", "1e-6");
    flags.put("epochs", String.valueOf(EPOCHS));
    flags.put("epoch-updates", "1");
    flags.put("mechanism", mechanism);
    flags.put("privacy-unit", unit);
    flags.put("clip", "2");
    return ServiceConfig.load(null, Map.of(), flags);
  }

  @ParameterizedTest
  @ValueSource(strings = {"priv2-sparse/update", "priv2-sparse/key", "priv2/update", "priv2/row"})
  void treePlan_equalsTheTreesReleases_noiseAndFloor(String setting) {
    String[] ms = setting.split("/");
    ServiceConfig config = config(ms[0], ms[1], "tree");
    SecretKey key = SecretKey.forTesting(27);
    ReleasePlan plan = ReleasePlan.of(config, key, "svc");
    assertEquals(ReleasePlan.Continual.TREE, plan.kind());
    TreeConfig served = TreeMode.treeConfig(config);
    ContinualSketch tree = ContinualSketch.create(served, key, "svc");
    for (int e = 1; e <= EPOCHS; e++) {
      for (int i = 0; i < 400; i++) {
        tree.update(i, (i * 7 + e) % 20, 1 + (i % 3));
      }
      tree.closeEpoch();
      Priv2Sketches released = (Priv2Sketches) tree.releasePrefix(e);
      assertEquals(released.noise(), plan.noise(e), "epoch " + e);
      ReportedFactorization f = Priv2Release.factorize(released, 2);
      UtilityReport report = f.report();
      assertEquals(report.noiseFloor(), plan.predicted(e).floor(), "epoch " + e + ": " + report);
      assertEquals(report.floorTerms().get(0), plan.predicted(e).floorTerms().get(0));
    }
  }

  @Test
  void factorizationPlan_equalsTheBltStreamsReleases_noiseAndFloor() throws Exception {
    ServiceConfig config = config("priv2-sparse", "key", "factorization");
    SecretKey key = SecretKey.forTesting(28);
    ReleasePlan plan = ReleasePlan.of(config, key, "svc");
    assertEquals(ReleasePlan.Continual.FACTORIZATION, plan.kind());
    BltStream blt = BltStream.create(TreeMode.bltConfig(config), key, "svc", dir.resolve("blt"));
    double previous = 0;
    for (int e = 1; e <= EPOCHS; e++) {
      for (int i = 0; i < 400; i++) {
        blt.update(i, (i * 5 + e) % 20, 1);
      }
      blt.closeEpoch();
      blt.writeTo(java.io.OutputStream.nullOutputStream()); // the service's order: snapshot first
      Priv2Sketches released = blt.releasePrefix(e);
      assertEquals(released.noise(), plan.noise(e), "epoch " + e);
      UtilityReport report = Priv2Release.factorize(released, 2).report();
      assertEquals(report.noiseFloor(), plan.predicted(e).floor(), "epoch " + e + ": " + report);
      assertTrue(plan.predicted(e).floor() > previous, "the BLT prefix noise grows with t");
      previous = plan.predicted(e).floor();
    }
  }

  /** A halved noise, or a tree summing too few nodes, would move the plan off the service. */
  @Test
  void treePlan_noiseGrowsWithTheNodesOfThePrefix() {
    ReleasePlan plan = ReleasePlan.of(config("priv2-sparse", "update", "tree"),
        SecretKey.forTesting(1), "svc");
    double one = plan.noise(1).get(0).sigma();
    assertEquals(one, plan.noise(4).get(0).sigma(), "[1, 4] is one node");
    assertEquals(one * Math.sqrt(3), plan.noise(7).get(0).sigma(), one * 1e-12,
        "[1, 7] is three nodes");
    assertEquals(7, plan.worst().epoch(), "popcount(7) = 3 is the most nodes up to T = 7");
  }

  @Test
  void shownEpochs_holdThePowersOfTwo_theTreesWorstEpochs_andT() {
    assertEquals(List.of(1, 2, 3, 4, 7, 8, 15, 16), ReleasePlan.shownEpochs(16));
    assertEquals(List.of(1, 2, 3, 4, 7, 8, 10), ReleasePlan.shownEpochs(10));
    assertEquals(List.of(1), ReleasePlan.shownEpochs(1));
  }

  @Test
  void otherModesAndMechanisms_areRefusedInOneLine() {
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("rows", "400");
    flags.put("cols", "20");
    flags.put("rank", "2");
    flags.put("epsilon", "1");
    flags.put("delta", "1e-6");
    flags.put("epochs", "4");
    flags.put("epoch-updates", "1");
    flags.put("mechanism", "priv1");
    ServiceConfig priv1 = ServiceConfig.load(null, Map.of(), flags);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ReleasePlan.of(priv1, SecretKey.forTesting(1), "x"));
    assertTrue(e.getMessage().contains("priv1"), e.getMessage());
  }
}
