package io.dplrf.sketch.tree;

import io.dplrf.sketch.params.Mechanism;
import static io.dplrf.sketch.tree.TreeFixtures.PER_EPOCH;
import static io.dplrf.sketch.tree.TreeFixtures.config;
import static io.dplrf.sketch.tree.TreeFixtures.exact;
import static io.dplrf.sketch.tree.TreeFixtures.feed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.lra.Priv1Plan;
import io.dplrf.sketch.lra.Priv1Sketches;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.lra.Priv2Sketches;
import io.dplrf.sketch.lra.ReleasedSketches;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.lra.RobustPlan;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.stats.ChiSquare;
import io.dplrf.sketch.tree.Dyadic.NodeId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ContinualSketchTest {
  private static final long SEED = 31;
  private static final SecretKey KEY = SecretKey.forTesting(SEED);
  private static final SketchSizes SMALL = new SketchSizes(20, 30, 2, 4, 8);

  private static ContinualSketch fedTree(Mechanism mech, int epochs, int closed) {
    ContinualSketch tree = ContinualSketch.create(config(mech, SMALL, epochs), KEY, "t/" + mech);
    for (int e = 1; e <= closed; e++) {
      feed(tree, e, 0, PER_EPOCH);
      tree.closeEpoch();
    }
    return tree;
  }

  /** The data-free twin: same key, instance and labels, no updates. */
  private static ContinualSketch twin(Mechanism mech, int epochs, int closed) {
    ContinualSketch tree = ContinualSketch.create(config(mech, SMALL, epochs), KEY, "t/" + mech);
    for (int e = 1; e <= closed; e++) {
      tree.closeEpoch();
    }
    return tree;
  }

  /** Released parts in a fixed order, with the grid step γ of each (0: not rounded). */
  private static double[][] parts(ReleasedSketches r) {
    if (r instanceof Priv1Sketches p) {
      return new double[][] {p.yc().data(), p.yr().data(), p.z().data()};
    }
    if (r instanceof RobustSketches p) {
      return p.pca() ? new double[][] {p.yr().data(), p.z().data()}
          : new double[][] {p.yr().data(), p.yc().data(), p.z().data()};
    }
    Priv2Sketches p = (Priv2Sketches) r;
    return new double[][] {p.y().data(), p.z().data()};
  }

  private static double[] gammas(Object plan) {
    if (plan instanceof Priv1Plan p) {
      return new double[] {0, p.yrNoise().grid().gamma(), p.zNoise().grid().gamma()};
    }
    if (plan instanceof RobustPlan p) {
      return p.pca() ? new double[] {p.yr().grid().gamma(), p.z().grid().gamma()}
          : new double[] {p.yr().grid().gamma(), p.yc().grid().gamma(), p.z().grid().gamma()};
    }
    Priv2Plan p = (Priv2Plan) plan;
    return new double[] {p.yNoise().grid().gamma(), p.zNoise().grid().gamma()};
  }

  /**
   * release[s, e] − Σ (twin's release of each decomposition node) equals the noiseless sketch of
   * the updates of epochs s..e: each node rounds its query to the grid once, so per entry the
   * difference is within 2γ per node (plus floating-point summation error, 1e-9).
   */
  private static void assertDataPlusExactlyDecompositionNoise(ContinualSketch tree,
      ContinualSketch twin, int s, int e) {
    List<NodeId> nodes = Dyadic.decomposition(s, e);
    double[][] got = parts(tree.releaseRange(s, e));
    double[][] want = parts(exact(tree, KEY, s, e).release());
    double[] gamma = gammas(tree.plan());
    double[][] noise = new double[got.length][];
    for (NodeId id : nodes) {
      double[][] n = parts(twin.releaseNode(id));
      for (int a = 0; a < n.length; a++) {
        if (noise[a] == null) {
          noise[a] = new double[n[a].length];
        }
        for (int x = 0; x < n[a].length; x++) {
          noise[a][x] += n[a][x];
        }
      }
    }
    for (int a = 0; a < got.length; a++) {
      double tol = nodes.size() * 2 * gamma[a] + 1e-9;
      for (int x = 0; x < got[a].length; x++) {
        assertEquals(want[a][x], got[a][x] - noise[a][x], tol,
            "[" + s + ", " + e + "] part " + a + " entry " + x + " (seed " + SEED + ")");
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = Mechanism.class, names = {"PRIV1", "PRIV2", "PRIV2_SPARSE", "ROBUST_LRA", "ROBUST_PCA"})
  void releasedPrefixesAndRanges_equalExactSketchPlusExactlyTheDecompositionNodesNoise(
      Mechanism mech) {
    ContinualSketch tree = fedTree(mech, 8, 7);
    ContinualSketch twin = twin(mech, 8, 7);
    for (int e = 1; e <= 7; e++) {
      assertDataPlusExactlyDecompositionNoise(tree, twin, 1, e);
    }
    assertDataPlusExactlyDecompositionNoise(tree, twin, 3, 6);
    assertDataPlusExactlyDecompositionNoise(tree, twin, 2, 7);
  }

  /**
   * A release sums its nodes' noisy copies in place, into the first one's arrays: were a node's
   * release ever its live state, a second release of the same range would differ from the first.
   */
  @ParameterizedTest
  @EnumSource(value = Mechanism.class, names = {"PRIV1", "PRIV2", "PRIV2_SPARSE", "ROBUST_LRA", "ROBUST_PCA"})
  void releasingARangeTwice_givesTheSameSketches_andLeavesItsNodesUnchanged(Mechanism mech) {
    ContinualSketch tree = fedTree(mech, 8, 7);
    for (int[] range : new int[][] {{2, 7}, {1, 7}, {1, 4}}) {
      double[][] first = parts(tree.releaseRange(range[0], range[1]));
      double[][] again = parts(tree.releaseRange(range[0], range[1]));
      for (int a = 0; a < first.length; a++) {
        org.junit.jupiter.api.Assertions.assertArrayEquals(first[a], again[a],
            "[" + range[0] + ", " + range[1] + "] part " + a);
      }
    }
  }

  /** Priv1's summed sketches keep every node's Yr/Z padding: σmin of a 3-node sum is 3·σmin. */
  @Test
  void priv1PrefixSum_describesItsPaddingAsNodesTimesSigmaMin() {
    ContinualSketch tree = fedTree(Mechanism.PRIV1, 8, 7);
    double sigmaMin = ((Priv1Plan) tree.plan()).sigmaMin();
    assertEquals(3 * sigmaMin, ((Priv1Sketches) tree.releasePrefix(7)).sigmaMin(), 1e-12 * sigmaMin);
    assertEquals(sigmaMin, ((Priv1Sketches) tree.releasePrefix(8 - 4)).sigmaMin(), 1e-12 * sigmaMin);
  }

  /** Σ (x/σ)² over N pure-noise entries of c summed nodes, divided by c, is χ²_N. */
  private static double normalisedSumOfSquares(Priv2Sketches r, Priv2Plan plan, int nodes) {
    double q = 0;
    for (double x : r.y().data()) {
      q += x * x / Math.pow(plan.yNoise().sigma(), 2);
    }
    for (double x : r.z().data()) {
      q += x * x / Math.pow(plan.zNoise().sigma(), 2);
    }
    return q / nodes;
  }

  /**
   * A data-free Priv2 tree releases pure noise. Prefix 7 sums 3 nodes, prefix 8 one: the noise
   * variance must be 3σ² and σ². With N = m·t + v·n = 1280 entries, Q = Σ(x/σ)²/c ~ χ²_N; each
   * check rejects when P[χ²_N beyond Q] < 5e-8 on either side, so the test falsely fails with
   * probability < 2e-7. Missing noise (Q = 0), halved noise (Q ≈ N/4) and noise reused by the
   * three nodes (Q ≈ 3N) all fail.
   */
  @Test
  void prefixNoiseVariance_growsWithTheNumberOfDecompositionNodes() {
    SketchSizes sizes = new SketchSizes(40, 60, 2, 8, 16);
    ContinualSketch tree = ContinualSketch.create(config(Mechanism.PRIV2, sizes, 8), KEY, "var");
    for (int e = 1; e <= 8; e++) {
      tree.closeEpoch();
    }
    Priv2Plan plan = (Priv2Plan) tree.plan();
    int df = sizes.m() * sizes.t() + sizes.v() * sizes.n();
    for (int[] prefixAndNodes : new int[][] {{7, 3}, {8, 1}, {5, 2}}) {
      double q = normalisedSumOfSquares(
          (Priv2Sketches) tree.releasePrefix(prefixAndNodes[0]), plan, prefixAndNodes[1]);
      double upper = ChiSquare.upperTail(q, df);
      assertTrue(upper > 5e-8 && upper < 1 - 5e-8, "prefix " + prefixAndNodes[0] + ": Q/N = "
          + q / df + ", upper tail " + upper + " (seed " + SEED + ")");
    }
  }

  /**
   * Two nodes' noise must be independent: the sample correlation of N = 1280 standardized pairs
   * has s.d. 1/√N under independence; |ρ| > 5.33/√N falsely rejects with probability < 1e-7 per
   * pair. Reused noise gives ρ = 1.
   */
  @Test
  void noiseOfDifferentNodes_isUncorrelated() {
    SketchSizes sizes = new SketchSizes(40, 60, 2, 8, 16);
    ContinualSketch tree = ContinualSketch.create(config(Mechanism.PRIV2, sizes, 8), KEY, "corr");
    for (int e = 1; e <= 4; e++) {
      tree.closeEpoch();
    }
    NodeId[] ids = {new NodeId(0, 0), new NodeId(0, 1), new NodeId(1, 0), new NodeId(2, 0)};
    Priv2Plan plan = (Priv2Plan) tree.plan();
    double[][] z = new double[ids.length][];
    for (int a = 0; a < ids.length; a++) {
      Priv2Sketches r = (Priv2Sketches) tree.releaseNode(ids[a]);
      double[] y = r.y().data();
      double[] zz = r.z().data();
      z[a] = new double[y.length + zz.length];
      for (int x = 0; x < y.length; x++) {
        z[a][x] = y[x] / plan.yNoise().sigma();
      }
      for (int x = 0; x < zz.length; x++) {
        z[a][y.length + x] = zz[x] / plan.zNoise().sigma();
      }
    }
    int n = z[0].length;
    for (int a = 0; a < ids.length; a++) {
      for (int b = a + 1; b < ids.length; b++) {
        double dot = 0;
        for (int x = 0; x < n; x++) {
          dot += z[a][x] * z[b][x];
        }
        double rho = dot / n; // means are 0 and variances 1 by construction
        assertTrue(Math.abs(rho) < 5.33 / Math.sqrt(n),
            ids[a] + " vs " + ids[b] + ": rho = " + rho + " (seed " + SEED + ")");
      }
    }
  }

  /**
   * An update writes one sketch, the epoch accumulator. Priv1: the L open nodes absorb it at
   * closeEpoch. Priv2: no node is open; closeEpoch makes the leaf from it and each node ending
   * there from its two children.
   */
  @ParameterizedTest
  @EnumSource(value = Mechanism.class, names = {"PRIV1", "PRIV2", "PRIV2_SPARSE", "ROBUST_LRA", "ROBUST_PCA"})
  void update_writesOnlyTheEpochAccumulator_nodesAreMadeAtCloseEpoch(Mechanism mech) {
    ContinualSketch tree = ContinualSketch.create(config(mech, SMALL, 8), KEY, "cost");
    assertEquals(4, tree.depth());
    boolean priv1 = mech == Mechanism.PRIV1;
    for (NoisyLinearSketch node : tree.open) {
      // Priv1: epoch 1 lies in one node per level: [1,1], [1,2], [1,4], [1,8]
      assertEquals(priv1, node != null);
    }
    feed(tree, 1, 0, PER_EPOCH);
    assertEquals(PER_EPOCH, tree.accumulator.updateCount());
    for (NoisyLinearSketch node : tree.open) {
      assertEquals(0, node == null ? 0 : node.updateCount());
    }
    NoisyLinearSketch level1 = tree.open[1];
    tree.closeEpoch();
    assertEquals(0, tree.accumulator.updateCount());
    assertEquals(PER_EPOCH, tree.retained.get(new NodeId(0, 0)).updateCount());
    if (priv1) {
      assertEquals(PER_EPOCH, level1.updateCount());
      assertEquals(0, tree.open[0].updateCount()); // the fresh node [2, 2]
    } else {
      assertEquals(java.util.Arrays.asList(new NoisyLinearSketch[4]), java.util.Arrays.asList(tree.open));
    }
    feed(tree, 2, 0, PER_EPOCH);
    tree.closeEpoch();
    assertEquals(java.util.Set.of(new NodeId(1, 0)), tree.retained.keySet());
    assertEquals(2 * PER_EPOCH, tree.retained.get(new NodeId(1, 0)).updateCount());
  }

  @Test
  void badUpdates_areRejected_andLeaveTheTreeUnchanged() {
    ContinualSketch tree = ContinualSketch.create(config(Mechanism.PRIV2, SMALL, 4), KEY, "bad");
    tree.update(1, 1, 1.0);
    assertThrows(IllegalArgumentException.class, () -> tree.update(-1, 0, 1.0));
    assertThrows(IllegalArgumentException.class, () -> tree.update(0, SMALL.n(), 1.0));
    assertThrows(IllegalArgumentException.class, () -> tree.update(0, 0, Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> tree.update(0, 0, Double.POSITIVE_INFINITY));
    assertEquals(1, tree.accumulator.updateCount());
    assertThrows(IllegalArgumentException.class, () -> tree.releasePrefix(1)); // nothing closed
  }

  @Test
  void afterEpochT_theTreeIsExhausted_andRefusesUpdatesAndCloses() {
    ContinualSketch tree = fedTree(Mechanism.PRIV2, 3, 3);
    assertTrue(tree.exhausted());
    assertEquals(3, tree.epochsClosed());
    IllegalStateException close = assertThrows(IllegalStateException.class, tree::closeEpoch);
    assertEquals("all T epochs are closed; the privacy budget is spent", close.getMessage());
    IllegalStateException up = assertThrows(IllegalStateException.class, () -> tree.update(0, 0, 1));
    assertEquals(close.getMessage(), up.getMessage());
    assertNotNull(tree.releasePrefix(3));
    assertThrows(IllegalArgumentException.class, () -> tree.releasePrefix(4));
    assertThrows(IllegalArgumentException.class, () -> tree.releaseRange(3, 2));
  }

  /** Only the prefix-decomposition nodes stay live: ≤ L sketches, whatever the epoch. */
  @Test
  void liveClosedNodes_areTheCurrentPrefixDecomposition() {
    ContinualSketch tree = fedTree(Mechanism.PRIV2, 16, 0);
    for (int e = 1; e <= 16; e++) {
      tree.closeEpoch();
      assertEquals(Integer.bitCount(e), tree.retained.size(), "after epoch " + e);
      assertTrue(tree.retained.keySet().containsAll(Dyadic.decomposition(1, e)));
    }
  }
}
