package io.dplrf.sketch.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NormalTest {
  // Reference values: R 4.x pnorm/qnorm (themselves Cody / AS241) and mpmath at 30 digits.
  @Test
  void cdf_matchesReferenceValues() {
    assertEquals(0.9750021048517795, Normal.cdf(1.96), 4e-16);
    assertEquals(0.5, Normal.cdf(0), 0);
    assertEquals(0.15865525393145707, Normal.cdf(-1), 2e-16);
  }

  @Test
  void upperTail_keepsRelativeAccuracyDeepInTheTail() {
    assertEquals(1, Normal.upperTail(10) / 7.619853024160527e-24, 1e-14);
    assertEquals(1, Normal.upperTail(20) / 2.7536241186062337e-89, 1e-14);
    assertEquals(1, Normal.upperTail(37) / 5.725571222524e-300, 1e-12);
  }

  @Test
  void logUpperTail_matchesAsymptoticSeriesBeyondUnderflow() {
    for (double x : new double[] {40, 100, 1e4}) {
      // ln Φ(−x) = −x²/2 − ln(x√(2π)) + ln(1 − 1/x² + 3/x⁴ − 15/x⁶ + ...), truncation < 105/x⁸.
      double x2 = x * x;
      double series = -0.5 * x2 - Math.log(x) - 0.5 * Math.log(2 * Math.PI)
          + Math.log1p(-1 / x2 + 3 / (x2 * x2) - 15 / (x2 * x2 * x2));
      assertEquals(series, Normal.logUpperTail(x), 1e-15 * Math.abs(series) + 105 / (x2 * x2 * x2 * x2));
    }
    assertEquals(Math.log(Normal.upperTail(3)), Normal.logUpperTail(3), 1e-15);
    assertEquals(Math.log(Normal.upperTail(-3)), Normal.logUpperTail(-3), 1e-16);
  }

  @Test
  void quantile_invertsCdfAndMatchesReference() {
    // AS241's rational approximation is good to ~1e-16 relative; its ~16 Horner steps add a few ulps.
    assertEquals(1.959963984540054, Normal.quantile(0.975), 8 * Math.ulp(1.96));
    assertEquals(-4.753424308822899, Normal.quantile(1e-6), 1e-14);
    for (double p : new double[] {1e-300, 1e-20, 1e-6, 0.01, 0.3, 0.5, 0.7, 0.99}) {
      assertEquals(1, Normal.cdf(Normal.quantile(p)) / p, 1e-13, "p=" + p);
    }
    assertEquals(Double.NEGATIVE_INFINITY, Normal.quantile(0));
  }

  @Test
  void quantile_outOfRange_isRejectedWithHouseMessage() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Normal.quantile(1.5));
    assertTrue(e.getMessage().startsWith("p must be in [0, 1]. Provided value: 1.5"));
  }
}
