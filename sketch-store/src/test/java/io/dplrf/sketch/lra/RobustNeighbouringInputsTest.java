package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.stats.EmpiricalDelta;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import org.junit.jupiter.api.Test;

/**
 * ROBUST-LRA on neighbouring inputs, where the check can be sharp: a 1×1 matrix
 * with t = v = 1, so each of Yr, Yc, Z is one number, the only entry attains every sensitivity
 * factor (a = |Φ₁₁|, b = |Ψ₁₁|, c·d = |S₁₁ T₁₁|), and each part is a one-dimensional grid Laplace
 * mechanism whose neighbouring outputs are shifted by exactly C·factor. Half-lines are the
 * optimal tests for a monotone likelihood ratio, so δ̂(ε_X) over them is the sharp check of
 * each part's share ε_X = ε/3 (pure DP: δ = 0).
 *
 * <p>Statistics (as NeighbouringInputsPrivacyTest): with N samples per side, DKW bounds the
 * estimate's excess by (1 + e^ε′)·η, η = √(ln(2/p)/(2N)), p = 10⁻⁷. Lower bounds that catch
 * over-noising or halved noise: for a Laplace shift of exactly b·ε_X, the left half-line at A's
 * centre gives δ(ε_X/2) ≥ ½(1 − e^{−ε_X/2}); with halved noise the loss reaches 2ε_X and
 * δ(ε_X) ≥ ½(1 − e^{−ε_X}).
 */
class RobustNeighbouringInputsTest {
  private static final int N = 20_000;
  private static final double EPSILON = 3; // ε_X = 1 per part
  private static final SecretKey KEY = SecretKey.forTesting(91);

  @Test
  void eachPart_isExactlyItsEpsilonShare_notMore_notMuchLess() {
    SketchSizes sizes = new SketchSizes(1, 1, 1, 1, 1);
    RobustMatrices mats = RobustMatrices.generate(KEY, "nb-robust", sizes, 1.0, false);
    double clip = 0.75;
    RobustPlan plan = RobustPlan.calibrate(new PrivacyParams(EPSILON, 1e-6), clip, mats);
    double[][] a = new double[3][N];
    double[][] b = new double[3][N];
    for (int r = 0; r < N; r++) {
      fill(a, r, sample(plan, mats, 0.3, "a/" + r));
      fill(b, r, sample(plan, mats, 0.3 + clip, "b/" + r));
    }
    double epsX = EPSILON / 3;
    double eta = Math.sqrt(Math.log(2 / 1e-7) / (2.0 * N));
    LaplaceSketchNoise[] parts = {plan.yr(), plan.yc(), plan.z()};
    for (int x = 0; x < 3; x++) {
      double shift = clip * (x == 0 ? mats.phiFactor() : x == 1 ? mats.psiFactor() : mats.stFactor());
      assertEquals(epsX, shift / parts[x].scale(), 1e-6 * epsX, "calibrated shift of " + x);
      // Orient so that A's outputs are the smaller ones (the sketch value may move either way).
      double sign = Math.signum(median(b[x]) - median(a[x]));
      double[] sa = scaled(a[x], sign);
      double[] sb = scaled(b[x], sign);
      double within = EmpiricalDelta.of(sa, sb, epsX);
      assertTrue(within <= (1 + Math.exp(epsX)) * eta, parts[x].sketch() + ": delta-hat("
          + epsX + ") = " + within + " (key seed 91)");
      double half = EmpiricalDelta.of(sa, sb, epsX / 2);
      double tight = 0.5 * (1 - Math.exp(-epsX / 2));
      assertTrue(half >= tight - (1 + Math.exp(epsX / 2)) * eta, parts[x].sketch()
          + ": delta-hat(eps/2) = " + half + " < " + tight + ": more noise than calibrated");
      double[] ha = halved(a[x], 0.3, sign, parts[x], x, mats);
      double[] hb = halved(b[x], 0.3 + clip, sign, parts[x], x, mats);
      double broken = EmpiricalDelta.of(ha, hb, epsX);
      assertTrue(broken > (1 + Math.exp(epsX)) * eta + 0.1, parts[x].sketch()
          + ": halved noise must break the share: " + broken);
    }
  }

  private static double[] sample(RobustPlan plan, RobustMatrices mats, double value, String label) {
    RobustSketch s = RobustSketch.create(plan, mats, KEY, "nb-robust/" + label);
    s.update(0, 0, value);
    RobustSketches r = s.release();
    return new double[] {r.yr().get(0, 0), r.yc().get(0, 0), r.z().get(0, 0)};
  }

  private static void fill(double[][] dst, int r, double[] v) {
    for (int x = 0; x < 3; x++) {
      dst[x][r] = v[x];
    }
  }

  /** The same releases with the noise halved around the exact (unrounded) sketch value. */
  private static double[] halved(double[] noisy, double value, double sign, LaplaceSketchNoise n,
      int part, RobustMatrices mats) {
    double q = value * (part == 0 ? mats.phi.data()[0] : part == 1 ? mats.psiT.data()[0]
        : mats.s.data()[0] * mats.tT.data()[0]);
    double[] out = new double[noisy.length];
    for (int r = 0; r < noisy.length; r++) {
      out[r] = sign * (q + 0.5 * (noisy[r] - q));
    }
    return out;
  }

  private static double[] scaled(double[] x, double sign) {
    double[] out = new double[x.length];
    for (int r = 0; r < x.length; r++) {
      out[r] = sign * x[r];
    }
    return out;
  }

  private static double median(double[] x) {
    double[] s = x.clone();
    java.util.Arrays.sort(s);
    return s[s.length / 2];
  }
}
