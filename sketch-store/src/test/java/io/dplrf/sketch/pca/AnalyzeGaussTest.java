package io.dplrf.sketch.pca;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.stats.ChiSquare;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AnalyzeGaussTest {
  private static final long SEED = 17;
  private static final double FALSE_ALARM = 1e-7;
  private final SecretKey key = SecretKey.forTesting(SEED);
  private final PrivacyParams privacy = new PrivacyParams(1, 1e-6);

  @Test
  void plan_sigmaIsTheAnalyticGaussianForSensitivityCSquared() {
    double clip = 3;
    int d = 50;
    AnalyzeGaussPlan plan = AnalyzeGaussPlan.calibrate(privacy, clip, d);
    double exact = AnalyticGaussian.sigma(1, 1e-6, clip * clip);
    assertEquals(clip * clip, plan.noise().baseSensitivity());
    assertEquals(Gram.packedLength(d), plan.noise().changedCoordinates());
    // σ_eff ≥ (Δ + slack)/μ, and the grid overshoots by at most a relative 2^-30 plus the slack.
    assertTrue(plan.noise().sigma() >= exact, plan.noise().sigma() + " < " + exact);
    assertEquals(exact, plan.noise().sigma(), exact * 1e-6);
    assertTrue(plan.noise().sensitivity() / plan.noise().sigma()
        <= AnalyticGaussian.mu(1, 1e-6));
  }

  /**
   * An empty Gram releases pure noise: over the N = d(d+1)/2 = 1830 upper-triangle entries,
   * Σe²/σ² ~ χ²_N. The test rejects when either tail probability is below 1e-7 (false alarm
   * < 2e-7); halved noise (statistic / 4) or missing noise (0) is rejected.
   */
  @Test
  void emptyGram_upperTriangleHasTheCalibratedVariance_failsIfHalvedOrMissing() {
    int d = 60;
    AnalyzeGaussPlan plan = AnalyzeGaussPlan.calibrate(privacy, 1, d);
    NoisyGram r = AnalyzeGauss.release(plan, new Gram(d, 1), key, "run/empty");
    double sigma = plan.noise().sigma();
    double ss = 0;
    for (int i = 0; i < d; i++) {
      for (int j = i; j < d; j++) {
        double e = r.gram().get(i, j);
        ss += e * e;
      }
    }
    int n = (int) Gram.packedLength(d);
    double stat = ss / (sigma * sigma);
    assertTrue(accepts(stat, n), "chi2 statistic " + stat + " for N = " + n + " (seed " + SEED + ")");
    assertFalse(accepts(stat / 4, n), "halved noise would pass");
    assertFalse(accepts(0, n), "missing noise would pass");
    assertEquals(sigma, r.noise().get(0).sigma());
    assertEquals(n, r.noise().get(0).entries());
  }

  private static boolean accepts(double stat, int df) {
    double upper = ChiSquare.upperTail(stat, df);
    return upper > FALSE_ALARM && 1 - upper > FALSE_ALARM;
  }

  @Test
  void release_isSymmetric_andOffDiagonalNoiseIsNotZero() {
    int d = 12;
    NoisyGram r = AnalyzeGauss.release(
        AnalyzeGaussPlan.calibrate(privacy, 1, d), gramOf(randomRows(30, d, 1), 1), key, "run/sym");
    for (int i = 0; i < d; i++) {
      for (int j = 0; j < d; j++) {
        assertEquals(r.gram().get(i, j), r.gram().get(j, i), "entry " + i + "," + j);
      }
    }
    assertNotEquals(0.0, r.gram().get(0, 1));
  }

  @Test
  void release_minusTheSameLabelsNoise_isTheGramRoundedToTheGrid() {
    int d = 10;
    AnalyzeGaussPlan plan = AnalyzeGaussPlan.calibrate(privacy, 1, d);
    Gram g = gramOf(randomRows(40, d, 2), 1);
    Dense withData = AnalyzeGauss.release(plan, g, key, "run/x").gram();
    Dense noiseOnly = AnalyzeGauss.release(plan, new Gram(d, 1), key, "run/x").gram();
    Dense exact = g.toDense();
    double gamma = plan.noise().grid().gamma();
    for (int i = 0; i < d; i++) {
      for (int j = 0; j < d; j++) {
        double diff = withData.get(i, j) - noiseOnly.get(i, j);
        assertEquals(GridGaussian.roundToGrid(exact.get(i, j), gamma), diff, 1e-12 * Math.abs(diff));
      }
    }
  }

  @Test
  void differentLabels_drawDifferentNoise() {
    AnalyzeGaussPlan plan = AnalyzeGaussPlan.calibrate(privacy, 1, 5);
    Dense a = AnalyzeGauss.release(plan, new Gram(5, 1), key, "run/a").gram();
    Dense b = AnalyzeGauss.release(plan, new Gram(5, 1), key, "run/b").gram();
    assertNotEquals(a.get(0, 0), b.get(0, 0));
  }

  @Test
  void release_refusesAGramOfAnotherDimensionOrClip() {
    AnalyzeGaussPlan plan = AnalyzeGaussPlan.calibrate(privacy, 1, 5);
    assertThrows(IllegalArgumentException.class,
        () -> AnalyzeGauss.release(plan, new Gram(6, 1), key, "l"));
    assertThrows(IllegalArgumentException.class,
        () -> AnalyzeGauss.release(plan, new Gram(5, 2), key, "l"));
  }

  @Test
  void ataSketchPlan_isPriv2WithClipCSquared() {
    SketchSizes sizes = SketchSizes.of(20, 20, 3, null, null, SketchSizes.DEFAULT_ALPHA);
    Priv2Plan p = AtaSketch.plan(privacy, 0.5, sizes);
    assertEquals(Priv2Plan.calibrate(privacy, 0.25, sizes), p);
    assertThrows(IllegalArgumentException.class,
        () -> AtaSketch.plan(privacy, 1, SketchSizes.of(20, 21, 3, null, null, 0.25)));
  }

  static double[][] randomRows(int n, int d, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[][] rows = new double[n][d];
    for (double[] r : rows) {
      for (int j = 0; j < d; j++) {
        r[j] = rnd.nextDouble(-1, 1);
      }
    }
    return rows;
  }

  static Gram gramOf(double[][] rows, double clip) {
    Gram g = new Gram(rows[0].length, clip);
    for (double[] r : rows) {
      g.addRow(r);
    }
    return g;
  }
}
