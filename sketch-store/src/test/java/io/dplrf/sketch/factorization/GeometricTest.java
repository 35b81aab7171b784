package io.dplrf.sketch.factorization;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.MathContext;
import org.junit.jupiter.api.Test;

class GeometricTest {
  private static final double U = 0x1p-53;
  private static final MathContext MC = new MathContext(40);
  private static final double[] DISTANCES = {1e-12, 3e-9, 1e-6, 1e-3, 0.1, 0.5, 0.99, 1};
  private static final long[] LENGTHS = {0, 1, 2, 3, 7, 64, 1000, 65537};

  @Test
  void sum_isWithinSixUlpsOfTheExactSum() {
    for (double v : DISTANCES) {
      for (long n : LENGTHS) {
        BigDecimal[] exact = exact(v, n);
        assertRelative(exact[0], Geometric.sum(v, n), 6 * U, "G v=" + v + " n=" + n);
        BigDecimal oneMinusPower = BigDecimal.ONE.subtract(exact[2]);
        assertRelative(oneMinusPower, Geometric.oneMinusPower(v, n), 5 * U,
            "1-x^n v=" + v + " n=" + n);
      }
    }
  }

  @Test
  void weightedSum_isWithinTwelveUlpsPerBinaryDigit() {
    for (double v : DISTANCES) {
      for (long n : LENGTHS) {
        double bound = 12 * U * Math.max(1, 64 - Long.numberOfLeadingZeros(n));
        assertRelative(exact(v, n)[1], Geometric.weightedSum(v, n), bound,
            "H v=" + v + " n=" + n);
      }
    }
  }

  @Test
  void weightedSum_nearOne_isNotTheCancellingClosedForm() {
    // x = 1 − 1e−12, n = 1000: H = n(n+1)/2 − v·Σ… ≈ 500500; ((n+1) − G(n+1))/v loses ~9 digits.
    double v = 1e-12;
    long n = 1000;
    double h = Geometric.weightedSum(v, n);
    assertRelative(exact(v, n)[1], h, 12 * U * 10, "H");
    double closed = ((n + 1) - Geometric.sum(v, n + 1)) / v;
    assertTrue(Math.abs(closed / h - 1) > 1e-9, "the closed form cancels: " + closed);
  }

  /** {G, H, x^n} to 40 digits, x = 1 − v exactly. */
  private static BigDecimal[] exact(double v, long n) {
    BigDecimal x = BigDecimal.ONE.subtract(new BigDecimal(v));
    BigDecimal power = BigDecimal.ONE;
    BigDecimal g = BigDecimal.ZERO;
    BigDecimal h = BigDecimal.ZERO;
    for (long m = 0; m < n; m++) {
      g = g.add(power, MC);
      h = h.add(power.multiply(BigDecimal.valueOf(n - m), MC), MC);
      power = power.multiply(x, MC);
    }
    return new BigDecimal[] {g, h, power};
  }

  private static void assertRelative(BigDecimal exact, double actual, double bound, String what) {
    if (exact.signum() == 0) {
      assertEquals(0, actual, 0, what);
      return;
    }
    double error = new BigDecimal(actual).subtract(exact).divide(exact, MC).abs().doubleValue();
    assertTrue(error <= bound, what + ": relative error " + error + " > " + bound);
  }
}
