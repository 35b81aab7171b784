package io.dplrf.release.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.ChiSquare;
import io.dplrf.sketch.calibration.Zcdp;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.SecretKey;
import org.junit.jupiter.api.Test;

/** Noise scales and accounting of private Frank–Wolfe (docs/privacy/completion.md). */
class CompletionPrivacyTest {
  private static final long SEED = 41;
  /** Each χ² test rejects a correct sampler with probability < 2·10⁻⁷. */
  private static final double FALSE_ALARM = 1e-7;
  private static final PrivacyParams PRIVACY = new PrivacyParams(1, 1e-6);
  private final SecretKey key = SecretKey.forTesting(SEED);

  @Test
  void plan_full_sigmaIsReplaceSensitivityTimesSqrtTOverMu() {
    double clip = 3;
    int t = 9;
    CompletionParams p = CompletionParams.of(PRIVACY, 80, clip).withIterations(t);
    CompletionPlan plan = CompletionPlan.calibrate(p, t, 400);
    double mu = AnalyticGaussian.mu(1, 1e-6);
    double expected = 4 * Math.sqrt(2) * clip * clip * Math.sqrt(t) / mu;
    assertEquals(expected, plan.eigen().sigma(), expected * 1e-6);
    assertTrue(plan.eigen().sigma() >= expected);
    assertTrue(plan.eigen().sensitivity() / plan.eigen().sigma() <= mu / Math.sqrt(t));
    CompletionAccount a = plan.account();
    assertEquals(t, a.releases());
    assertEquals(mu, a.mu());
    assertTrue(AnalyticGaussian.delta(1, a.mu()) <= 1e-6, "the composed mu meets (eps, delta)");
    assertEquals(mu * mu / 2, a.rho(), 1e-15);
    assertEquals(1, a.noise().size());
    assertEquals(80_200, a.noise().get(0).entries());
  }

  @Test
  void plan_oja_composesTTimesGammaPlusOneReleasesOfSensitivity4LSquared() {
    double clip = 2;
    int t = 5;
    int gamma = 30;
    CompletionParams p =
        CompletionParams.of(PRIVACY, 80, clip).withIterations(t).withSolver(EigenSolver.OJA, gamma);
    CompletionPlan plan = CompletionPlan.calibrate(p, t, 400);
    double mu = AnalyticGaussian.mu(1, 1e-6);
    double muEach = mu / Math.sqrt(t * (gamma + 1));
    assertEquals(16 / muEach, plan.eigen().sigma(), 16 / muEach * 1e-6);
    assertEquals(16 / muEach, plan.lambda().sigma(), 16 / muEach * 1e-6);
    assertTrue(plan.eigen().sensitivity() / plan.eigen().sigma() <= muEach);
    assertTrue(plan.lambda().sensitivity() / plan.lambda().sigma() <= muEach);
    assertEquals(t * (gamma + 1), plan.account().releases());
    double composed = muEach * Math.sqrt(t * (gamma + 1));
    assertTrue(AnalyticGaussian.delta(1, composed) <= 1e-6 * (1 + 1e-9));
  }

  /**
   * Paper 004's own accounting (Algorithm 1 line 2 + Bun–Steinke) is sound but looser: for the
   * same ρ it certifies a larger ε, and its σ is larger than ours — for the add/remove
   * sensitivity 4L² it assumes, let alone our replace-one 4√2·L².
   */
  @Test
  void account_zcdpConversionIsLooserThanTheExactCurve_andThePaperSigmaIsLarger() {
    for (double eps : new double[] {0.1, 0.5, 1, 2, 5}) {
      CompletionParams p = CompletionParams.of(new PrivacyParams(eps, 1e-6), 80, 1)
          .withIterations(10);
      CompletionAccount a = CompletionPlan.calibrate(p, 10, 100).account();
      assertTrue(a.epsilonZcdp() > eps, "eps " + eps + ": zCDP certifies " + a.epsilonZcdp());
      assertTrue(a.paperSigma() > a.noise().get(0).sigma(), "eps " + eps);
      // The paper's σ with Δ = 4L² is ρ = ε²/(8 ln(1/δ)), which Bun–Steinke turns into ≤ ε.
      double rhoPaper = 10 * 16 / (2 * a.paperSigma() * a.paperSigma());
      assertEquals(eps * eps / (8 * Math.log(1e6)), rhoPaper, 1e-12);
      assertTrue(Zcdp.epsilon(rhoPaper, 1e-6) <= eps);
    }
    assertEquals(1.0, Zcdp.epsilon(Zcdp.rho(1, 1e-6), 1e-6), 1e-12);
  }

  /**
   * FULL: Ŵ − W is the symmetric noise N. Over the N = d(d+1)/2 upper-triangle entries
   * Σ(N_ij/σ)² ~ χ²_N (the grid rounding moves each entry by ≤ γ/2 ≈ 2⁻³¹σ, negligible);
   * halved (statistic/4) or missing (0) noise is rejected. Iterations draw fresh noise.
   */
  @Test
  void full_releasedMinusExactGram_hasTheCalibratedVariance_andIsFreshPerIteration() {
    Synthetic s = new Synthetic(300, 40, 8, 3);
    Ratings r = s.ratings(8, 2);
    CompletionParams p = CompletionParams.of(PRIVACY, 8, 2).withIterations(4);
    CompletionPlan plan = CompletionPlan.calibrate(p, 4, 40);
    GlobalComponent.Full full = (GlobalComponent.Full) GlobalComponent.full(r, PRIVACY,
        plan.eigen(), key, "run/noise");
    double[] residual = negated(r);
    Dense exact = GlobalComponent.exact(r).gram(residual).toDense();
    Dense w1 = full.released(1, residual);
    Dense w2 = full.released(2, residual);
    double sigma = plan.eigen().sigma();
    double ss = 0;
    for (int i = 0; i < 40; i++) {
      for (int j = i; j < 40; j++) {
        double e = (w1.get(i, j) - exact.get(i, j)) / sigma;
        ss += e * e;
        assertEquals(w1.get(i, j), w1.get(j, i), "symmetric");
      }
    }
    assertTrue(accepts(ss, 820), "chi2 " + ss + " (seed " + SEED + ")");
    assertFalse(accepts(ss / 4, 820), "halved noise would pass");
    assertFalse(accepts(0, 820), "missing noise would pass");
    assertNotEquals(w1.get(0, 1), w2.get(0, 1), "iteration 2 reuses iteration 1's noise");
    assertEquals(w1.get(0, 1), full.released(1, residual).get(0, 1),
        "the noise of (key, label, t) is fixed");
  }

  /** OJA: the released W·v̂ minus the exact sum has per-coordinate variance σ² (d = 1000). */
  @Test
  void oja_releasedMatvec_hasTheCalibratedVariance() {
    int d = 1000;
    CompletionParams p = CompletionParams.of(PRIVACY, 10, 1).withIterations(3)
        .withSolver(EigenSolver.OJA, 20);
    CompletionPlan plan = CompletionPlan.calibrate(p, 3, d);
    ExactSum sum = new ExactSum(d, CompletionPlan.ojaBound(1));
    sum.add(new int[] {3, 7}, 0, new double[] {1.5, -2}, 2);
    sum.add(new int[] {7, 9}, 0, new double[] {0.25, 3}, 2);
    double[] exact = sum.exact();
    assertEquals(-1.75, exact[7], 1e-6);
    double[] released = sum.release(plan.eigen(), KeyStream.of(key, "run/oja").bits());
    double sigma = plan.eigen().sigma();
    double ss = 0;
    for (int j = 0; j < d; j++) {
      double e = (released[j] - exact[j]) / sigma;
      ss += e * e;
    }
    assertTrue(accepts(ss, d), "chi2 " + ss + " (seed " + SEED + ")");
    assertFalse(accepts(ss / 4, d), "halved noise would pass");
  }

  /**
   * End to end, noise present: at ε = 10⁻³ the noise (σ√d ≫ λ₁) swamps W, so v̂_1 is close to a
   * uniformly random unit vector, whose overlap with the true top eigenvector u exceeds 5/√d with
   * probability < 10⁻⁵ (|⟨v, u⟩|√d is ≈ N(0, 1)). Without noise the overlap would be ≈ 1.
   */
  @Test
  void bothSolvers_atTinyEpsilon_releaseAnEssentiallyRandomDirection() {
    Synthetic s = new Synthetic(2000, 100, 10, 4);
    Ratings r = s.ratings(10, 3);
    double[] residual = negated(r);
    double[] u = GlobalComponent.exact(r).top(1, residual).v();
    CompletionParams p = CompletionParams.of(new PrivacyParams(1e-3, 1e-6), 10, 3)
        .withIterations(2);
    CompletionPlan full = CompletionPlan.calibrate(p, 2, 100);
    double[] vFull = GlobalComponent.full(r, p.privacy(), full.eigen(), key, "run/tiny")
        .top(1, residual).v();
    CompletionParams po = p.withSolver(EigenSolver.OJA, 10);
    double[] vOja = GlobalComponent.oja(r, CompletionPlan.calibrate(po, 2, 100), key,
        "run/tiny-oja").top(1, residual).v();
    assertTrue(Math.abs(dot(u, vFull)) < 5 / Math.sqrt(100), "FULL overlap " + dot(u, vFull));
    assertTrue(Math.abs(dot(u, vOja)) < 5 / Math.sqrt(100), "OJA overlap " + dot(u, vOja));
  }

  static double[] negated(Ratings r) {
    double[] a = r.vals().clone();
    for (int x = 0; x < a.length; x++) {
      a[x] = -a[x]; // A^{(0)} = P_Ω(0 − Y*)
    }
    return a;
  }

  static double dot(double[] a, double[] b) {
    double s = 0;
    for (int j = 0; j < a.length; j++) {
      s += a[j] * b[j];
    }
    return s;
  }

  private static boolean accepts(double stat, int df) {
    double upper = ChiSquare.upperTail(stat, df);
    return upper > FALSE_ALARM && 1 - upper > FALSE_ALARM;
  }
}
