package io.dplrf.sketch.noise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.stats.ChiSquare;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class BlockDiscreteGaussianTest {
  private static final long SEED = 31337L;
  private static final MathContext MC = new MathContext(60);

  private static RandomBits bits(String label) {
    return KeyStream.of(SecretKey.forTesting(SEED), label).bits();
  }

  /**
   * Exact pmf ∝ exp(−x²/(2s²)), 200,000 draws, Pearson chi-square over integers (tails pooled),
   * false alarm 1e-6 per case. bodySigmas = 1 puts ≈ 32% of the mass in the tails, so the tail
   * proposal and its acceptance are checked as closely as the body; s = 200 and 1000 have blocks
   * of 2 and 8 integers.
   */
  @ParameterizedTest
  @CsvSource({"1,9", "2,9", "3,9", "7,9", "200,9", "1000,9", "1,1", "3,1", "50,1", "1000,1",
      "1000,2"})
  void matchesExactPmf_chiSquareFalseAlarm1e6(long s, int bodySigmas) {
    String label = "bdg-pmf-" + s + "-" + bodySigmas;
    BlockDiscreteGaussian g = BlockDiscreteGaussian.withScale(s, bodySigmas);
    BitReader reader = new BitReader(bits(label));
    double p = PmfCheck.pValue(() -> g.sample(reader),
        x -> Math.exp(-(double) x * x / (2.0 * s * s)), 200_000, 60 * s + 60);
    assertTrue(p > 1e-6, "p=" + p + " seed " + SEED + " label " + label);
  }

  /**
   * The grid's scale (s ∈ [2^30, 2^31)): mean, variance and fourth moment within CLT bounds at a
   * two-sided false alarm of 1e-6 each (variance s² to 1e-15, as in DiscreteGaussianTest; the
   * fourth moment 3s⁴ with the normal's variance of x⁴, 96s⁸).
   */
  @ParameterizedTest
  @ValueSource(longs = {1L << 30, (1L << 30) + 12345, (1L << 31) - 1})
  void gridScale_momentsWithinCltBounds(long s) {
    String label = "bdg-large-" + s;
    BlockDiscreteGaussian g = BlockDiscreteGaussian.withScale(s);
    BitReader reader = new BitReader(bits(label));
    int n = 400_000;
    double sum = 0;
    double sum2 = 0;
    double sum4 = 0;
    for (int i = 0; i < n; i++) {
      double x = g.sample(reader) / (double) s;
      sum += x;
      sum2 += x * x;
      sum4 += x * x * x * x;
    }
    double z = ChiSquare.Z_1E6_TWO_SIDED;
    String where = " seed " + SEED + " label " + label;
    assertTrue(Math.abs(sum / n) <= z / Math.sqrt(n), "mean " + sum / n + where);
    assertTrue(Math.abs(sum2 / n - 1) <= z * Math.sqrt(2.0 / n), "var " + sum2 / n + where);
    assertTrue(Math.abs(sum4 / n - 3) <= z * Math.sqrt(96.0 / n), "m4 " + sum4 / n + where);
  }

  /** Every outcome's shares in the alias table add up to its weight exactly. */
  @ParameterizedTest
  @CsvSource({"1,9", "3,1", "200,9", "1000,2", "1073741824,9", "2147483647,9", "1500000000,16"})
  void aliasTable_holdsEveryWeightExactly(long s, int bodySigmas) {
    BlockDiscreteGaussian g = BlockDiscreteGaussian.withScale(s, bodySigmas);
    for (int o = 0; o < g.outcomes(); o++) {
      assertEquals(g.weight(o), g.aliasWeight(o), "outcome " + o + " of " + g);
    }
  }

  /**
   * The proposal dominates: w_o ≥ 2^52·f(m_o) for every body block and w_T ≥ 2^54·(S/B)·f(R),
   * checked against e^{−γ} to 60 digits (the proof is in the class comment; this tests it).
   */
  @ParameterizedTest
  @CsvSource({"1,9", "3,1", "200,9", "1000,2", "1073741824,9", "1073754169,9", "2147483647,9"})
  void weights_boundTheDensityFromAbove(long s, int bodySigmas) {
    BlockDiscreteGaussian g = BlockDiscreteGaussian.withScale(s, bodySigmas);
    BigDecimal w52 = new BigDecimal(BigInteger.ONE.shiftLeft(52));
    for (int o = 0; o < g.tailOutcome(); o++) {
      BigDecimal f = expMinus(g.nearest(o), s);
      assertTrue(new BigDecimal(g.weight(o)).compareTo(w52.multiply(f)) >= 0,
          "block " + o + " of " + g);
    }
    BigDecimal tailScale = new BigDecimal(
        BigInteger.ONE.shiftLeft(54 + g.tailBits() - g.blockBits()));
    assertTrue(new BigDecimal(g.weight(g.tailOutcome()))
        .compareTo(tailScale.multiply(expMinus(g.bodyEnd(), s))) >= 0, "tail of " + g);
  }

  /**
   * The squeeze and the floating-point filter never contradict the exact comparison: for body
   * points and U-prefixes placed at and around each filter's cut (1 − y, 1 − y + y²/2 and the
   * threshold itself), {@code acceptBody} and {@link ScaledExp#exactly}, reading the same bits,
   * agree. The cuts are where a wrong margin would show.
   */
  @ParameterizedTest
  @ValueSource(longs = {3, 200, 1000, 1073754169})
  void filters_agreeWithExactComparison(long s) {
    BlockDiscreteGaussian g = BlockDiscreteGaussian.withScale(s);
    RandomBits pick = bits("bdg-filter-pick-" + s);
    long twoS2 = 2 * s * s;
    int checked = 0;
    for (int trial = 0; trial < 3000; trial++) {
      int o = (int) pick.nextLongBelow(g.tailOutcome());
      long x = g.blockStart(o) + (g.blockBits() == 0 ? 0 : pick.nextLongBelow(1L << g.blockBits()));
      double rho = Math.scalb(expMinus(g.nearest(o), s).doubleValue(), 52) / g.weight(o);
      double y = ((double) Math.abs(x) * Math.abs(x) - (double) g.nearest(o) * g.nearest(o))
          / twoS2;
      double[] cuts = {rho * (1 - y), rho * (1 - y + y * y / 2), rho * Math.exp(-y)};
      for (double cut : cuts) {
        long center = (long) Math.floor(cut * 0x1p53);
        for (long du = -2; du <= 2; du++) {
          long u = Math.max(0, Math.min((1L << 53) - 1, center + du));
          String label = "bdg-filter-" + s + "-" + trial + "-" + checked;
          boolean filtered = g.acceptBody(new BitReader(bits(label)), o, x, u);
          boolean exact = ScaledExp.exactly(new BitReader(bits(label)), u, Math.abs(x), twoS2, 52,
              g.weight(o));
          assertEquals(exact, filtered, "s " + s + " x " + x + " u " + u + " label " + label);
          checked++;
        }
      }
    }
    assertEquals(3000 * 15, checked);
  }

  /**
   * A fixed key and label give these samples in every build: the noise of a released node is
   * re-derived from its label and must never change. A failure here means stored nodes would
   * release new noise; bump the stream's sampler version instead of the golden values.
   */
  @Test
  void derivation_isFixed() {
    BlockDiscreteGaussian g = BlockDiscreteGaussian.withScale((1L << 30) + 12345);
    BitReader reader = new BitReader(bits("bdg-golden"));
    long[] drawn = new long[6];
    for (int i = 0; i < drawn.length; i++) {
      drawn[i] = g.sample(reader);
    }
    assertArrayEquals(GOLDEN, drawn, java.util.Arrays.toString(drawn));
  }

  private static final long[] GOLDEN =
      {-341746938, -2190615364L, -1014175994, -1024443970, 2181771235L, -1614536833};

  @Test
  void invalidScale_isRejected() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BlockDiscreteGaussian.withScale(0));
    assertEquals("s must be in [1, 2^31 - 1]. Provided value: 0", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> BlockDiscreteGaussian.withScale(1L << 31));
  }

  /** e^{−m²/(2s²)} to 60 significant digits. */
  static BigDecimal expMinus(long m, long s) {
    BigDecimal gamma = new BigDecimal(BigInteger.valueOf(m).pow(2))
        .divide(new BigDecimal(BigInteger.valueOf(2 * s).multiply(BigInteger.valueOf(s))), MC);
    return expOfMinus(gamma, MC);
  }

  /**
   * e^{−z} for z ≥ 0 to mc's precision: 1/e^z by its Taylor series (all terms positive), summed
   * until a term is 10 digits below the precision.
   */
  static BigDecimal expOfMinus(BigDecimal z, MathContext mc) {
    BigDecimal sum = BigDecimal.ONE;
    BigDecimal term = BigDecimal.ONE;
    for (int i = 1; term.compareTo(sum.movePointLeft(mc.getPrecision() + 10)) > 0; i++) {
      term = term.multiply(z, mc).divide(BigDecimal.valueOf(i), mc);
      sum = sum.add(term, mc);
    }
    return BigDecimal.ONE.divide(sum, mc);
  }
}
