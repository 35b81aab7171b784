package io.dplrf.sketch.noise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ScaledExpTest {
  private static final long SEED = 4242L;
  private static final MathContext MC = new MathContext(60);

  private static RandomBits bits(String label) {
    return KeyStream.of(SecretKey.forTesting(SEED), label).bits();
  }

  /**
   * S_K(z) ≤ e^{−z} ≤ S_{K+1}(z) for odd K and z ∈ [0, 1], to 400 digits (the gap, z^{K+1}/(K+1)!,
   * is below 10^−140 for the smallest z here).
   */
  @Test
  void partialSums_bracketTheExponential() {
    MathContext fine = new MathContext(400);
    long[][] fractions = {{0, 1}, {1, 3}, {1, 2}, {999, 1000}, {1, 1}, {12345, 2_000_000_000}};
    for (long[] f : fractions) {
      BigInteger a = BigInteger.valueOf(f[0]);
      BigInteger b = BigInteger.valueOf(f[1]);
      for (int k = 3; k <= 23; k += 4) {
        BigDecimal lower = ratio(ScaledExp.partialSum(a, b, k), fine);
        BigDecimal upper = ratio(ScaledExp.partialSum(a, b, k + 1), fine);
        BigDecimal e = BlockDiscreteGaussianTest.expOfMinus(
            new BigDecimal(a).divide(new BigDecimal(b), fine), fine);
        assertTrue(lower.compareTo(e) <= 0, f[0] + "/" + f[1] + " K=" + k);
        assertTrue(upper.compareTo(e) >= 0, f[0] + "/" + f[1] + " K=" + (k + 1));
        assertTrue(lower.signum() >= 0);
      }
    }
  }

  /**
   * Against a 60-digit reference: U's first 53 bits are placed on, next to and far from the
   * threshold t = 2^k/w·e^{−x²/(2s²)} (body-like k = 52 and tail-like k = 61); the decision is
   * [U < t] where U is read to 117 bits from the same stream (cases within 2^−116 of t skipped:
   * none occur with these inputs). Both the filtered and the exact-only paths are checked.
   */
  @ParameterizedTest
  @CsvSource({"1073754169,52,4503599627370496", "1073754169,52,3000000000000000",
      "1073754169,61,7", "1000,52,4000000000000000", "3,61,1234567"})
  void decision_matchesReference(long s, int k, long w) {
    long twoS2 = 2 * s * s;
    RandomBits pick = bits("se-pick-" + s + "-" + k);
    int decided = 0;
    for (int trial = 0; trial < 400; trial++) {
      long absX = pick.nextLongBelow(k == 52 ? 3 * s : 10 * s) + (k == 52 ? 0 : 9 * s);
      BigDecimal t = new BigDecimal(BigInteger.ONE.shiftLeft(k))
          .divide(BigDecimal.valueOf(w), MC).multiply(BlockDiscreteGaussianTest.expMinus(absX, s));
      if (t.compareTo(BigDecimal.ONE) >= 0) {
        continue; // not a probability: the samplers never ask
      }
      long center = t.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(53))).longValue();
      for (long u : new long[] {center - 1000, center - 1, center, center + 1, center + 1000,
          center / 2}) {
        if (u < 0 || u >= (1L << 53)) {
          continue;
        }
        String label = "se-" + s + "-" + k + "-" + trial + "-" + u;
        BigDecimal uReal = new BigDecimal(BigInteger.valueOf(u).shiftLeft(64)
            .or(BigInteger.valueOf(bits(label).nextLong()).and(LOW_64)))
            .divide(new BigDecimal(BigInteger.ONE.shiftLeft(117)), MC);
        if (uReal.subtract(t).abs().compareTo(BigDecimal.ONE.movePointLeft(35)) < 0) {
          continue; // 2^−116 ≈ 1.2e-35
        }
        boolean expected = uReal.compareTo(t) < 0;
        String where = "s " + s + " k " + k + " w " + w + " |x| " + absX + " u " + u;
        assertEquals(expected, ScaledExp.uniformBelow(
            new BitReader(bits(label)), u, absX, twoS2, k, w), "filtered " + where);
        assertEquals(expected, ScaledExp.exactly(
            new BitReader(bits(label)), u, absX, twoS2, k, w), "exact " + where);
        decided++;
      }
    }
    assertTrue(decided > 1000, "decided " + decided);
  }

  /** γ > 4096: only the bound e^{−γ} ≤ 2^−q is needed, for any U not astronomically small. */
  @Test
  void hugeExponent_rejectsWithTheCrudeBound() {
    long s = 1000;
    assertFalse(ScaledExp.exactly(new BitReader(bits("se-huge-1")), 1, 100 * s, 2 * s * s, 52, 1));
    assertFalse(ScaledExp.exactly(new BitReader(bits("se-huge-0")), 0, 100 * s, 2 * s * s, 52, 1));
    assertFalse(ScaledExp.uniformBelow(new BitReader(bits("se-huge-2")), 0, 1L << 40, 2 * s * s,
        52, 1));
  }

  /**
   * γ ≈ 5,000 with U's first 80 words all zero (U < 2^−5100): the crude bound cannot decide in its
   * 78 rounds, the full bounds must, and correctly (U·w·2^−k ≥ e^{−γ} ≈ 2^−7213 once a non-zero
   * word arrives). It takes ≈ 0.05 s; with the crude rounds lengthening the series as they once
   * did (7 + 8·78 terms, raised to the 5,000th power) it took 48 s, which the 10 s limit fails.
   */
  @Test
  void crudeRounds_handOverToTheFullBounds() {
    RandomBits tail = bits("se-crude-tail");
    long[] drawn = {0};
    RandomBits zerosFirst = () -> drawn[0]++ < 80 ? 0 : tail.nextLong();
    long s = 1000;
    assertFalse(org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
        java.time.Duration.ofSeconds(10),
        () -> ScaledExp.exactly(new BitReader(zerosFirst), 0, 100_007, 2 * s * s, 52, 1)));
    assertTrue(drawn[0] > 80, "the full bounds read past the zero words");
  }

  private static final BigInteger LOW_64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  private static BigDecimal ratio(BigInteger[] numDen, MathContext mc) {
    return new BigDecimal(numDen[0]).divide(new BigDecimal(numDen[1]), mc);
  }
}
