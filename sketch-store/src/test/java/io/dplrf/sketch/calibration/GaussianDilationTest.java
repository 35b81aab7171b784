package io.dplrf.sketch.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GaussianDilationTest {
  /** The Rényi bound is an upper bound on the exact continuous δ, on both sides of λ = 0. */
  @Test
  void deltaBound_isAtLeastTheExactChiSquareValue() {
    for (int dims : new int[] {1, 10, 64, 640, 6400}) {
      for (double eps : new double[] {0.05, 0.5, 2}) {
        for (double lambda : new double[] {1e-4, 1e-3, 5e-3, 2e-2, 0.1}) {
          for (double sign : new double[] {1, -1}) {
            double exact = GaussianDilation.exactContinuous(dims, sign * lambda, eps);
            double bound = GaussianDilation.deltaBound(dims, sign * lambda, eps);
            assertTrue(bound >= exact * (1 - 1e-9) - 1e-300,
                "D=" + dims + " eps=" + eps + " lambda=" + sign * lambda + ": " + bound + " < " + exact);
          }
        }
      }
    }
  }

  /** The premise of evaluating only ±β: the exact δ grows with |λ| on each side. */
  @Test
  void exactDelta_isMonotoneInTheSizeOfTheScaleChange() {
    for (int dims : new int[] {1, 64, 640}) {
      for (double sign : new double[] {1, -1}) {
        double prev = 0;
        for (int i = 1; i <= 200; i++) {
          double d = GaussianDilation.exactContinuous(dims, sign * i * 2e-4, 0.5);
          assertTrue(d >= prev - 1e-15, "D=" + dims + " lambda=" + sign * i * 2e-4);
          prev = d;
        }
      }
    }
  }

  /**
   * Pinned calibration of the Gaussian mechanism's dilation half for d = 64, k = 10 (D = 640) at
   * ε = 1, δ = 10⁻⁶: ε_d = 1/2, δ_d = (δ/2)e^{−1/2}. The Rényi bound gives up 5–10% of β against
   * the exact continuous value and is ~7× larger than NRS's β = ε/(4(D + ln(2/δ))) of paper 003,
   * Theorem 9.
   */
  @Test
  void maxBeta_pinned_andCloseToTheExactContinuousBeta() {
    long dims = 640;
    double epsD = 0.5;
    double deltaD = 0.5e-6 * Math.exp(-0.5);
    double beta = GaussianDilation.maxBeta(dims, epsD, deltaD);
    assertEquals(2.79481e-3, beta, 1e-8);
    assertTrue(GaussianDilation.deltaBoundForBeta(dims, beta, epsD) <= deltaD);
    double lo = 0;
    double hi = 0.1;
    for (int i = 0; i < 60; i++) {
      double mid = (lo + hi) / 2;
      double d = Math.max(GaussianDilation.exactContinuous(640, mid, epsD),
          GaussianDilation.exactContinuous(640, -mid, epsD));
      if (d <= deltaD) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    assertTrue(beta <= lo && beta >= 0.9 * lo, "rdp " + beta + " exact " + lo);
    double nrs = 1.0 / (4 * (640 + Math.log(2 / 1e-6)));
    assertTrue(beta > 7 * nrs, beta + " vs NRS " + nrs);
  }
}
