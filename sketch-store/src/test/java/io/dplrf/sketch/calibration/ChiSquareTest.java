package io.dplrf.sketch.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ChiSquareTest {
  @Test
  void upperQuantile_matchesKnownQuantilesAndIsConservative() {
    // R: qchisq(0.95, df) for df = 10, 1; df = 2 is exactly −2 ln p.
    double[][] cases = {{10, 0.05, 18.307038053275146}, {1, 0.05, 3.841458820694124},
        {2, 0.05, -2 * Math.log(0.05)}, {100, 0.01, 135.80672317102676}};
    for (double[] c : cases) {
      int dof = (int) c[0];
      double q = ChiSquare.upperQuantile(c[1], dof);
      assertEquals(1, q / c[2], 1e-13, "dof=" + dof);
      assertTrue(ChiSquare.upperTail(q, dof) <= c[1]);
    }
  }

  @Test
  void upperTail_closedFormsForEvenAndOneDof() {
    // dof = 2: e^{−x/2}; dof = 1: 2Φ(−√x); dof = 4: e^{−x/2}(1 + x/2).
    for (double x : new double[] {0.1, 1, 10, 100, 1000}) {
      // Any log-space evaluation of e^{−x/2} carries the exponent's rounding: ~x/2 · 2⁻⁵² relative.
      double tol = 1e-14 + x * 0x1p-52;
      assertEquals(1, ChiSquare.upperTail(x, 2) / Math.exp(-x / 2), tol, "x=" + x);
      assertEquals(1, ChiSquare.upperTail(x, 1) / (2 * Normal.upperTail(Math.sqrt(x))), 1e-13 + tol);
      assertEquals(1, ChiSquare.upperTail(x, 4) / (Math.exp(-x / 2) * (1 + x / 2)), 1e-13 + tol);
      assertEquals(1, ChiSquare.lowerTail(x, 2) / -Math.expm1(-x / 2), 1e-14);
    }
  }

  @Test
  void upperTail_largeDofAgreesWithWilsonHilfertyInTheBulk() {
    // Large a stresses the prefactor; Wilson–Hilferty is accurate to ~1e-4 at dof = 10⁴.
    int dof = 10_000;
    for (double z : new double[] {-2, 0, 2}) {
      double x = dof * Math.pow(1 - 2.0 / (9 * dof) + z * Math.sqrt(2.0 / (9 * dof)), 3);
      assertEquals(Normal.upperTail(z), ChiSquare.upperTail(x, dof), 1e-4);
      assertEquals(1, ChiSquare.upperTail(x, dof) + ChiSquare.lowerTail(x, dof), 1e-14);
    }
  }

  @Test
  void chernoffQuantile_dominatesExactQuantileOfTheMean() {
    for (int dof : new int[] {1, 5, 10, 50, 400}) {
      for (double p : new double[] {0.05, 1e-3, 1e-6, 1e-9}) {
        double c = ChiSquare.chernoffQuantileOfMean(p, dof);
        assertTrue(c > 1);
        assertTrue(c * dof >= ChiSquare.upperQuantile(p, dof), "dof=" + dof + " p=" + p);
        // (c e^{1−c})^{d/2} ≤ p at the returned (rounded-up) c: the per-(d/2) exponent is ≤ 2 ln p/d
        // exactly as the code compares it, and equals it to a few ulps of c (slope 1 − 1/c).
        double exponent = IncompleteGamma.log1pmx(c - 1);
        assertTrue(exponent <= 2 * Math.log(p) / dof);
        assertEquals(2 * Math.log(p) / dof, exponent, 4 * Math.ulp(c) + 4 * Math.ulp(exponent));
      }
    }
  }

  @Test
  void invalidArguments_areRejectedWithHouseMessage() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ChiSquare.upperQuantile(0.05, 0));
    assertEquals("dof must be > 0. Provided value: 0", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> ChiSquare.chernoffQuantileOfMean(1, 3));
    assertEquals("p must be in the open interval (0, 1). Provided value: 1.0", e.getMessage());
  }

  @Test
  void lnGamma_halfIntegersExact() {
    assertEquals(0.5 * Math.log(Math.PI), IncompleteGamma.lnGamma(0.5), 1e-15);
    assertEquals(Math.log(362880), IncompleteGamma.lnGamma(10), 1e-14);
    assertEquals(IncompleteGamma.lnGamma(200.5),
        200 * Math.log(200.5) - 200.5 + 0.5 * Math.log(2 * Math.PI) + IncompleteGamma.stirlerr(200.5),
        1e-12);
  }
}
