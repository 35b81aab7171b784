package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.stats.EmpiricalDelta;
import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Privacy tested on neighbouring inputs (after Google DP's CountDpTest): run the
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
    double measured = EmpiricalDelta.of(a, b, EPSILON);
    assertTrue(measured <= DELTA + margin,
        "delta-hat " + measured + " > delta " + DELTA + " + " + margin + " (key seed 31)");
    assertEquals(exact, measured, margin, "empirical vs analytic privacy profile");

    double[] halvedA = new double[N];
    double[] halvedB = new double[N];
    for (int x = 0; x < N; x++) {
      halvedA[x] = q + 0.5 * (a[x] - q);
      halvedB[x] = q + sensitivity + 0.5 * (b[x] - q - sensitivity);
    }
    double halved = EmpiricalDelta.of(halvedA, halvedB, EPSILON);
    assertTrue(halved > DELTA + 2 * margin, "halved noise must break the budget: " + halved);
    double[] noneA = new double[N];
    double[] noneB = new double[N];
    Arrays.fill(noneA, q);
    Arrays.fill(noneB, q + sensitivity);
    assertEquals(1.0, EmpiricalDelta.of(noneA, noneB, EPSILON), 1e-12, "missing noise");
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

  // ---- entrywise-ℓ1 neighbours: the key and row privacy units (docs/privacy/l1-units.md) ----

  private static final SketchSizes L1_SIZES = new SketchSizes(6, 20, 1, 4, 8);
  private static final int L1_SAMPLES = 20_000;

  private static double l1Margin() {
    return (1 + Math.exp(EPSILON)) * Math.sqrt(Math.log(2 / 1e-7) / (2.0 * L1_SAMPLES));
  }

  private static Dense l1Base() {
    Dense base = new Dense(L1_SIZES.m(), L1_SIZES.n());
    for (int i = 0; i < base.rows(); i++) {
      for (int j = 0; j < base.cols(); j++) {
        base.set(i, j, (i + 1) * 0.5 - j * 0.25);
      }
    }
    return base;
  }

  /**
   * Every change spending an ℓ1 budget C = 1 over two distinct entries (Δ = ±½ each), within one
   * row when {@code sameRow}; the one that moves (Y, Z) most, by {@link #weightedDistance}.
   */
  private static double[][] worstPair(Priv2Plan plan, Priv2Matrices mats, Dense base,
      double[] qa, boolean sameRow) {
    double best = -1;
    double[][] worst = null;
    int m = L1_SIZES.m();
    int n = L1_SIZES.n();
    for (int a = 0; a < m * n; a++) {
      for (int b = a + 1; b < m * n; b++) {
        if (sameRow && a / n != b / n) {
          continue;
        }
        for (double sign : new double[] {1, -1}) {
          double[][] change = {{a / n, a % n, 0.5}, {b / n, b % n, 0.5 * sign}};
          double d = weightedDistance(plan, qa, exact(plan, mats, base, change));
          assertTrue(d <= AnalyticGaussian.mu(EPSILON, DELTA) * (1 + 1e-9),
              "an l1 change moved the sketches by " + d + " > mu");
          if (d > best) {
            best = d;
            worst = change;
          }
        }
      }
    }
    return worst;
  }

  /**
   * The empirical privacy profile of a neighbour adding {@code change} sits at the exact δ(ε) of
   * its shift μ′ = ‖(ΔY/σ_Y, ΔZ/σ_Z)‖ (two-sided, within the DKW margin), which is within the
   * budget; with the noise halved the same releases break the budget.
   */
  private static void assertAtItsExactDelta(Priv2Plan plan, Priv2Matrices mats, Dense base,
      double[] qa, double[][] change, String label) {
    double[] qb = exact(plan, mats, base, change);
    double shift = weightedDistance(plan, qa, qb);
    double exact = AnalyticGaussian.delta(EPSILON, shift);
    double margin = l1Margin();
    double measured = releasedDelta(plan, mats, base, qa, qb, change, L1_SAMPLES, label, 1.0);
    assertTrue(exact <= DELTA * (1 + 1e-6), label + ": exact delta " + exact + " > " + DELTA);
    assertEquals(exact, measured, margin, label + ": delta-hat vs the exact profile at mu' = "
        + shift + " (key seed 31)");
    double halved = releasedDelta(plan, mats, base, qa, qb, change, L1_SAMPLES, label, 0.5);
    assertTrue(halved > DELTA + 2 * margin, label + ": halved noise must break the budget: "
        + halved);
  }

  /**
   * A key unit (updates anywhere, Σ|Δ| ≤ C) against priv2-sparse: (1) its budget split over three
   * updates of one cell is a single-entry difference and sits at δ exactly; (2) spread over two
   * cells, every choice moves the sketches by at most μ (Lemma 1), and the worst one sits at its
   * own exact δ(μ′) ≤ δ. Halved noise breaks both.
   */
  @Test
  void priv2Sparse_keyUnitSpreadOverEntries_isWithinDeltaAndAtItsExactProfile() {
    Priv2Plan plan = Priv2Plan.calibrateSparse(new PrivacyParams(EPSILON, DELTA), 1, L1_SIZES, 4, 1);
    Priv2Matrices mats = Priv2Matrices.generate(KEY, "l1key", L1_SIZES, false, 4);
    Dense base = l1Base();
    double[] qa = exact(plan, mats, base, NONE);
    double[][] split = {{3, 7, 0.25}, {3, 7, 0.5}, {3, 7, 0.25}};
    assertEquals(AnalyticGaussian.mu(EPSILON, DELTA),
        weightedDistance(plan, qa, exact(plan, mats, base, split)), 1e-6, "split over updates");
    assertAtItsExactDelta(plan, mats, base, qa, split, "l1key/split");
    assertAtItsExactDelta(plan, mats, base, qa, worstPair(plan, mats, base, qa, false),
        "l1key/pair");
  }

  /** A row unit (updates to one row, Σ|Δ| ≤ C): as the key unit, within one row. */
  @Test
  void priv2Sparse_rowUnitSpreadOverItsColumns_isWithinDeltaAndAtItsExactProfile() {
    Priv2Plan plan = Priv2Plan.calibrateSparse(new PrivacyParams(EPSILON, DELTA), 1, L1_SIZES, 4, 1);
    Priv2Matrices mats = Priv2Matrices.generate(KEY, "l1row", L1_SIZES, false, 4);
    Dense base = l1Base();
    double[] qa = exact(plan, mats, base, NONE);
    double[][] worst = worstPair(plan, mats, base, qa, true);
    assertEquals(worst[0][0], worst[1][0], "one row");
    assertAtItsExactDelta(plan, mats, base, qa, worst, "l1row/pair");
  }

  /**
   * The counterexample of docs/privacy/sparse-embeddings.md §4: C/√2 on two entries of one row
   * whose rows of Φ are equal up to sign. ‖D‖_F = C, so it is a Frobenius neighbour, but ‖D‖₁ =
   * √2·C: outside the ℓ1 relation priv2-sparse claims. Its shift exceeds μ and the releases break
   * the budget, which is why priv2-sparse never claims the Frobenius relation.
   */
  @Test
  void priv2Sparse_frobeniusCounterexample_isOutsideTheClaim() {
    Priv2Plan plan = Priv2Plan.calibrateSparse(new PrivacyParams(EPSILON, DELTA), 1, L1_SIZES, 4, 1);
    assertEquals(NeighbouringRelation.ENTRYWISE_L1, plan.relation());
    Priv2Matrices mats = Priv2Matrices.generate(KEY, "l1frob", L1_SIZES, false, 4);
    // t = 4, s = 4: a row of Φ is a sign pattern (±½, ±½, ±½, ±½); 20 columns in 8 classes up to
    // sign, so two of them collide.
    int j1 = -1;
    int j2 = -1;
    double sign = 0;
    for (int a = 0; a < L1_SIZES.n() && j1 < 0; a++) {
      double[] ra = mats.phiT.column(a);
      for (int b = a + 1; b < L1_SIZES.n() && j1 < 0; b++) {
        double[] rb = mats.phiT.column(b);
        for (double sg : new double[] {1, -1}) {
          boolean same = true;
          for (int x = 0; x < ra.length; x++) {
            same &= ra[x] == sg * rb[x];
          }
          if (same) {
            j1 = a;
            j2 = b;
            sign = sg;
          }
        }
      }
    }
    assertTrue(j1 >= 0, "pigeonhole: two rows of Phi are equal up to sign");
    double c = 1 / Math.sqrt(2);
    double[][] d = {{2, j1, c}, {2, j2, c * sign}};
    assertEquals(1.0, Math.hypot(d[0][2], d[1][2]), 1e-15, "Frobenius norm C");
    assertTrue(Math.abs(d[0][2]) + Math.abs(d[1][2]) > 1.4, "l1 norm sqrt(2) C > C");
    Dense base = l1Base();
    double[] qa = exact(plan, mats, base, NONE);
    double[] qb = exact(plan, mats, base, d);
    double mu = AnalyticGaussian.mu(EPSILON, DELTA);
    assertEquals(mu * Math.sqrt(1.5), weightedDistance(plan, qa, qb), 1e-6, "shift sqrt(3/2) mu");
    double exact = AnalyticGaussian.delta(EPSILON, mu * Math.sqrt(1.5));
    assertTrue(exact > DELTA * 1.5, "outside the claim: exact delta " + exact);
    double measured = releasedDelta(plan, mats, base, qa, qb, d, L1_SAMPLES, "l1frob", 1.0);
    assertEquals(exact, measured, l1Margin(), "the releases follow the shift (key seed 31)");
  }

  /**
   * Dense Priv2 under ℓ1 neighbours: sensitivities C·max_j‖row j of Φ‖ and C·max_i‖column i of S‖
   * of the drawn matrices, no δ_JL. The entry (i*, j*) at both maxima moves the sketches by μ
   * exactly (the bound is attained, so it is not loose), no entry by more, and its releases sit
   * at δ; halved noise breaks it. The χ² plan for Frobenius neighbours needs more noise here.
   */
  @Test
  void priv2Dense_l1Calibration_worstEntryIsAtMuAndAtDelta() {
    PrivacyParams privacy = new PrivacyParams(EPSILON, DELTA);
    Priv2Matrices mats = Priv2Matrices.generate(KEY, "l1dense", L1_SIZES, false);
    Priv2Plan plan = Priv2Plan.calibrateL1(privacy, 1, mats, 1, 1);
    assertEquals(NeighbouringRelation.ENTRYWISE_L1, plan.relation());
    assertEquals(0, plan.jlDeltaShare());
    Dense base = l1Base();
    double[] qa = exact(plan, mats, base, NONE);
    double mu = AnalyticGaussian.mu(EPSILON, DELTA);
    double best = -1;
    int bi = 0;
    int bj = 0;
    for (int i = 0; i < L1_SIZES.m(); i++) {
      for (int j = 0; j < L1_SIZES.n(); j++) {
        double d = weightedDistance(plan, qa, exact(plan, mats, base, i, j));
        assertTrue(d <= mu * (1 + 1e-12), "entry (" + i + ", " + j + "): " + d + " > " + mu);
        if (d > best) {
          best = d;
          bi = i;
          bj = j;
        }
      }
    }
    assertEquals(mu, best, 1e-6 * mu, "the largest row of Phi and column of S meet at one entry");
    assertAtItsExactDelta(plan, mats, base, qa, entry(bi, bj, 1.0), "l1dense");
    Priv2Plan frobenius = Priv2Plan.calibrate(privacy, 1, L1_SIZES);
    assertTrue(frobenius.yNoise().sigma() > plan.yNoise().sigma()
        && frobenius.zNoise().sigma() > plan.zNoise().sigma(), "chi-square factors and delta_JL");
  }

  /**
   * δ̂(ε) of the whole mechanism's releases on base and on base with a unit change at (bi, bj),
   * projected on the likelihood-ratio direction of the exact sketch difference qb − qa (weighted
   * by 1/σ² per sketch), over {@code samples} node labels per side.
   */
  private static double releasedDelta(Priv2Plan plan, Priv2Matrices mats, Dense base, double[] qa,
      double[] qb, int bi, int bj, int samples, String label) {
    return releasedDelta(plan, mats, base, qa, qb, entry(bi, bj, 1.0), samples, label, 1.0);
  }

  /**
   * As above for a neighbour that adds the updates {@code change} (rows (i, j, Δ)); the noise
   * part of every release is multiplied by {@code noiseFactor} (0.5: halved noise).
   */
  private static double releasedDelta(Priv2Plan plan, Priv2Matrices mats, Dense base, double[] qa,
      double[] qb, double[][] change, int samples, String label, double noiseFactor) {
    double[] w = new double[qa.length];
    int ySize = plan.sizes().m() * plan.sizes().t();
    for (int x = 0; x < w.length; x++) {
      double s = x < ySize ? plan.yNoise().sigma() : plan.zNoise().sigma();
      w[x] = (qb[x] - qa[x]) / (s * s);
    }
    double[] pa = new double[samples];
    double[] pb = new double[samples];
    for (int r = 0; r < samples; r++) {
      double ea = dot(w, qa);
      double eb = dot(w, qb);
      pa[r] = ea + noiseFactor * (dot(w, released(plan, mats, base, NONE, label + "/a/" + r)) - ea);
      pb[r] = eb + noiseFactor * (dot(w, released(plan, mats, base, change, label + "/b/" + r)) - eb);
    }
    return EmpiricalDelta.of(pa, pb, EPSILON);
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

  private static final double[][] NONE = new double[0][];

  /** One update (i, j, Δ); none when i < 0. */
  private static double[][] entry(int i, int j, double delta) {
    return i < 0 ? NONE : new double[][] {{i, j, delta}};
  }

  /** Exact (noiseless) Y and Z of base, plus a unit change at (i, j) when i ≥ 0. */
  private static double[] exact(Priv2Plan plan, Priv2Matrices mats, Dense base, int i, int j) {
    return exact(plan, mats, base, entry(i, j, 1.0));
  }

  /** Exact (noiseless) Y and Z of base plus the updates {@code change}. */
  private static double[] exact(Priv2Plan plan, Priv2Matrices mats, Dense base,
      double[][] change) {
    Priv2Sketch s = Priv2Sketch.createWithoutNoise(plan, mats, KEY, "exact");
    return concat(feed(s, base, change).release());
  }

  private static double[] released(Priv2Plan plan, Priv2Matrices mats, Dense base,
      double[][] change, String node) {
    return concat(feed(Priv2Sketch.create(plan, mats, KEY, node), base, change).release());
  }

  private static Priv2Sketch feed(Priv2Sketch s, Dense base, double[][] change) {
    for (int r = 0; r < base.rows(); r++) {
      for (int c = 0; c < base.cols(); c++) {
        s.update(r, c, base.get(r, c));
      }
    }
    for (double[] u : change) {
      s.update((int) u[0], (int) u[1], u[2]);
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
