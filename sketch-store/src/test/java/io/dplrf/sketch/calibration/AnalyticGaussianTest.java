package io.dplrf.sketch.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AnalyticGaussianTest {
  @Test
  void sigma_pinnedValueForEpsilonOneDeltaMicro() {
    double sigma = AnalyticGaussian.sigma(1, 1e-6, 1);
    assertEquals(4.224678889327, sigma, 5e-4); // ≈ 4.22, to 3 decimals of our value
    assertEquals(1, AnalyticGaussian.delta(1, 1 / sigma) / 1e-6, 1e-9);
    assertTrue(AnalyticGaussian.delta(1, 1 / sigma) <= 1e-6);
    assertEquals(5.30, AnalyticGaussian.classicSigma(1, 1e-6, 1), 5e-3);
  }

  @Test
  void mu_isLargestFeasibleAndConservative() {
    for (double eps : new double[] {0.1, 1, 5}) {
      for (double delta : new double[] {1e-3, 1e-6, 1e-10}) {
        double mu = AnalyticGaussian.mu(eps, delta);
        assertTrue(AnalyticGaussian.delta(eps, mu) <= delta);
        assertTrue(AnalyticGaussian.delta(eps, mu * (1 + 1e-11)) > delta * (1 - 1e-6));
        assertTrue(AnalyticGaussian.classicSigma(eps, delta, 1) >= 1 / mu || eps > 1);
      }
    }
  }

  @Test
  void composeMu_isRootSumOfSquares() {
    assertEquals(5, AnalyticGaussian.composeMu(3, 4), 1e-15);
    assertEquals(0.3, AnalyticGaussian.composeMu(0.3), 0);
    assertThrows(IllegalArgumentException.class, () -> AnalyticGaussian.composeMu(1, -1));
  }

  @Test
  void deltaAt_negativeArgumentMatchesDirectIntegral() {
    // H_{e^e}(N(0,1)‖N(μ,1)) = E_P[(1 − e^{e−L})₊], L ~ N(μ²/2, μ²): check against the μ = 0 limit
    // and the identity H_{e^e}(P‖Q) = 1 − e^e + e^e H_{e^{−e}}(Q‖P) (symmetric here).
    double mu = 0.7;
    for (double e : new double[] {-2, -0.5, -0.01}) {
      double lhs = AnalyticGaussian.deltaAt(e, mu);
      double rhs = 1 - Math.exp(e) + Math.exp(e) * AnalyticGaussian.deltaAt(-e, mu);
      assertEquals(rhs, lhs, 1e-15);
    }
    assertEquals(-Math.expm1(-0.5), AnalyticGaussian.deltaAt(-0.5, 0), 0);
  }

  @Test
  void laplaceScale_isSensitivityOverEpsilon() {
    assertEquals(2.0, Laplace.scale(0.5, 1), 0);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Laplace.scale(0, 1));
    assertEquals("epsilon must be > 0 and < infinity. Provided value: 0.0", e.getMessage());
  }
}
