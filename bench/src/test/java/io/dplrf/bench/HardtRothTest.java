package io.dplrf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.io.SyntheticMatrix;
import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.ChiSquare;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.GaussianMatrices;
import io.dplrf.sketch.randomness.SecretKey;
import org.junit.jupiter.api.Test;

/** The Hardt–Roth baseline: its calibration, its algebra without noise, its pruning. */
class HardtRothTest {
  private static final PrivacyParams PRIVACY = new PrivacyParams(1, 1e-6);
  private static final SecretKey KEY = SecretKey.forTesting(7);

  /**
   * Each stage is calibrated as dplrf calibrates a sketch: σ_eff = γ·s with (Δ₀ + γ√changed)/σ_eff
   * ≤ μ/√2 and no more than one grid step (relative 2⁻³⁰) above that, μ the analytic Gaussian's at
   * (ε, 0.9δ), and Δ₀ = C times the stated bound: the χ² quantile of ℓ‖Ωᵀv‖² for a rank-one
   * change, and ‖Q‖₂ = 1 (to rounding) for the orthonormal Q of stage B.
   */
  @Test
  void rankOne_noiseScalesComeFromTheStatedSensitivities() {
    int k = 3;
    int p = 2;
    double clip = 2;
    Dense a = SyntheticMatrix.lowRank(60, 40, 3, 5, 1);
    HardtRoth hr = new HardtRoth(NeighbouringRelation.RANK_ONE, PRIVACY, clip, k, p, false);
    HardtRoth.Result r = hr.run(a, KEY, "test/rank-one");
    double mu = AnalyticGaussian.mu(1, 0.9e-6);
    assertEquals(mu, hr.mu(), 0);
    double chi = Math.sqrt(ChiSquare.upperQuantile(0.1e-6, k + p) / (k + p));
    assertEquals(clip * chi, r.rangeNoise().baseSensitivity(), 1e-12);
    assertEquals(clip, r.projectionNoise().baseSensitivity(), 1e-6);
    assertCalibrated(r.rangeNoise(), 60L * (k + p), mu / Math.sqrt(2));
    assertCalibrated(r.projectionNoise(), 40L * (k + p), mu / Math.sqrt(2));
    assertEquals(0, r.pruned());
  }

  /** Frobenius neighbours: stage A's factor is the Chernoff bound of Priv2Plan's Y, at δ_JL. */
  @Test
  void frobenius_rangeSensitivityIsTheChernoffBoundOfAMixtureOfChiSquares() {
    HardtRoth hr = new HardtRoth(NeighbouringRelation.FROBENIUS, PRIVACY, 1, 4, 4, false);
    HardtRoth.Result r = hr.run(SyntheticMatrix.lowRank(50, 50, 2, 5, 2), KEY, "test/frob");
    assertEquals(Math.sqrt(ChiSquare.chernoffQuantileOfMean(0.1e-6, 8)),
        r.rangeNoise().baseSensitivity(), 1e-12);
    assertCalibrated(r.rangeNoise(), 50L * 8, AnalyticGaussian.mu(1, 0.9e-6) / Math.sqrt(2));
  }

  /**
   * Entrywise ℓ1: no δ_JL (μ at the full δ), stage A's factor is the largest row norm of the drawn
   * Ω (regenerated here from the same key and label), stage B's the largest row norm of Q̃ —
   * at most c·√ℓ after pruning at c.
   */
  @Test
  void entrywiseL1_usesTheDrawnMatricesRowNorms() {
    int m = 80;
    int n = 30;
    int l = 6;
    HardtRoth hr = new HardtRoth(NeighbouringRelation.ENTRYWISE_L1, PRIVACY, 1, 3, 3, false);
    HardtRoth.Result r = hr.run(SyntheticMatrix.lowRank(m, n, 3, 5, 3), KEY, "test/l1");
    assertEquals(AnalyticGaussian.mu(1, 1e-6), hr.mu(), 0);
    double[] omega = new double[n * l];
    GaussianMatrices.gaussian(KEY, "test/l1/omega", l, n, 1 / Math.sqrt(l)).columns(0, n, omega);
    assertEquals(HardtRoth.maxRowNorm(omega, n, l), r.rangeNoise().baseSensitivity(), 0);
    assertTrue(r.projectionNoise().baseSensitivity() <= hr.pruneLevel(m) * Math.sqrt(l) * (1 + 1e-12));
  }

  /**
   * A coherent matrix (all its mass in one row): the range basis has an entry near 1 in that row,
   * above c = √(2 ln(2mℓ)/m) ≈ 0.42 at m = 80, so stage B prunes it, and the row norms that set
   * stage B's sensitivity stay below c·√ℓ instead of reaching 1.
   */
  @Test
  void entrywiseL1_prunesACoherentRow() {
    Dense a = new Dense(80, 30);
    for (int j = 0; j < 30; j++) {
      a.set(5, j, 10 + j);
    }
    HardtRoth hr = new HardtRoth(NeighbouringRelation.ENTRYWISE_L1, PRIVACY, 1, 2, 2, false);
    HardtRoth.Result r = hr.run(a, KEY, "test/coherent");
    assertTrue(r.pruned() >= 1, "pruned " + r.pruned());
    assertTrue(r.projectionNoise().baseSensitivity() < 0.9, "" + r.projectionNoise());
    HardtRoth unpruned = new HardtRoth(NeighbouringRelation.FROBENIUS, PRIVACY, 1, 2, 2, false);
    assertEquals(0, unpruned.run(a, KEY, "test/coherent2").pruned());
  }

  /**
   * Without noise the two stages are Halko–Martinsson–Tropp's randomized SVD: for a matrix of rank
   * r ≤ k the range of AΩ is A's column space (Ω Gaussian, so AΩ has rank r with probability 1) and
   * Q̃Q̃ᵀA = A, so the rank-k release reproduces A up to floating-point rounding.
   */
  @Test
  void withoutNoise_recoversALowRankMatrix() {
    Dense a = SyntheticMatrix.lowRank(120, 90, 4, 20, 5);
    for (NeighbouringRelation rel : new NeighbouringRelation[] {NeighbouringRelation.RANK_ONE,
        NeighbouringRelation.FROBENIUS}) {
      HardtRoth.Result r = new HardtRoth(rel, PRIVACY, 1, 5, 5, true).run(a, KEY, "test/exact");
      double rel2 = r.error(a) / SyntheticMatrix.frobeniusNorm(a);
      assertTrue(rel2 < 1e-10, rel + ": relative error " + rel2);
    }
  }

  /** p = ⌈k/((1 + α)² − 1)⌉: at α = √2 − 1 HR12's √(1 + k/p) = √2 needs p = k. */
  @Test
  void oversampling_matchesTheMultiplicativeErrorOfAlpha() {
    assertEquals(10, HardtRoth.oversampling(10, Math.sqrt(2) - 1));
    assertEquals(48, HardtRoth.oversampling(10, 0.1)); // 10 / 0.21 = 47.6
    assertEquals(8, HardtRoth.oversampling(10, 0.5)); // 10 / 1.25 = 8
  }

  private static void assertCalibrated(GaussianSketchNoise noise, long changed, double muEach) {
    double gamma = noise.grid().gamma();
    double sens = noise.baseSensitivity() + GridGaussian.roundingSlack(gamma, changed);
    assertEquals(sens, noise.sensitivity(), 0);
    assertTrue(sens / noise.sigma() <= muEach, noise.toString());
    assertTrue(sens / noise.sigma() >= muEach * (1 - 0x1.0p-29), noise.toString());
  }
}
