package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Privacy tested on neighbouring inputs (STYLE.md 10, after Google DP's CountDpTest): run the
 * mechanism many times on A and on a neighbour A', and check that the empirical privacy profile
 * δ̂(ε) = sup_τ [P(M(A) ≤ τ) − e^ε P(M(A') ≤ τ)] of the likelihood-ratio statistic stays within δ.
 * Half-lines of the likelihood ratio are the optimal test sets for Gaussian shifts, so this
 * supremum is the sharpest one-dimensional check there is.
 *
 * <p>Statistics. With N samples per side, each empirical CDF has standard error ≤ 0.5/√N, so
 * the estimate of P_A − e^ε P_A' at a fixed τ has standard error ≤ 0.5(1 + e^ε)/√N; over the
 * threshold grid the deviation of an empirical CDF is bounded by the DKW inequality:
 * P[sup|F̂ − F| > η] ≤ 2e^{−2Nη²}, so with η = √(ln(2/p)/(2N)) the estimate exceeds the truth
 * by more than (1 + e^ε)·η with probability < 2p. We use p = 1e-7 (false alarm < 4e-7).
 */
class NeighbouringInputsPrivacyTest {
  private static final int N = 200_000;
  private static final double EPSILON = 0.5;
  private static final double DELTA = 0.05; // large enough to be estimated from 2·10^5 samples
  private static final SecretKey KEY = SecretKey.forTesting(31);

  private static double dkwMargin(double epsilon) {
    double eta = Math.sqrt(Math.log(2 / 1e-7) / (2.0 * N));
    return (1 + Math.exp(epsilon)) * eta;
  }

  /** sup_τ [F̂_a(τ) − e^ε F̂_b(τ)] over all sample points τ. */
  static double empiricalDelta(double[] a, double[] b, double epsilon) {
    double[] sa = a.clone();
    double[] sb = b.clone();
    Arrays.sort(sa);
    Arrays.sort(sb);
    double e = Math.exp(epsilon);
    double best = 0;
    int ib = 0;
    for (int ia = 0; ia < sa.length; ia++) {
      double tau = sa[ia];
      while (ib < sb.length && sb[ib] <= tau) {
        ib++;
      }
      best = Math.max(best, (ia + 1.0) / sa.length - e * ((double) ib / sb.length));
    }
    return best;
  }

  /**
   * The noise layer every sketch uses: a query whose neighbouring values differ by exactly the
   * calibrated sensitivity Δ, released as round(q) + γ·N_Z(0, s²). The empirical δ̂ must be within
   * the budget and close to the analytic value; halved or missing noise must break the budget.
   */
  @Test
  void calibratedGridNoise_onNeighbouringQueries_staysWithinDelta_andHalvedOrMissingNoiseBreaksIt() {
    double mu = AnalyticGaussian.mu(EPSILON, DELTA);
    double sensitivity = 1.0;
    GaussianSketchNoise noise = GaussianSketchNoise.calibrate("q", sensitivity, 1, mu);
    double gamma = noise.grid().gamma();
    double q = 0.123456789; // A's query; A' is q + Δ
    double[] a = new double[N];
    double[] b = new double[N];
    RandomBits ra = KeyStream.of(KEY, "neighbours/a").bits();
    RandomBits rb = KeyStream.of(KEY, "neighbours/b").bits();
    for (int x = 0; x < N; x++) {
      a[x] = NoisyLinearSketchHelpers.round(q, gamma) + noise.grid().sample(ra);
      b[x] = NoisyLinearSketchHelpers.round(q + sensitivity, gamma) + noise.grid().sample(rb);
    }
    double margin = dkwMargin(EPSILON);
    double exact = AnalyticGaussian.delta(EPSILON, noise.sensitivity() / noise.sigma());
    double measured = empiricalDelta(a, b, EPSILON);
    assertTrue(measured <= DELTA + margin,
        "delta-hat " + measured + " > delta " + DELTA + " + " + margin + " (key seed 31)");
    assertEquals(exact, measured, margin, "empirical vs analytic privacy profile");

    double[] halvedA = new double[N];
    double[] halvedB = new double[N];
    for (int x = 0; x < N; x++) {
      halvedA[x] = q + 0.5 * (a[x] - q);
      halvedB[x] = q + sensitivity + 0.5 * (b[x] - q - sensitivity);
    }
    double halved = empiricalDelta(halvedA, halvedB, EPSILON);
    assertTrue(halved > DELTA + 2 * margin, "halved noise must break the budget: " + halved);
    double[] noneA = new double[N];
    double[] noneB = new double[N];
    Arrays.fill(noneA, q);
    Arrays.fill(noneB, q + sensitivity);
    assertEquals(1.0, empiricalDelta(noneA, noneB, EPSILON), 1e-12, "missing noise");
  }

  /**
   * The whole Priv2 mechanism on a pair of neighbouring matrices that differ in one entry by C:
   * project each release (Y, Z) on the likelihood-ratio direction of the exact sketch difference
   * d (weighted by 1/σ² per sketch); δ̂(ε) of the projections must stay within δ. One-sided: the
   * noise is calibrated to a high-probability bound on ‖DΦ‖, which a concrete pair stays well
   * below (measured δ̂ ≈ 3e-4 here, ≈ 0.015 even with halved noise), so this check guards the
   * wiring of the mechanism, while the test above is the sharp one for the calibration.
   */
  @Test
  void priv2Mechanism_onNeighbouringMatrices_staysWithinDelta() {
    SketchSizes sizes = new SketchSizes(4, 5, 1, 2, 3);
    Priv2Plan plan = Priv2Plan.calibrate(new PrivacyParams(EPSILON, DELTA), 1, sizes);
    Priv2Matrices mats = Priv2Matrices.generate(KEY, "nb", sizes, true);
    Dense base = new Dense(4, 5);
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 5; j++) {
        base.set(i, j, (i + 1) * 0.5 - j * 0.25);
      }
    }
    double[] qa = exact(plan, mats, base, -1, -1);
    // The neighbour: the entry whose unit change moves the sketch most (closest to the bound).
    double best = -1;
    int bi = 0;
    int bj = 0;
    double[] qb = null;
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 5; j++) {
        double[] cand = exact(plan, mats, base, i, j);
        double dist = weightedDistance(plan, qa, cand);
        if (dist > best) {
          best = dist;
          bi = i;
          bj = j;
          qb = cand;
        }
      }
    }
    int samples = 20_000;
    double eta = Math.sqrt(Math.log(2 / 1e-7) / (2.0 * samples));
    double measured = releasedDelta(plan, mats, base, qa, qb, bi, bj, samples, "nb");
    assertTrue(measured <= DELTA + (1 + Math.exp(EPSILON)) * eta,
        "Priv2 delta-hat " + measured + " for the neighbour differing at (" + bi + ", " + bj + ")");
  }

  /**
   * Priv2 with sparse sign embeddings: every column of Φ and S has norm exactly 1, so EVERY
   * single-entry neighbour moves (Y, Z) by exactly the calibrated sensitivity C — no tail bound
   * in between. The check is therefore sharp: δ̂(ε) of the likelihood-ratio projections must be
   * within the DKW margin of δ from above, and close to it from below (the calibration is not
   * loose: the grid-rounding slack only shrinks the shift by ~1e-9 relative). Halved noise doubles
   * the shift: δ(0.5) goes from 0.05 to ≈ 0.5, far outside the margin (≈ 0.035).
   */
  @Test
  void priv2SparseMechanism_onNeighbouringMatrices_isAtDeltaExactly() {
    SketchSizes sizes = new SketchSizes(6, 8, 1, 4, 8);
    Priv2Plan plan = Priv2Plan.calibrateSparse(new PrivacyParams(EPSILON, DELTA), 1, sizes, 4, 1);
    Priv2Matrices mats = Priv2Matrices.generate(KEY, "nbs", sizes, false, 4);
    Dense base = new Dense(6, 8);
    for (int i = 0; i < 6; i++) {
      for (int j = 0; j < 8; j++) {
        base.set(i, j, (i + 1) * 0.5 - j * 0.25);
      }
    }
    double[] qa = exact(plan, mats, base, -1, -1);
    double[] qb = exact(plan, mats, base, 2, 5);
    // Every neighbour is at the same distance, μ of the plan: √(μ_Y² + μ_Z²) = μ(ε, δ).
    double mu = AnalyticGaussian.mu(EPSILON, DELTA);
    for (int i = 0; i < 6; i++) {
      for (int j = 0; j < 8; j++) {
        assertEquals(mu, weightedDistance(plan, qa, exact(plan, mats, base, i, j)), 1e-6 * mu,
            "entry (" + i + ", " + j + ")");
      }
    }
    int samples = 20_000;
    double margin = (1 + Math.exp(EPSILON)) * Math.sqrt(Math.log(2 / 1e-7) / (2.0 * samples));
    double measured = releasedDelta(plan, mats, base, qa, qb, 2, 5, samples, "nbs");
    assertTrue(measured <= DELTA + margin, "sparse Priv2 delta-hat " + measured);
    assertTrue(measured >= DELTA - margin, "sparse Priv2 delta-hat " + measured
        + ": far below delta, the noise is larger than the calibration says");
    double halved = AnalyticGaussian.delta(EPSILON, 2 * mu);
    assertTrue(halved > DELTA + 2 * margin, "the test would catch halved noise: " + halved);
  }

  /**
   * δ̂(ε) of the whole mechanism's releases on base and on base with a unit change at (bi, bj),
   * projected on the likelihood-ratio direction of the exact sketch difference qb − qa (weighted
   * by 1/σ² per sketch), over {@code samples} node labels per side.
   */
  private static double releasedDelta(Priv2Plan plan, Priv2Matrices mats, Dense base, double[] qa,
      double[] qb, int bi, int bj, int samples, String label) {
    double[] w = new double[qa.length];
    int ySize = plan.sizes().m() * plan.sizes().t();
    for (int x = 0; x < w.length; x++) {
      double s = x < ySize ? plan.yNoise().sigma() : plan.zNoise().sigma();
      w[x] = (qb[x] - qa[x]) / (s * s);
    }
    double[] pa = new double[samples];
    double[] pb = new double[samples];
    for (int r = 0; r < samples; r++) {
      pa[r] = dot(w, released(plan, mats, base, -1, -1, label + "/a/" + r));
      pb[r] = dot(w, released(plan, mats, base, bi, bj, label + "/b/" + r));
    }
    return empiricalDelta(pa, pb, EPSILON);
  }

  private static double weightedDistance(Priv2Plan plan, double[] a, double[] b) {
    int ySize = plan.sizes().m() * plan.sizes().t();
    double s = 0;
    for (int x = 0; x < a.length; x++) {
      double sig = x < ySize ? plan.yNoise().sigma() : plan.zNoise().sigma();
      s += (a[x] - b[x]) * (a[x] - b[x]) / (sig * sig);
    }
    return Math.sqrt(s);
  }

  private static double dot(double[] w, double[] x) {
    double s = 0;
    for (int i = 0; i < w.length; i++) {
      s += w[i] * x[i];
    }
    return s;
  }

  /** Exact (noiseless) Y and Z of base, plus a unit change at (i, j) when i ≥ 0. */
  private static double[] exact(Priv2Plan plan, Priv2Matrices mats, Dense base, int i, int j) {
    Priv2Sketch s = Priv2Sketch.createWithoutNoise(plan, mats, KEY, "exact");
    return concat(feed(s, base, i, j).release());
  }

  private static double[] released(Priv2Plan plan, Priv2Matrices mats, Dense base, int i, int j,
      String node) {
    return concat(feed(Priv2Sketch.create(plan, mats, KEY, node), base, i, j).release());
  }

  private static Priv2Sketch feed(Priv2Sketch s, Dense base, int i, int j) {
    for (int r = 0; r < base.rows(); r++) {
      for (int c = 0; c < base.cols(); c++) {
        s.update(r, c, base.get(r, c));
      }
    }
    if (i >= 0) {
      s.update(i, j, 1.0);
    }
    return s;
  }

  private static double[] concat(Priv2Sketches r) {
    double[] y = r.y().data();
    double[] z = r.z().data();
    double[] out = Arrays.copyOf(y, y.length + z.length);
    System.arraycopy(z, 0, out, y.length, z.length);
    return out;
  }

  /** Access to the grid rounding the sketches apply to their queries. */
  static final class NoisyLinearSketchHelpers {
    static double round(double x, double gamma) {
      return io.dplrf.sketch.noise.GridGaussian.roundToGrid(x, gamma);
    }
  }
}
