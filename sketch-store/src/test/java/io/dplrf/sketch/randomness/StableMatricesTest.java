package io.dplrf.sketch.randomness;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.matrix.SketchMatrix;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The keyed p-stable matrices: their law (Kolmogorov–Smirnov against the Cauchy CDF for p = 1;
 * the characteristic function e^{−|θ|^p} for every p), clipping, scaling and regeneration.
 */
class StableMatricesTest {
  private static final SecretKey KEY = SecretKey.forTesting(404);
  private static final int N = 200_000;

  private static double[] draw(double p, String label) {
    SketchMatrix m = StableMatrices.stable(KEY, label, 400, N / 400, p, Double.POSITIVE_INFINITY, 1);
    double[] x = new double[N];
    m.columns(0, m.cols(), x);
    return x;
  }

  /**
   * KS against F(x) = ½ + arctan(x)/π. P(√N·D > 1.95) ≈ 2e^{−2·1.95²} = 1.0e-3 (Kolmogorov's
   * limit law): the test falsely rejects with probability about 10⁻³ (seed: key 404, label).
   */
  @Test
  void cauchy_p1_passesKolmogorovSmirnov() {
    double[] x = draw(1, "ks");
    Arrays.sort(x);
    double d = 0;
    for (int i = 0; i < N; i++) {
      double f = 0.5 + Math.atan(x[i]) / Math.PI;
      d = Math.max(d, Math.max((i + 1.0) / N - f, f - (double) i / N));
    }
    assertTrue(Math.sqrt(N) * d < 1.95, "KS statistic sqrt(N) D = " + Math.sqrt(N) * d);
  }

  /**
   * E cos(θX) = e^{−|θ|^p} for standard symmetric p-stable X. cos is bounded by 1, so the
   * empirical mean has standard deviation ≤ √(1/(2N))·√2 = 1/√N ≈ 0.0022; 5 standard deviations
   * (normal tail 6e-7 per check, 24 checks) is the tolerance. Wrong exponents in the
   * Chambers–Mallows–Stuck formula move these values by far more (e.g. p = 1.5 vs 1.4 at θ = 2:
   * 0.059 vs 0.072).
   */
  @Test
  void characteristicFunction_isExpMinusThetaToTheP() {
    double tol = 5 / Math.sqrt(N);
    for (double p : new double[] {1, 1.2, 1.5, 1.8}) {
      double[] x = draw(p, "cf-" + p);
      for (double theta : new double[] {0.25, 0.5, 1, 1.5, 2, 3}) {
        double mean = 0;
        for (double v : x) {
          mean += Math.cos(theta * v);
        }
        mean /= N;
        assertEquals(Math.exp(-Math.pow(theta, p)), mean, tol, "p = " + p + ", theta = " + theta);
      }
    }
  }

  /** Sine moments vanish (symmetry): same bound as above. */
  @Test
  void law_isSymmetric() {
    for (double p : new double[] {1, 1.5}) {
      double[] x = draw(p, "sym-" + p);
      double mean = 0;
      for (double v : x) {
        mean += Math.sin(v);
      }
      assertEquals(0, mean / N, 5 / Math.sqrt(N), "p = " + p);
    }
  }

  /**
   * Clipping at τ and scaling by c: every entry in [−cτ, cτ]; the clipped fraction is
   * P(|X| > τ) = 1 − (2/π)arctan τ for the Cauchy (binomial, 6 standard deviations).
   */
  @Test
  void clipAndScale_boundEveryEntry_clippedFractionMatchesTheCauchyTail() {
    int rows = 20;
    SketchMatrix m = StableMatrices.stable(KEY, "clip", rows, 10_000, 1, rows, 1.0 / rows);
    double[] x = new double[rows * 10_000];
    m.columns(0, 10_000, x);
    int clipped = 0;
    for (double v : x) {
      assertTrue(Math.abs(v) <= 1.0, "entry " + v);
      if (Math.abs(v) == 1.0) {
        clipped++;
      }
    }
    double q = 1 - 2 / Math.PI * Math.atan(rows);
    double sd = Math.sqrt(x.length * q * (1 - q));
    assertEquals(x.length * q, clipped, 6 * sd);
  }

  @Test
  void columns_areRegeneratedIdentically_andLabelsAreIndependent() {
    SketchMatrix m = StableMatrices.stable(KEY, "regen", 7, 30, 1.3, 50, 0.5);
    double[] all = new double[7 * 30];
    m.columns(0, 30, all);
    for (int j = 0; j < 30; j++) {
      assertArrayEquals(Arrays.copyOfRange(all, 7 * j, 7 * j + 7), m.column(j), 0.0);
    }
    double[] mid = new double[7 * 5];
    m.columns(11, 16, mid);
    assertArrayEquals(Arrays.copyOfRange(all, 77, 112), mid, 0.0);
    double[] other = StableMatrices.stable(KEY, "regen2", 7, 30, 1.3, 50, 0.5).column(0);
    assertTrue(other[0] != all[0]);
  }

  /**
   * A public seed gives the same law through the public namespace: reproducible from the seed
   * alone, unrelated to the secret-key stream of the same bytes and label.
   */
  @Test
  void publicSeed_regeneratesTheSameMatrix_andDiffersFromTheKeyedOne() {
    PublicSeed seed = PublicSeed.parse("00".repeat(32));
    double[] a = StableMatrices.stable(seed, "pub", 5, 9, 1, 5, 0.2).column(3);
    double[] b = StableMatrices.stable(PublicSeed.parse("00".repeat(32)), "pub", 5, 9, 1, 5, 0.2)
        .column(3);
    assertArrayEquals(a, b, 0.0);
    for (double x : a) {
      assertTrue(Math.abs(x) <= 1, "clip 5 and scale 0.2 bound the entries by 1");
    }
    double[] keyed = StableMatrices.stable(SecretKey.forTesting(0), "pub", 5, 9, 1, 5, 0.2)
        .column(3);
    assertTrue(a[0] != keyed[0]);
    assertThrows(IllegalArgumentException.class, () -> StableMatrices.stable(seed, "x", 2, 2, 2, 1, 1));
  }

  @Test
  void p_outsideOneToTwo_isRejected() {
    assertThrows(IllegalArgumentException.class, () -> StableMatrices.stable(KEY, "x", 2, 2, 2, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> StableMatrices.stable(KEY, "x", 2, 2, 0.9, 1, 1));
    assertThrows(IllegalArgumentException.class,
        () -> StableMatrices.stable(KEY, "x", 2, 2, Double.NaN, 1, 1));
  }
}
