package io.dplrf.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The 128-bit grid sums: exact against BigInteger, large steps included; overflow refused. */
class GridSumTest {
  private static final double GAMMA = 0x1p-40;

  /** The live sum's (hi, lo) of entry 0 as a BigInteger, read from what {@code write} writes. */
  private static BigInteger units(GridSum s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    s.write(new DataOutputStream(out));
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(out.toByteArray());
    long hi = b.getLong();
    long lo = b.getLong();
    return BigInteger.valueOf(hi).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(lo)));
  }

  /**
   * Random steps k = ±m·2^s with a 53-bit m and s up to 60 (k up to 2¹¹³): the 128-bit sum equals
   * the BigInteger sum of the k, and the double read back is that sum rounded (2 ulps: two
   * roundings beyond 64 bits).
   */
  @Test
  void sum_isExactForSmallAndLargeSteps() throws IOException {
    SplittableRandom rnd = new SplittableRandom(17);
    GridSum s = new GridSum(1, GAMMA);
    BigInteger expected = BigInteger.ZERO;
    for (int n = 0; n < 2000; n++) {
      long m = rnd.nextLong(1L << 53) * (rnd.nextBoolean() ? 1 : -1);
      int shift = n % 3 == 0 ? rnd.nextInt(61) : 0;
      double v = Math.scalb((double) m, shift) * GAMMA;
      double[] x = {v};
      assertTrue(s.fits(x));
      s.add(x);
      expected = expected.add(BigInteger.valueOf(m).shiftLeft(shift));
    }
    assertEquals(expected, units(s));
    s.close();
    double sum = expected.doubleValue() * GAMMA;
    assertEquals(sum, s.closedValues()[0], 2 * Math.ulp(sum));
  }

  @Test
  void anAdditionThatWouldOverflow128Bits_doesNotFit_andStepsFrom2To126AreRefused()
      throws IOException {
    GridSum s = new GridSum(2, GAMMA);
    double big = Math.scalb(1.0, 125) * GAMMA;
    for (int n = 0; n < 3; n++) {
      double[] x = {big, -big};
      assertTrue(s.fits(x));
      s.add(x);
    }
    BigInteger before = units(s);
    assertFalse(s.fits(new double[] {big, 0}), "4·2^125 = 2^127 overflows");
    assertFalse(s.fits(new double[] {0, -2 * big}), "-(3 + 2)·2^125 overflows");
    assertTrue(s.fits(new double[] {0, -big}), "-2^127 is the smallest 128-bit integer");
    assertFalse(s.fits(new double[] {Math.scalb(1.0, 126) * GAMMA, 0}));
    assertFalse(s.fits(new double[] {Double.POSITIVE_INFINITY, 0}));
    assertEquals(before, units(s), "fits changes nothing");
    assertArrayEquals(new double[] {3 * big, -3 * big}, s.values());
  }

  @Test
  void toDouble_of128BitSums_isCorrectAcrossTheLowWord() {
    assertEquals(-1.0, GridSum.toDouble(-1, -1));
    assertEquals(0x1p64, GridSum.toDouble(1, 0));
    assertEquals(0x1p63, GridSum.toDouble(0, Long.MIN_VALUE)); // lo unsigned 2^63
    assertEquals(-0x1p64, GridSum.toDouble(-1, 0));
  }
}
