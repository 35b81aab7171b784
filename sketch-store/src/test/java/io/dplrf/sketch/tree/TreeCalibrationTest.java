package io.dplrf.sketch.tree;

import io.dplrf.sketch.params.Mechanism;
import static io.dplrf.sketch.tree.TreeFixtures.PRIVACY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.CovarianceMechanism;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.lra.LaplaceSketchNoise;
import io.dplrf.sketch.lra.NoiseDerivation;
import io.dplrf.sketch.lra.Priv1Plan;
import io.dplrf.sketch.lra.Priv2Matrices;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.lra.RobustPlan;
import io.dplrf.sketch.params.SketchSizes;
import org.junit.jupiter.api.Test;

/**
 * Node calibration over the L nodes an update lands in (docs/privacy/continual-release.md §3–4).
 * Grid rounding makes σ_eff ≥ σ by at most a factor 1 + 2^−30 and adds γ√k ≤ 1e-6·Δ to the
 * sensitivity, so ratios are checked to 1e-5 relative.
 */
class TreeCalibrationTest {
  private static final SketchSizes SIZES = new SketchSizes(20, 30, 2, 4, 8);
  private static final double CLIP = 2.0;
  private static final int T = 100; // L = 8

  private static TreeConfig config(Mechanism m) {
    return new TreeConfig(m, SIZES, PRIVACY, CLIP, T, false);
  }

  private static double mu(GaussianSketchNoise g, double sigmaFactor) {
    return g.sensitivity() / (g.sigma() * sigmaFactor);
  }

  /**
   * Robust nodes (pure DP, docs/privacy/robust.md §4): ℓ1 sensitivities add over the L nodes an
   * update reaches, so the node Laplace scale is L times the one-shot scale of the same matrices
   * (to 1e-5: grid overshoot and the rounding slack over the tree's nodes), and the loss of L
   * nodes at half that scale would exceed ε.
   */
  @Test
  void robustNode_laplaceScaleIsLTimesTheOneShotScale() {
    int l = Dyadic.depth(T);
    for (Mechanism m : new Mechanism[] {Mechanism.ROBUST_LRA,
        Mechanism.ROBUST_PCA}) {
      TreeConfig c = config(m);
      assertEquals(197, c.nodeCount()); // 100+50+25+12+6+3+1+0, below 2T - 1
      NodeFactory f = NodeFactory.create(c, TreeFixtures.KEY_FOR_CALIBRATION, "cal/" + m.cliName(),
          NoiseDerivation.CURRENT);
      RobustPlan node = (RobustPlan) f.plan;
      RobustPlan one = RobustPlan.calibrate(PRIVACY, CLIP, f.robust);
      assertEquals(l, node.compositions());
      assertEquals(c.nodeCount(), node.roundedNodes());
      int parts = node.pca() ? 2 : 3;
      for (LaplaceSketchNoise[] pair : new LaplaceSketchNoise[][] {{node.yr(), one.yr()},
          {node.z(), one.z()}}) {
        LaplaceSketchNoise nd = pair[0];
        assertEquals(l * pair[1].l1Sensitivity(), nd.l1Sensitivity(), 0.0, nd.sketch());
        // b = parts·(L·C·factor + N·k·γ)/ε, up to the grid's relative overshoot 2^-30.
        double want = parts * (nd.l1Sensitivity()
            + c.nodeCount() * nd.entries() * nd.grid().gamma()) / PRIVACY.epsilon();
        assertTrue(nd.scale() >= want * (1 - 1e-12) && nd.scale() <= want * (1 + 0x1.0p-29),
            nd.sketch() + ": " + nd.scale() + " vs " + want);
      }
      // Loss over L nodes with half the scale: L·C·factor/(b/2) per part, summed.
      double halved = node.yr().l1Sensitivity() / (node.yr().scale() / 2)
          + node.z().l1Sensitivity() / (node.z().scale() / 2)
          + (node.pca() ? 0 : node.yc().l1Sensitivity() / (node.yc().scale() / 2));
      assertTrue(halved > PRIVACY.epsilon(), "halving must break the budget: " + halved);
    }
  }

  @Test
  void priv2Node_sigmaIsSqrtLTimesTheSingleReleaseSigma_andHalvingBreaksTheTarget() {
    int l = Dyadic.depth(T);
    assertEquals(8, l);
    Priv2Plan node = (Priv2Plan) NodeFactory.calibrate(config(Mechanism.PRIV2));
    Priv2Plan single = Priv2Plan.calibrate(PRIVACY, CLIP, SIZES);
    assertEquals(Math.sqrt(l), node.yNoise().sigma() / single.yNoise().sigma(), 1e-5 * Math.sqrt(l));
    assertEquals(Math.sqrt(l), node.zNoise().sigma() / single.zNoise().sigma(), 1e-5 * Math.sqrt(l));
    double deltaMech = PRIVACY.delta() * (1 - node.jlDeltaShare());
    for (double factor : new double[] {1, 0.5}) {
      // One update: L nodes × (Y, Z), composed exactly (Dong–Roth–Su Cor. 3.3).
      double muTotal = Math.sqrt(l * (Math.pow(mu(node.yNoise(), factor), 2)
          + Math.pow(mu(node.zNoise(), factor), 2)));
      double delta = AnalyticGaussian.delta(PRIVACY.epsilon(), muTotal);
      if (factor == 1) {
        assertTrue(delta <= deltaMech * (1 + 1e-9), "calibrated delta " + delta);
        assertTrue(delta > 0.5 * deltaMech, "not wasteful: delta " + delta);
      } else {
        assertTrue(delta > 10 * deltaMech, "halved sigma still meets the target: " + delta);
      }
    }
  }

  @Test
  void priv1Node_sigmaMinIsSqrtLTimesTheSingleRelease_andHalvingBreaksTheTarget() {
    int l = Dyadic.depth(T);
    Priv1Plan node = (Priv1Plan) NodeFactory.calibrate(config(Mechanism.PRIV1));
    Priv1Plan single = Priv1Plan.calibrate(PRIVACY, CLIP, SIZES);
    // The stacked covariance mechanism sees a change of norm C·√L; r is the same as one-shot.
    assertEquals(single.covarianceR(), node.covarianceR(), 0);
    assertEquals(Math.sqrt(l) * single.sigmaMin(), node.sigmaMin(), 1e-12 * node.sigmaMin());
    assertEquals(Math.sqrt(l), node.yrNoise().sigma() / single.yrNoise().sigma(), 1e-5 * Math.sqrt(l));
    assertEquals(Math.sqrt(l), node.zNoise().sigma() / single.zNoise().sigma(), 1e-5 * Math.sqrt(l));
    double deltaMech = PRIVACY.delta() * (1 - node.jlDeltaShare());
    for (double factor : new double[] {1, 0.5}) {
      double muG = Math.sqrt(l * (Math.pow(mu(node.yrNoise(), factor), 2)
          + Math.pow(mu(node.zNoise(), factor), 2)));
      double r = CLIP * Math.sqrt(l) / (node.sigmaMin() * factor);
      double delta = CovarianceMechanism.delta(PRIVACY.epsilon(), SIZES.t(), r, muG);
      if (factor == 1) {
        assertTrue(delta <= deltaMech * (1 + 1e-6), "calibrated delta " + delta);
      } else {
        assertTrue(delta > 10 * deltaMech, "halved sigmaMin and sigma still meet the target: " + delta);
      }
    }
  }

  /**
   * Priv2 under entrywise-ℓ1 neighbours (docs/privacy/l1-units.md §3–4), sparse and dense: the
   * factors are the drawn matrices' (1 for sparse), no δ share is spent on them, σ is √L times the
   * one-shot σ of the same matrices, the grid rounding is charged for every node of the tree for
   * a key or row unit (k·⌈N/L⌉ coordinates per part) and for the L nodes of one epoch for one
   * update (k), and the whole tree meets (ε, δ) with all of δ, while halving σ does not.
   */
  @Test
  void l1Nodes_sqrtLTimesTheOneShotSigma_roundingOverTheUnitsNodes_andHalvingBreaksTheTarget() {
    for (NeighbouringRelation r : new NeighbouringRelation[] {NeighbouringRelation.ONE_ENTRY,
        NeighbouringRelation.ENTRYWISE_L1}) {
      for (Mechanism m : new Mechanism[] {Mechanism.PRIV2_SPARSE,
          Mechanism.PRIV2}) {
        checkL1Node(m, r);
      }
    }
  }

  private static void checkL1Node(Mechanism m, NeighbouringRelation r) {
    int l = Dyadic.depth(T);
    TreeConfig c = new TreeConfig(m, r, SIZES, PRIVACY, CLIP, T, false, 1);
    String what = m.cliName() + " " + r.cliName();
    NodeFactory f = NodeFactory.create(c, TreeFixtures.KEY_FOR_CALIBRATION, "cal/l1/" + m.cliName(),
        NoiseDerivation.CURRENT);
    Priv2Plan node = (Priv2Plan) f.plan;
    Priv2Matrices mats = Priv2Matrices.generate(TreeFixtures.KEY_FOR_CALIBRATION,
        "cal/l1/" + m.cliName(), SIZES, false, m == Mechanism.PRIV2_SPARSE ? 4 : 0);
    Priv2Plan single = Priv2Plan.calibrateL1(PRIVACY, CLIP, mats, 1, 1);
    assertEquals(NeighbouringRelation.ENTRYWISE_L1, node.relation(), what);
    assertEquals(0, node.jlDeltaShare(), what);
    assertEquals(mats.maxRowNormOfPhi(), node.phiFactor(), 0, what);
    assertEquals(mats.maxColumnNormOfS(), node.sFactor(), 0, what);
    if (m == Mechanism.PRIV2_SPARSE) {
      assertEquals(1, node.phiFactor(), 0);
      assertEquals(1, node.sFactor(), 0);
    } else {
      assertTrue(node.phiFactor() > 1 && node.sFactor() > 1, "the largest of the drawn norms");
    }
    long perLevel = r == NeighbouringRelation.ONE_ENTRY ? 1 : (c.nodeCount() + l - 1) / l;
    assertEquals((long) SIZES.m() * SIZES.t() * perLevel, node.yNoise().changedCoordinates(), what);
    assertEquals((long) SIZES.v() * SIZES.n() * perLevel, node.zNoise().changedCoordinates(), what);
    assertEquals(Math.sqrt(l), node.yNoise().sigma() / single.yNoise().sigma(), 1e-5 * Math.sqrt(l));
    assertEquals(Math.sqrt(l), node.zNoise().sigma() / single.zNoise().sigma(), 1e-5 * Math.sqrt(l));
    for (double factor : new double[] {1, 0.5}) {
      double muTotal = Math.sqrt(l * (Math.pow(mu(node.yNoise(), factor), 2)
          + Math.pow(mu(node.zNoise(), factor), 2)));
      double delta = AnalyticGaussian.delta(PRIVACY.epsilon(), muTotal);
      if (factor == 1) {
        assertTrue(delta <= PRIVACY.delta() * (1 + 1e-9), what + ": delta " + delta);
        assertTrue(delta > 0.9 * PRIVACY.delta(), what + ": all of delta, " + delta);
      } else {
        assertTrue(delta > 10 * PRIVACY.delta(), what + ": halved sigma: " + delta);
      }
    }
  }

  /**
   * The tree form of Lemma 1 (l1-units.md §3), on released nodes: two trees on the same key and
   * instance (so every node's noise is the same) fed the same stream, one of them also a unit
   * whose budget C is spread over five epochs and cells. Over every node, Σ (‖ΔY‖/σ_Y)² +
   * (‖ΔZ‖/σ_Z)² ≤ μ² — the unit touches up to three nodes of a level, and still costs no more than
   * one update of C landing in L nodes, which reaches μ² exactly.
   */
  @Test
  void l1Tree_unitSpreadOverEpochs_costsAtMostOneUpdate_whichReachesMu() {
    int t = 8;
    TreeConfig c = new TreeConfig(Mechanism.PRIV2_SPARSE, NeighbouringRelation.ENTRYWISE_L1,
        SIZES, PRIVACY, CLIP, t, false, 1);
    double[][] spread = {{1, 0, 0, 0.25}, {2, 3, 5, -0.25}, {3, 7, 11, 0.125}, {5, 1, 2, 0.125},
        {8, 9, 29, 0.25}}; // epoch, i, j, Δ/C: Σ|Δ| = C
    double[][] single = {{3, 4, 17, 1}};
    double mu = AnalyticGaussian.mu(PRIVACY.epsilon(), PRIVACY.delta());
    double spreadLoss = releasedLoss(c, spread);
    double singleLoss = releasedLoss(c, single);
    assertEquals(mu * mu, singleLoss, 1e-6 * mu * mu, "one update of C in L = 4 nodes");
    assertTrue(spreadLoss <= mu * mu * (1 + 1e-6), "spread unit: " + spreadLoss + " > " + mu * mu);
  }

  /** Σ over every node of the tree of the squared GDP shift that adding {@code unit} makes. */
  private static double releasedLoss(TreeConfig c, double[][] unit) {
    ContinualSketch with = ContinualSketch.create(c, TreeFixtures.KEY_FOR_CALIBRATION, "l1tree");
    ContinualSketch without = ContinualSketch.create(c, TreeFixtures.KEY_FOR_CALIBRATION, "l1tree");
    for (int e = 1; e <= c.epochs(); e++) {
      TreeFixtures.feed(with, e, 0, TreeFixtures.PER_EPOCH);
      TreeFixtures.feed(without, e, 0, TreeFixtures.PER_EPOCH);
      for (double[] u : unit) {
        if (u[0] == e) {
          with.update((int) u[1], (int) u[2], u[3] * CLIP);
        }
      }
      with.closeEpoch();
      without.closeEpoch();
    }
    Priv2Plan plan = (Priv2Plan) with.plan();
    double loss = 0;
    for (int level = 0; level < c.depth(); level++) {
      for (int k = 0; (k + 1) << level <= c.epochs(); k++) {
        Dyadic.NodeId id = new Dyadic.NodeId(level, k);
        var a = (io.dplrf.sketch.lra.Priv2Sketches) with.releaseNode(id);
        var b = (io.dplrf.sketch.lra.Priv2Sketches) without.releaseNode(id);
        loss += squaredDistance(a.y().data(), b.y().data()) / Math.pow(plan.yNoise().sigma(), 2)
            + squaredDistance(a.z().data(), b.z().data()) / Math.pow(plan.zNoise().sigma(), 2);
      }
    }
    return loss;
  }

  private static double squaredDistance(double[] a, double[] b) {
    double s = 0;
    for (int x = 0; x < a.length; x++) {
      s += (a[x] - b[x]) * (a[x] - b[x]);
    }
    return s;
  }

  /** Exact composition beats the ε/L split it replaces (the split would need more noise). */
  @Test
  void priv2NodeNoise_isBelowTheEpsilonOverLSplit() {
    int l = Dyadic.depth(T);
    Priv2Plan node = (Priv2Plan) NodeFactory.calibrate(config(Mechanism.PRIV2));
    Priv2Plan split = Priv2Plan.calibrate(new io.dplrf.sketch.params.PrivacyParams(
        PRIVACY.epsilon() / l, PRIVACY.delta() / l), CLIP, SIZES);
    assertTrue(node.yNoise().sigma() < split.yNoise().sigma(),
        node.yNoise().sigma() + " vs split " + split.yNoise().sigma());
  }
}
