package io.dplrf.sketch.noise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import org.junit.jupiter.api.Test;

class GridGaussianTest {
  private static final long SEED = 555L;

  @Test
  void effectiveSigma_isAtLeastSigmaAndWithinRelative2PowMinusK() {
    RandomBits bits = KeyStream.of(SecretKey.forTesting(SEED), "sigmas").bits();
    double[] special = {1.0, 0.5, 3.0, Math.nextDown(1.0), Math.nextUp(1.0), 1e-9, 1e9, 12345.678,
        Math.nextDown(0x1.0p31), 0x1.0p-992, 0x1.0p960, Math.nextDown(0x1.0p-20)};
    for (int i = 0; i < special.length + 10_000; i++) {
      double sigma = i < special.length ? special[i]
          : Math.scalb(1 + bits.nextDouble53(), (int) bits.nextLongBelow(200) - 100);
      GridGaussian g = GridGaussian.atLeast(sigma);
      String where = "sigma=" + sigma;
      assertTrue(g.effectiveSigma() >= sigma, where);
      assertTrue(g.effectiveSigma() <= sigma * (1 + Math.scalb(1.0, -GridGaussian.K)), where);
      assertTrue(g.scale() >= (1L << GridGaussian.K) && g.scale() < (1L << (GridGaussian.K + 1)),
          where);
      assertEquals(g.scale() * g.gamma(), g.effectiveSigma(), 0.0, where);
      assertEquals(Math.scalb(1.0, Math.getExponent(g.gamma())), g.gamma(), 0.0, where);
    }
  }

  @Test
  void samples_areExactMultiplesOfGamma() {
    GridGaussian g = GridGaussian.atLeast(0.37);
    RandomBits bits = KeyStream.of(SecretKey.forTesting(SEED), "grid-samples").bits();
    double[] out = new double[10_000];
    g.fill(bits, out, 0, out.length);
    double sumSq = 0;
    for (double v : out) {
      double units = v / g.gamma();
      assertEquals(Math.rint(units), units, 0.0);
      assertEquals(v, g.gamma() * (long) units, 0.0);
      sumSq += v * v;
    }
    // Loose sanity check of scale only (the distribution is tested in DiscreteGaussianTest).
    double sd = Math.sqrt(sumSq / out.length);
    assertTrue(Math.abs(sd / g.effectiveSigma() - 1) < 0.1, "sd " + sd);
    assertEquals(0.0, GridGaussian.roundToGrid(g.sample(bits), g.gamma()) % g.gamma(), 0.0);
  }

  @Test
  void roundToGrid_isExactAndRoundsHalvesAwayFromZero() {
    double g = 0x1.0p-3;
    assertEquals(0.0, GridGaussian.roundToGrid(0.49999999999999994 * g, g), 0.0);
    assertEquals(g, GridGaussian.roundToGrid(0.5 * g, g), 0.0);
    assertEquals(-g, GridGaussian.roundToGrid(-0.5 * g, g), 0.0);
    assertEquals(3 * g, GridGaussian.roundToGrid(2.5 * g, g), 0.0);
    assertEquals(2 * g, GridGaussian.roundToGrid(Math.nextDown(2.5 * g), g), 0.0);
    assertEquals(-0.0, GridGaussian.roundToGrid(-0.1 * g, g), 0.0);
    assertEquals(1e300, GridGaussian.roundToGrid(1e300, g), 0.0);
    assertEquals(0x1.0p60, GridGaussian.roundToGrid(0x1.0p60 + 0x1.0p7, 0x1.0p9), 0.0);
    RandomBits bits = KeyStream.of(SecretKey.forTesting(SEED), "round").bits();
    for (int i = 0; i < 10_000; i++) {
      double x = (bits.nextDouble53() - 0.5) * 1e6;
      double r = GridGaussian.roundToGrid(x, g);
      assertTrue(Math.abs(r - x) <= g / 2, "x=" + x);
      assertEquals(Math.rint(r / g), r / g, 0.0);
    }
    assertThrows(IllegalArgumentException.class, () -> GridGaussian.roundToGrid(1.0, 0.3));
    assertThrows(IllegalArgumentException.class, () -> GridGaussian.roundToGrid(Double.NaN, 1.0));
  }

  /**
   * Against the textbook form, floor(q) + [q − floor(q) ≥ ½]: every tie k + ½ for k in [0, 2^12)
   * and near 2^51, the doubles just around them, and 200,000 random values, bit for bit.
   */
  @Test
  void roundToGrid_matchesFloorAndFractionForm() {
    double g = 0x1.0p-3;
    RandomBits bits = KeyStream.of(SecretKey.forTesting(SEED), "round-ref").bits();
    java.util.List<Double> xs = new java.util.ArrayList<>();
    for (int k = 0; k < 4096; k++) {
      for (double base : new double[] {k + 0.5, 0x1.0p51 + k + 0.5}) {
        xs.add(base * g);
        xs.add(Math.nextUp(base) * g);
        xs.add(Math.nextDown(base) * g);
      }
    }
    for (int i = 0; i < 200_000; i++) {
      xs.add((bits.nextDouble53() - 0.5) * Math.scalb(1.0, (int) bits.nextLongBelow(120) - 60));
    }
    for (double x : xs) {
      for (double v : new double[] {x, -x}) {
        double q = Math.abs(v / g);
        double expected = v;
        if (q < 0x1.0p52) {
          double whole = Math.floor(q);
          expected = Math.copySign(((q - whole >= 0.5) ? whole + 1 : whole) * g, v);
        }
        assertEquals(Double.doubleToRawLongBits(expected),
            Double.doubleToRawLongBits(GridGaussian.roundToGrid(v, g)), "x=" + v);
      }
    }
  }

  /** The in-place array form gives exactly the one-value form's results, and checks the same. */
  @Test
  void roundToGrid_inPlace_matchesOneValueForm() {
    double g = 0x1.0p-3;
    double[] data = {0.49999999999999994 * g, 0.5 * g, -0.5 * g, 2.5 * g, Math.nextDown(2.5 * g),
        -0.1 * g, 1e300, -1e300, 0.0, -0.0, 12345.678, -0.0625};
    double[] expected = data.clone();
    for (int i = 0; i < expected.length; i++) {
      expected[i] = GridGaussian.roundToGrid(expected[i], g);
    }
    GridGaussian.roundToGrid(data, g);
    for (int i = 0; i < data.length; i++) {
      assertEquals(Double.doubleToRawLongBits(expected[i]), Double.doubleToRawLongBits(data[i]),
          "entry " + i);
    }
    assertThrows(IllegalArgumentException.class,
        () -> GridGaussian.roundToGrid(new double[] {1.0}, 0.3));
    assertThrows(IllegalArgumentException.class,
        () -> GridGaussian.roundToGrid(new double[] {1.0, Double.POSITIVE_INFINITY}, 1.0));
  }

  /** The range form rounds [from, to) as the one-value form does and leaves the rest alone. */
  @Test
  void roundToGrid_range_roundsOnlyItsEntries() {
    double g = 0x1.0p-3;
    double[] data = {0.3 * g, 2.5 * g, -0.5 * g, 1.7 * g, Double.NaN};
    double[] copy = data.clone();
    GridGaussian.roundToGrid(data, 1, 3, g);
    assertEquals(copy[0], data[0]);
    assertEquals(GridGaussian.roundToGrid(copy[1], g), data[1]);
    assertEquals(GridGaussian.roundToGrid(copy[2], g), data[2]);
    assertEquals(copy[3], data[3]);
    assertThrows(IllegalArgumentException.class, () -> GridGaussian.roundToGrid(data, 3, 5, g));
    assertThrows(IndexOutOfBoundsException.class, () -> GridGaussian.roundToGrid(data, 2, 6, g));
    assertThrows(IllegalArgumentException.class, () -> GridGaussian.roundToGrid(data, 0, 1, 0.3));
  }

  @Test
  void roundingSlack_isGammaSqrtK_roundedUp() {
    assertEquals(0.0, GridGaussian.roundingSlack(0.25, 0), 0.0);
    assertEquals(Math.nextUp(0.25 * 2), GridGaussian.roundingSlack(0.25, 4), 0.0);
    assertTrue(GridGaussian.roundingSlack(1.0, 2) >= Math.sqrt(2));
    assertEquals(0.25 * 7, GridLaplace.roundingSlackL1(0.25, 7), 0.0);
  }

  @Test
  void invalidSigma_isRejectedWithOneMessageShape() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> GridGaussian.atLeast(0.0));
    assertEquals("sigma must be in [2^-992, 2^960]. Provided value: 0.0", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> GridGaussian.atLeast(Double.NaN));
    assertThrows(IllegalArgumentException.class,
        () -> GridGaussian.atLeast(Double.POSITIVE_INFINITY));
  }

  @Test
  void gridLaplace_effectiveScaleBoundsAndGridMultiples() {
    GridLaplace l = GridLaplace.atLeast(2.75);
    assertTrue(l.effectiveScale() >= 2.75);
    assertTrue(l.effectiveScale() <= 2.75 * (1 + Math.scalb(1.0, -GridGaussian.K)));
    RandomBits bits = KeyStream.of(SecretKey.forTesting(SEED), "laplace-grid").bits();
    double[] out = new double[1000];
    l.fill(bits, out, 0, out.length);
    for (double v : out) {
      assertEquals(Math.rint(v / l.gamma()), v / l.gamma(), 0.0);
    }
  }
}
