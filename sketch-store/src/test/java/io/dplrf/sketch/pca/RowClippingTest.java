package io.dplrf.sketch.pca;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The ℓ1 clip of LOCAL-ROBUST-PCA rows (the ℓ2 clip is exercised by every PCA test). */
class RowClippingTest {

  @Test
  void clipL1_scalesLongRowsJustBelowC_keepsDirection_andLeavesShortRowsAlone() {
    SplittableRandom r = new SplittableRandom(5);
    for (int n = 0; n < 2_000; n++) {
      int d = 1 + r.nextInt(300);
      double[] x = new double[d];
      for (int j = 0; j < d; j++) {
        x[j] = (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(12) - 6);
      }
      double c = Math.pow(10, r.nextInt(8) - 4) * (0.5 + r.nextDouble());
      double[] y = x.clone();
      boolean clipped = RowClipping.clipL1InPlace(y, c);
      double before = RowClipping.l1Norm(x);
      assertEquals(before > c * (1 - RowClipping.MARGIN), clipped);
      assertTrue(RowClipping.l1Norm(y) <= c * (1 - RowClipping.MARGIN), "row " + n);
      if (clipped) {
        assertEquals(c, RowClipping.l1Norm(y), 1e-8 * c, "scaled to C, not below");
        double f = y[0] / x[0];
        for (int j = 0; j < d; j++) {
          assertEquals(x[j] * f, y[j], 1e-15 * Math.abs(x[j]) + Double.MIN_VALUE);
        }
      } else {
        assertArrayEquals(x, y, 0.0);
      }
    }
  }

  @Test
  void clipL1_refusesNonFiniteRows() {
    assertThrows(IllegalArgumentException.class,
        () -> RowClipping.clipL1InPlace(new double[] {1, Double.NaN}, 1));
    assertThrows(IllegalArgumentException.class,
        () -> RowClipping.clipL1InPlace(new double[] {Double.POSITIVE_INFINITY}, 1));
    assertFalse(RowClipping.clipL1InPlace(new double[] {0.25, -0.25}, 1));
  }

  /** A finite row whose plain ℓ1 sum overflows is clipped, not refused (refusal is data-dependent). */
  @Test
  void clipL1_clipsFiniteRowsWhoseSumWouldOverflow() {
    double[] x = {1e308, -1e308, 1e308};
        assertTrue(RowClipping.clipL1InPlace(x, 1));
    assertTrue(RowClipping.l1Norm(x) <= 1 - RowClipping.MARGIN);
    assertEquals(1.0 / 3, x[0], 1e-9);
    assertEquals(-1.0 / 3, x[1], 1e-9);
    double[] wide = new double[1000];
    java.util.Arrays.fill(wide, Double.MAX_VALUE);
    assertTrue(RowClipping.clipL1InPlace(wide, 2));
    assertEquals(0.002, wide[999], 0.002 * 2 * RowClipping.MARGIN); // scaled to C(1 − margin)
    double[] l2 = {Double.MAX_VALUE, Double.MAX_VALUE};
    assertTrue(RowClipping.clipInPlace(l2, 1));
    assertEquals(Math.sqrt(0.5), l2[0], 1e-9);
  }
}
