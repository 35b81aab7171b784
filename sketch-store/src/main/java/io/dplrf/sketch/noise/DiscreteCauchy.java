package io.dplrf.sketch.noise;

import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.randomness.RandomBits;
import java.math.BigInteger;
import java.util.Objects;

/**
 * A discrete Cauchy law on ℤ: P[X = x] = s²/(s² + x²) / Z(s), for a rational s² = num/den, with
 * the exact normaliser Z(s) = Σ_x s²/(s² + x²) = π·s·coth(π·s) (partial fractions of coth). It
 * is the noise of the pure-DP smooth-sensitivity mechanism (docs/privacy/smooth-sensitivity.md
 * §5): its pointwise ratios under integer shifts and under a change of s are those of the
 * continuous Cauchy density, which is what a pure ε guarantee needs, and it has an exact sampler.
 *
 * <p><b>Sampler</b> (rejection, exact). With S = ⌈s⌉ ≥ 1, propose a level m ≥ 0 with
 * P[m] = 2^{−(m+1)} (count fair bits up to the first 1), then x uniform on the block B₀ =
 * {|x| < S} (2S − 1 points) or B_m = {2^{m−1}S ≤ |x| < 2^m·S} (2^m·S points, m ≥ 1). The proposal
 * is q(x) = 1/(2(2S − 1)) on B₀ and 1/(2·4^m·S) on B_m. Against p̃(x) = s²/(s² + x²): on B₀,
 * p̃/q ≤ 2(2S − 1) < 4S; on B_m, x² ≥ 4^{m−1}S² ≥ 4^{m−1}s², so p̃ ≤ 4^{1−m} and
 * p̃/q ≤ 8S. With the envelope 8S, accept with probability p̃(x)/(8S·q(x)):
 * <ul>
 *   <li>B₀: s²(2S − 1)/(4S(s² + x²)) = num(2S − 1)/(4S(num + den·x²)),
 *   <li>B_m: 4^{m−1}s²/(s² + x²) = 4^{m−1}num/(num + den·x²) (≤ 1 by the bound on x²),
 * </ul>
 * so every x is returned with probability ∝ q(x)·p̃(x)/(8S q(x)) = p̃(x)/(8S). Acceptance rate
 * Z(s)/(8S) ≈ π/8; every decision compares uniform integers with integers. The support is all of
 * ℤ (no truncation: a truncated tail would break pure differential privacy).
 *
 * <p>Immutable and thread-safe (the {@link RandomBits} argument is not).
 */
public final class DiscreteCauchy {
  private final BigInteger num;
  private final BigInteger den;
  private final BigInteger ceilS;

  private DiscreteCauchy(BigInteger num, BigInteger den) {
    this.num = num;
    this.den = den;
    BigInteger f = BigExact.floorSqrt(num, den);
    BigInteger c = f.multiply(f).multiply(den).equals(num) ? f : f.add(BigInteger.ONE);
    this.ceilS = c.max(BigInteger.ONE);
  }

  /** The law with s² = num/den. */
  public static DiscreteCauchy withScaleSquared(BigInteger num, BigInteger den) {
    Objects.requireNonNull(num, "num");
    Objects.requireNonNull(den, "den");
    Preconditions.check(num.signum() > 0, "num", "> 0", num);
    Preconditions.check(den.signum() > 0, "den", "> 0", den);
    return new DiscreteCauchy(num, den);
  }

  /** The law with scale s, a positive double taken exactly (s² = M²·2^{2e}). */
  public static DiscreteCauchy withScale(double s) {
    BigInteger[] sq = BigExact.squareOf("s", s);
    return new DiscreteCauchy(sq[0], sq[1]);
  }

  /** ⌈s⌉ (at least 1), the block unit of the proposal. */
  BigInteger blockUnit() {
    return ceilS;
  }

  public BigInteger sample(RandomBits bits) {
    Objects.requireNonNull(bits, "bits");
    BigInteger s = ceilS;
    BigInteger twoSMinusOne = s.shiftLeft(1).subtract(BigInteger.ONE);
    while (true) {
      int m = 0;
      while (!bits.nextBoolean()) {
        m++;
      }
      BigInteger x;
      BigInteger accNum;
      if (m == 0) {
        x = BigExact.uniformBelow(bits, twoSMinusOne).subtract(s.subtract(BigInteger.ONE));
        accNum = num.multiply(twoSMinusOne);
        BigInteger accDen = s.shiftLeft(2).multiply(num.add(den.multiply(x.multiply(x))));
        if (BigExact.ratio(bits, accNum, accDen)) {
          return x;
        }
      } else {
        BigInteger half = s.shiftLeft(m - 1); // 2^{m−1}·S: the block's inner radius and half-size
        BigInteger u = BigExact.uniformBelow(bits, half.shiftLeft(1));
        boolean negative = u.compareTo(half) >= 0;
        BigInteger mag = half.add(negative ? u.subtract(half) : u);
        x = negative ? mag.negate() : mag;
        accNum = num.shiftLeft(2 * (m - 1));
        BigInteger accDen = num.add(den.multiply(mag.multiply(mag)));
        if (BigExact.ratio(bits, accNum, accDen)) {
          return x;
        }
      }
    }
  }

  @Override
  public String toString() {
    return "DiscreteCauchy[s^2=" + num + "/" + den + "]";
  }
}
