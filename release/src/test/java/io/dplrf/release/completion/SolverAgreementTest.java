package io.dplrf.release.completion;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.release.Pca;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.SecretKey;
import org.junit.jupiter.api.Test;

/**
 * Algorithm 1's dense noisy eigen step (FULL) and Algorithm 2's private Oja (OJA) reach the same
 * accuracy within their noise — the paper's footnote 6. Accuracy of an eigen step is the
 * Rayleigh-quotient deficit λ₁(W) − v̂ᵀWv̂, the quantity Theorem 3.2's proof consumes.
 */
class SolverAgreementTest {
  private static final long[] SEEDS = {11, 12, 13};

  /**
   * Bounds, per solver: FULL — v̂ maximises vᵀ(W + N)v, so v̂ᵀWv̂ ≥ λ₁ − 2‖N‖₂ deterministically
   * (‖N‖₂ measured on the released matrix). OJA — Theorem 3.3 (Allen-Zhu–Li): λ₁ − v̂ᵀWv̂ ≤
   * C(√(V/Γ) + λ₁/Γ) with V = σ²d for the per-step noise g ~ N(0, σ²I); taken with C = 1. Both
   * deficits must be within these bounds, so their difference is within the larger bound.
   */
  @Test
  void fullAndOja_rayleighDeficitsAreWithinTheirNoiseBounds_onAFixedRankOneInstance() {
    Synthetic s = new Synthetic(20_000, 50, 10, 1);
    Ratings r = s.ratings(10, 2);
    double[] residual = CompletionPrivacyTest.negated(r);
    Dense w = GlobalComponent.exact(r).gram(residual).toDense();
    double lambda1 = Pca.topEigenvectors(w, 1).eigenvalues()[0];
    int gamma = 50;
    CompletionParams p = CompletionParams.of(new PrivacyParams(8, 1e-6), 10, 2).withIterations(5);
    CompletionParams po = p.withSolver(EigenSolver.OJA, gamma);
    CompletionPlan fullPlan = CompletionPlan.calibrate(p, 5, 50);
    CompletionPlan ojaPlan = CompletionPlan.calibrate(po, 5, 50);
    for (long seed : SEEDS) {
      SecretKey key = SecretKey.forTesting(seed);
      GlobalComponent.Full full =
          (GlobalComponent.Full) GlobalComponent.full(r, p.privacy(), fullPlan.eigen(), key, "f");
      Dense released = full.released(1, residual);
      double noiseNorm = spectralNorm(released, w);
      double deficitFull = lambda1 - rayleigh(w, GlobalComponent.topOf(released).v());
      double sigmaOja = ojaPlan.eigen().sigma();
      double ojaBound = Math.sqrt(sigmaOja * sigmaOja * 50 / gamma) + lambda1 / gamma;
      double deficitOja =
          lambda1 - rayleigh(w, GlobalComponent.oja(r, ojaPlan, key, "o").top(1, residual).v());
      String msg = "seed " + seed + ": lambda1 " + lambda1 + ", FULL deficit " + deficitFull
          + " (bound " + 2 * noiseNorm + "), OJA deficit " + deficitOja + " (bound " + ojaBound
          + ")";
      assertTrue(deficitFull >= -1e-6 * lambda1 && deficitFull <= 2 * noiseNorm, msg);
      assertTrue(deficitOja >= -1e-6 * lambda1 && deficitOja <= ojaBound, msg);
      assertTrue(Math.abs(deficitFull - deficitOja) <= Math.max(2 * noiseNorm, ojaBound), msg);
    }
  }

  /** ‖Ŵ − W‖₂ = max |eigenvalue| of the symmetric difference. */
  private static double spectralNorm(Dense released, Dense w) {
    int d = w.rows();
    Dense n = new Dense(d, d);
    Dense neg = new Dense(d, d);
    for (int i = 0; i < d; i++) {
      for (int j = 0; j < d; j++) {
        n.set(i, j, released.get(i, j) - w.get(i, j));
        neg.set(i, j, w.get(i, j) - released.get(i, j));
      }
    }
    return Math.max(Pca.topEigenvectors(n, 1).eigenvalues()[0],
        Pca.topEigenvectors(neg, 1).eigenvalues()[0]);
  }

  private static double rayleigh(Dense w, double[] v) {
    double s = 0;
    for (int i = 0; i < v.length; i++) {
      for (int j = 0; j < v.length; j++) {
        s += v[i] * w.get(i, j) * v[j];
      }
    }
    return s;
  }
}
