package io.dplrf.deploy.serve.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import org.junit.jupiter.api.Test;

/**
 * The budget over R fits: each fit, calibrated by its own μ(ε_run, δ) as the algorithm does,
 * uses at most μ_total/√R, so that R of them compose (Gaussian DP, √(Σ μ²)) to the total (ε, δ);
 * and the split wastes (almost) nothing. Deterministic: no randomness involved.
 */
class CompletionBudgetTest {
  private static final double[] EPS = {0.1, 0.5, 1, 2, 5};
  private static final double[] DELTA = {1e-6, 1e-9};
  private static final int[] RUNS = {1, 2, 10, 100};

  @Test
  void fitsCalibratedWithEpsilonPerRun_composeToTheTotal() {
    for (double eps : EPS) {
      for (double delta : DELTA) {
        for (int r : RUNS) {
          CompletionBudget b = new CompletionBudget(eps, delta, r);
          // What the fit does with (epsilonPerRun, delta): CompletionPlan.calibrate.
          double muFit = AnalyticGaussian.mu(b.epsilonPerRun(), delta);
          String at = "eps " + eps + ", delta " + delta + ", R " + r;
          assertTrue(muFit <= b.muPerRun(), at + ": mu " + muFit + " > " + b.muPerRun());
          double composed = Math.sqrt(r) * muFit;
          assertTrue(AnalyticGaussian.delta(eps, composed) <= delta, at);
          // Not wasteful: within 1e-6 of the share (the bisections' widths are ~1e-12).
          assertTrue(muFit >= b.muPerRun() * (1 - 1e-6), at + ": " + muFit);
          // R fits at the full (eps, delta) each would break the total: the split matters.
          if (r > 1) {
            assertTrue(AnalyticGaussian.delta(eps, Math.sqrt(r) * AnalyticGaussian.mu(eps, delta))
                > delta, at);
          }
        }
      }
    }
  }

  @Test
  void epsilonSpent_growsWithFits_andReachesTheTotalAtR() {
    CompletionBudget b = new CompletionBudget(1, 1e-6, 10);
    assertEquals(0, b.epsilonSpent(0));
    double previous = 0;
    for (int k = 1; k <= 10; k++) {
      double e = b.epsilonSpent(k);
      assertTrue(e > previous, "fit " + k);
      previous = e;
    }
    assertEquals(1.0, b.epsilonSpent(10), 1e-9);
    assertEquals(b.epsilonPerRun(), b.epsilonSpent(1), 1e-9);
    assertEquals(1.0, new CompletionBudget(1, 1e-6, 1).epsilonPerRun(), 1e-9);
    assertTrue(b.epsilonPerRun() > 1.0 / 10, "GDP composition beats the naive eps/R split");
  }
}
