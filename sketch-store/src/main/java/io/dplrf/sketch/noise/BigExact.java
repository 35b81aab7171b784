package io.dplrf.sketch.noise;

import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.randomness.RandomBits;
import java.math.BigInteger;

/**
 * {@link ExactBernoulli}'s trials for integers of any size, for the samplers whose scale is a
 * rational number with a large numerator ({@link RationalDiscreteGaussian}, {@link
 * DiscreteCauchy}). Exact: every decision compares uniform random integers with integers.
 * Stateless; the {@link RandomBits} argument is not thread-safe.
 */
final class BigExact {
  private static final BigInteger LONG_BOUND = BigInteger.ONE.shiftLeft(62);

  private BigExact() {}

  /**
   * A uniform integer in [0, bound): {@link RandomBits#nextLongBelow} below 2^62, otherwise
   * rejection sampling of bitLength(bound) uniform bits (accepts with probability > 1/2).
   */
  static BigInteger uniformBelow(RandomBits bits, BigInteger bound) {
    Preconditions.check(bound.signum() > 0, "bound", "> 0", bound);
    if (bound.compareTo(LONG_BOUND) < 0) {
      return BigInteger.valueOf(bits.nextLongBelow(bound.longValue()));
    }
    int b = bound.bitLength();
    int words = (b + 63) / 64;
    byte[] buf = new byte[8 * words + 1]; // leading zero byte: the value is non-negative
    while (true) {
      for (int w = 0; w < words; w++) {
        long v = bits.nextLong();
        for (int i = 0; i < 8; i++) {
          buf[1 + 8 * w + i] = (byte) (v >>> (56 - 8 * i));
        }
      }
      BigInteger r = new BigInteger(buf);
      int excess = 64 * words - b;
      if (excess > 0) {
        r = r.shiftRight(excess); // keep the b most significant random bits
      }
      if (r.compareTo(bound) < 0) {
        return r;
      }
    }
  }

  /** Bernoulli(n/d) for 0 ≤ n ≤ d, d > 0: a uniform integer in [0, d) is below n. */
  static boolean ratio(RandomBits bits, BigInteger n, BigInteger d) {
    if (n.signum() <= 0) {
      return false;
    }
    if (n.compareTo(d) >= 0) {
      return true;
    }
    return uniformBelow(bits, d).compareTo(n) < 0;
  }

  /**
   * Bernoulli(exp(−n/d)) for 0 ≤ n ≤ d: CKS Algorithm 1, case γ = n/d ∈ [0, 1] (as {@link
   * ExactBernoulli#expMinusAtMostOne}): draw A_k ~ Bernoulli(γ/k), k = 1, 2, …, until the first
   * failure at K; P[K odd] = e^{−γ}.
   */
  static boolean expMinusAtMostOne(RandomBits bits, BigInteger n, BigInteger d) {
    long k = 1;
    while (ratio(bits, n, d.multiply(BigInteger.valueOf(k)))) {
      k++;
    }
    return (k & 1) == 1;
  }

  /**
   * Bernoulli(exp(−n/d)) for n ≥ 0, d > 0: CKS Algorithm 1, case γ > 1, as
   * (e^{−1})^{⌊γ⌋}·e^{−(γ − ⌊γ⌋)}; the loop stops at the first failed Bernoulli(e^{−1}) trial, so
   * its expected length is O(1) however large ⌊γ⌋ is.
   */
  static boolean expMinus(RandomBits bits, BigInteger n, BigInteger d) {
    BigInteger[] qr = n.divideAndRemainder(d);
    for (BigInteger q = qr[0]; q.signum() > 0; q = q.subtract(BigInteger.ONE)) {
      if (!ExactBernoulli.expMinusOne(bits)) {
        return false;
      }
    }
    return expMinusAtMostOne(bits, qr[1], d);
  }

  /**
   * A positive finite double x as an exact fraction x² = num/den with den a power of four: x =
   * M·2^e with an integer M < 2^53, so x² = M²·2^{2e}.
   *
   * @return {num, den}
   */
  static BigInteger[] squareOf(String name, double x) {
    Preconditions.check(x > 0 && x < Double.POSITIVE_INFINITY, name, "> 0 and finite", x);
    if (Math.getExponent(x) < Double.MIN_EXPONENT) {
      throw Preconditions.invalid(name, "a normal double", x);
    }
    int e = Math.getExponent(x) - 52;
    long m = (long) Math.scalb(x, -e); // exact: x·2^{-e} is an integer in [2^52, 2^53)
    BigInteger m2 = BigInteger.valueOf(m).pow(2);
    return e >= 0
        ? new BigInteger[] {m2.shiftLeft(2 * e), BigInteger.ONE}
        : new BigInteger[] {m2, BigInteger.ONE.shiftLeft(-2 * e)};
  }

  /** ⌊√(num/den)⌋ for num ≥ 0, den > 0 (⌊√⌊y⌋⌋ = ⌊√y⌋ for y ≥ 0). */
  static BigInteger floorSqrt(BigInteger num, BigInteger den) {
    return num.divide(den).sqrt();
  }
}
