package io.dplrf.sketch.pca;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.GaussianDilation;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.stats.ChiSquare;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class SmoothSensitivityTest {
  private static final long SEED = 606;
  private static final double FALSE_ALARM = 1e-7;
  private final SecretKey key = SecretKey.forTesting(SEED);

  /**
   * Pinned calibration for d = 64, k = 10 (D = 640), C = 1, ε = 1, δ = 1e-6 — the numbers of
   * docs/privacy/smooth-sensitivity.md §5 — and the paper's Theorem 9 constants beside them.
   */
  @Test
  void plans_pinnedConstants_matchTheDerivation() {
    SmoothSensitivityPlan g = SmoothSensitivityPlan.gaussian(new PrivacyParams(1, 1e-6), 1, 64, 10);
    assertEquals(0.5, g.epsilonSliding());
    assertEquals(0.5, g.epsilonDilation());
    assertEquals(5e-7, g.deltaSliding(), 1e-22);
    assertEquals(5e-7 * Math.exp(-0.5), g.deltaDilation(), 1e-20);
    assertEquals(1e-6, g.deltaSliding() + Math.exp(g.epsilonSliding()) * g.deltaDilation(), 1e-21);
    assertEquals(AnalyticGaussian.mu(0.5, 5e-7), g.slidingFactor());
    assertEquals(0.119785, g.slidingFactor(), 1e-6);
    assertEquals(GaussianDilation.maxBeta(640, 0.5, 5e-7 * Math.exp(-0.5)), g.beta(), 1e-11);
    assertEquals(2.79481e-3, g.beta(), 1e-8);
    // Paper 003 Thm 9 (NRS): β = ε/(4(D + ln(2/δ))) and σ = 5√(2 ln(2/δ))/ε per unit of U.
    double paperBeta = 1 / (4 * (640 + Math.log(2e6)));
    double paperFactor = 1 / (5 * Math.sqrt(2 * Math.log(2e6)));
    assertTrue(g.beta() > 7 * paperBeta && g.slidingFactor() > 3 * paperFactor);

    SmoothSensitivityPlan c = SmoothSensitivityPlan.cauchy(1, 1, 64, 10);
    assertEquals(0, c.delta());
    assertEquals(0.5 / 640, c.beta(), 1e-18);
    assertEquals(2 * Math.sqrt(640) * Math.sinh(0.5 / 1280), c.slidingFactor(), 1e-17);
    assertEquals(0.0197642, c.slidingFactor(), 1e-7);
    // The sliding loss at that shift is exactly ε_s: 2D asinh(a/(2√D)).
    assertEquals(0.5, 2 * 640 * asinh(c.slidingFactor() / (2 * Math.sqrt(640))), 1e-12);
    // Paper 003 Thm 9 (NRS), pure: β = ε/(6d), scale 6·U₁/ε with U₁ = √D·U (ℓ1 via ℓ2).
    assertTrue(c.beta() > 2.9 / (6 * 640.0) && c.slidingFactor() > 2.9 / (6 * Math.sqrt(640)));

    assertEquals(Math.nextUp((1.5 + g.roundingSlack()) / g.slidingFactor()), g.noiseScale(1.5), 0.0); // rounded up
    assertEquals(SmoothSensitivityPlan.SCALE_FLOOR, g.noiseScale(0));
    assertEquals(0x1.0p-60 * Math.sqrt(640), g.roundingSlack(), 1e-30);
  }

  private static double asinh(double x) {
    return Math.log(x + Math.sqrt(x * x + 1));
  }

  @Test
  void plan_rejectsBadParameters() {
    assertThrows(IllegalArgumentException.class, () -> SmoothSensitivityPlan.cauchy(0, 1, 5, 2));
    assertThrows(IllegalArgumentException.class, () -> SmoothSensitivityPlan.cauchy(1, 1, 5, 6));
    assertThrows(IllegalArgumentException.class,
        () -> SmoothSensitivityPlan.gaussian(new PrivacyParams(1, 1e-6), -1, 5, 2));
  }

  /** A diagonal Gram (rows along the axes): eigenvalues = counts, eigenvectors = the axes. */
  static Gram axisGram(int d, int[] counts) {
    Gram g = new Gram(d, 1);
    for (int j = 0; j < counts.length; j++) {
      double[] row = new double[d];
      row[j] = 0.9;
      for (int c = 0; c < counts[j]; c++) {
        g.addRow(row);
      }
    }
    return g;
  }

  static Dense axes(int d, int k) {
    Dense b = new Dense(d, k);
    for (int c = 0; c < k; c++) {
      b.set(c, c, 1);
    }
    return b;
  }

  static double[] eigen(int d, int[] counts, int m) {
    double[] l = new double[m];
    for (int j = 0; j < m; j++) {
      l[j] = j < counts.length ? counts[j] * 0.81 : 0;
    }
    return l;
  }

  /** E = released − ÛR for one run, with R regenerated from the same key and label. */
  private double[] noiseOf(SmoothSensitivity.Perturbed p, Dense basis, String label) {
    int d = basis.rows();
    int k = basis.cols();
    Dense r = HaarRotation.draw(key, label + "/R", k);
    double[] e = new double[d * k];
    for (int j = 0; j < k; j++) {
      for (int i = 0; i < d; i++) {
        double rot = 0;
        for (int q = 0; q < k; q++) {
          rot += basis.get(i, q) * r.get(q, j);
        }
        e[j * d + i] = p.noisyBasis().get(i, j) - rot;
      }
    }
    return e;
  }

  private static final int D = 20;
  private static final int K = 3;
  private static final int[] COUNTS = {60, 50, 40, 10, 9, 8, 7, 6};

  /**
   * Gaussian variant: 60 runs (fresh labels) on the same input, N = 60·d·k = 3600 noise values
   * E = released − ÛR; Σ E²/σ² ~ χ²_N with σ the scale the derivation prescribes,
   * (U + γ√D)/μ_s. Rejected when either tail is below 1e-7 (false alarm < 2e-7); the same test
   * rejects the noise halved and the noise missing.
   */
  @Test
  void gaussian_noiseHasTheDerivedScale_failsIfHalvedOrMissing() {
    SmoothSensitivityPlan plan = SmoothSensitivityPlan.gaussian(new PrivacyParams(1, 1e-6), 1, D, K);
    Gram gram = axisGram(D, COUNTS);
    double ss = 0;
    double sigma = 0;
    int n = 0;
    for (int run = 0; run < 60; run++) {
      String label = "ss-gauss/" + run;
      SmoothSensitivity.Perturbed p = SmoothSensitivity.perturb(
          plan, gram, axes(D, K), eigen(D, COUNTS, K + 1), key, label);
      sigma = p.notPrivate().noiseScale();
      for (double e : noiseOf(p, axes(D, K), label)) {
        ss += e * e;
        n++;
      }
    }
    double gap = 0.81 * (40 - 10);
    // U for β − margin, rounded up (SmoothSensitivity.release), then the plan's affine map.
    double u = Math.nextUp(SubspaceSensitivity.smoothBound(gap, 1, D, K,
        plan.beta() - SmoothSensitivity.BETA_MARGIN));
    assertEquals((u + plan.roundingSlack()) / plan.slidingFactor(), sigma, 1e-15 * sigma);
    double stat = ss / (sigma * sigma);
    assertTrue(accepts(stat, n), "chi2 " + stat + " N = " + n + " seed " + SEED);
    assertFalse(accepts(stat / 4, n), "halved noise would pass");
    assertFalse(accepts(0, n), "missing noise would pass");
  }

  private static boolean accepts(double stat, int df) {
    double upper = ChiSquare.upperTail(stat, df);
    return upper > FALSE_ALARM && 1 - upper > FALSE_ALARM;
  }

  /**
   * Cauchy variant: the scale b is the median of |E| (Cauchy quartiles), so the count of
   * |E| > b over N = 3600 values is Binomial(N, 1/2) to within O(2^−20); two-sided z-test at
   * false alarm 1e-6. Halved noise has P[|E/2| > b] = P[|Z| > 2] ≈ 0.295 and is rejected, as is
   * missing noise.
   */
  @Test
  void cauchy_noiseHasTheDerivedScale_failsIfHalvedOrMissing() {
    SmoothSensitivityPlan plan = SmoothSensitivityPlan.cauchy(2, 1, D, K);
    Gram gram = axisGram(D, COUNTS);
    int above = 0;
    int aboveHalved = 0;
    int n = 0;
    double b = 0;
    for (int run = 0; run < 60; run++) {
      String label = "ss-cauchy/" + run;
      SmoothSensitivity.Perturbed p = SmoothSensitivity.perturb(
          plan, gram, axes(D, K), eigen(D, COUNTS, K + 1), key, label);
      b = p.notPrivate().noiseScale();
      for (double e : noiseOf(p, axes(D, K), label)) {
        above += Math.abs(e) > b ? 1 : 0;
        aboveHalved += Math.abs(e / 2) > b ? 1 : 0;
        n++;
      }
    }
    double u = Math.nextUp(SubspaceSensitivity.smoothBound(0.81 * 30, 1, D, K,
        plan.beta() - SmoothSensitivity.BETA_MARGIN));
    assertEquals((u + plan.roundingSlack()) / plan.slidingFactor(), b, 1e-15 * b);
    double limit = ChiSquare.Z_1E6_TWO_SIDED * Math.sqrt(n) / 2;
    assertTrue(Math.abs(above - n / 2.0) <= limit, above + " of " + n + " seed " + SEED);
    assertFalse(Math.abs(aboveHalved - n / 2.0) <= limit, "halved noise would pass");
    assertFalse(Math.abs(0 - n / 2.0) <= limit, "missing noise would pass");
  }

  @Test
  void diagnostics_andLabels_areThoseOfTheDerivation() {
    SmoothSensitivityPlan plan = SmoothSensitivityPlan.gaussian(new PrivacyParams(1, 1e-6), 1, D, K);
    Gram gram = axisGram(D, COUNTS);
    SmoothSensitivity.Perturbed a = SmoothSensitivity.perturb(
        plan, gram, axes(D, K), eigen(D, COUNTS, K + 1), key, "lbl");
    SmoothSensitivity.Perturbed b = SmoothSensitivity.perturb(
        plan, gram, axes(D, K), eigen(D, COUNTS, K + 1), key, "lbl");
    SmoothSensitivity.Perturbed c = SmoothSensitivity.perturb(
        plan, gram, axes(D, K), eigen(D, COUNTS, K + 1), key, "other");
    assertEquals(a.noisyBasis(), b.noisyBasis(), "a label's noise is a pure function of (key, label)");
    assertNotEquals(a.noisyBasis(), c.noisyBasis());
    assertEquals(0.81 * 30, a.notPrivate().gap(), 1e-12);
    assertEquals(SubspaceSensitivity.localBound(0.81 * 30, 1, D, K), a.notPrivate().localBound(), 1e-12);
  }

  @Test
  void wrongOracleOutput_isRefused() {
    SmoothSensitivityPlan plan = SmoothSensitivityPlan.gaussian(new PrivacyParams(1, 1e-6), 1, D, K);
    Gram gram = axisGram(D, COUNTS);
    Dense notEigen = axes(D, K);
    notEigen.set(0, 0, Math.sqrt(0.5));
    notEigen.set(5, 0, Math.sqrt(0.5));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SmoothSensitivity.perturb(plan, gram, notEigen, eigen(D, COUNTS, K + 1), key, "x"));
    assertTrue(e.getMessage().contains("not an eigenvector"), e.getMessage());
    double[] unsorted = {10, 20, 30, 1};
    assertThrows(IllegalArgumentException.class,
        () -> SmoothSensitivity.perturb(plan, gram, axes(D, K), unsorted, key, "x"));
    assertThrows(IllegalArgumentException.class,
        () -> SmoothSensitivity.perturb(plan, new Gram(D, 2), axes(D, K), eigen(D, COUNTS, K + 1), key, "x"));
  }

  @Test
  void toGrid_roundsExactly_halvesAwayFromZero() {
    double g = 0x1.0p-60;
    assertEquals(BigInteger.valueOf(3), SmoothSensitivity.toGrid(2.5 * g, g));
    assertEquals(BigInteger.valueOf(-3), SmoothSensitivity.toGrid(-2.5 * g, g));
    assertEquals(BigInteger.ONE.shiftLeft(60), SmoothSensitivity.toGrid(1.0, g));
    assertEquals(BigInteger.valueOf(2), SmoothSensitivity.toGrid(2.4999 * g, g));
  }

  /** R is orthogonal; for k = 1 it is ±1 and both signs occur. */
  @Test
  void haarRotation_isOrthogonal_andASignForKEqualsOne() {
    for (int k : new int[] {1, 2, 5, 30}) {
      Dense r = HaarRotation.draw(key, "rot/" + k, k);
      for (int a = 0; a < k; a++) {
        for (int b = 0; b < k; b++) {
          double dot = 0;
          for (int i = 0; i < k; i++) {
            dot += r.get(i, a) * r.get(i, b);
          }
          assertEquals(a == b ? 1 : 0, dot, 1e-14, "k=" + k);
        }
      }
    }
    int plus = 0;
    for (int i = 0; i < 200; i++) {
      double s = HaarRotation.draw(key, "sign/" + i, 1).get(0, 0);
      assertEquals(1, Math.abs(s));
      plus += s > 0 ? 1 : 0;
    }
    assertTrue(plus > 50 && plus < 150, "plus=" + plus + " seed " + SEED);
  }

  /**
   * Haar sanity: for R Haar on O(k), E[R_11²] = 1/k; with 4000 draws for k = 4 the mean of R_11²
   * (variance (k−1)·2/(k²(k+2)) = 1/16) is within 5 standard errors of 1/4.
   */
  @Test
  void haarRotation_firstEntrySquared_hasMeanOneOverK() {
    int k = 4;
    int n = 4000;
    double sum = 0;
    for (int i = 0; i < n; i++) {
      double x = HaarRotation.draw(key, "haar/" + i, k).get(0, 0);
      sum += x * x;
    }
    assertEquals(0.25, sum / n, 5 * Math.sqrt(1.0 / 16 / n), "seed " + SEED);
  }
}
