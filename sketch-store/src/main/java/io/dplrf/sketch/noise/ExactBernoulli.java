package io.dplrf.sketch.noise;

import io.dplrf.sketch.randomness.RandomBits;
import java.math.BigInteger;

/**
 * Exact Bernoulli trials with rational (or exp(−rational)) success probabilities: CKS Algorithm 1
 * and the uniform-integer comparisons under it. Integer arithmetic only (BigInteger once, at class
 * initialisation, for the bits of e^{−1}).
 */
final class ExactBernoulli {
  private ExactBernoulli() {}

  /** Bernoulli(n / d) for 0 <= n <= d, d > 0: a uniform integer in [0, d) is below n. */
  static boolean ratio(RandomBits bits, long n, long d) {
    if (n <= 0) {
      return false;
    }
    if (n >= d) {
      return true;
    }
    return bits.nextLongBelow(d) < n;
  }

  /**
   * Bernoulli(n / (d·k)) for 0 <= n <= d, d, k > 0. One uniform in [0, d·k) when d·k fits a long;
   * otherwise the product of independent Bernoulli(1/k) and Bernoulli(n/d) trials, which has the
   * same success probability and needs no wider arithmetic.
   */
  static boolean ratio(RandomBits bits, long n, long d, long k) {
    if (Math.multiplyHigh(d, k) == 0 && d * k > 0) {
      return ratio(bits, n, d * k);
    }
    return bits.nextLongBelow(k) == 0 && ratio(bits, n, d);
  }

  /**
   * Bernoulli(exp(−n/d)) for 0 <= n <= d, d > 0: CKS Algorithm 1, case γ = n/d ∈ [0, 1]. Draw
   * A_k ~ Bernoulli(γ/k) for k = 1, 2, … until the first failure at K; then P[K > k] = γ^k/k! and
   * P[K odd] = Σ_j (−γ)^j/j! = e^{−γ}. The loop counter cannot overflow: reaching k requires
   * an event of probability γ^k/k!.
   */
  static boolean expMinusAtMostOne(RandomBits bits, long n, long d) {
    long k = 1;
    while (ratio(bits, n, d, k)) {
      k++;
    }
    return (k & 1) == 1;
  }

  /** Words of the binary expansion of e^{−1}, computed exactly; grown on the (2^−256) demand. */
  private static volatile long[] expMinusOneWords = expansionOfExpMinusOne(4);

  /**
   * Bernoulli(e^{−1}) by lazy comparison: a uniform real W = 0.w₀w₁w₂… (64-bit words from {@code
   * bits}) is below e^{−1} iff, at the first word where W and the binary expansion of e^{−1}
   * differ, W's word is smaller. Exact (e^{−1} is irrational, so the comparison ends with
   * probability 1) and uses one word except with probability 2^−64. Equivalent in distribution to
   * CKS Algorithm 1 with γ = 1, which costs e − 1 ≈ 1.7 words and as many unpredictable branches;
   * this is the sampler's hottest trial (the geometric count V of Algorithm 2).
   */
  static boolean expMinusOne(RandomBits bits) {
    long[] e = expMinusOneWords;
    for (int i = 0; ; i++) {
      if (i == e.length) {
        e = expansionOfExpMinusOne(2 * e.length);
        expMinusOneWords = e;
      }
      long w = bits.nextLong();
      if (w != e[i]) {
        return Long.compareUnsigned(w, e[i]) < 0;
      }
    }
  }

  /**
   * The first 64·words bits of e^{−1} after the binary point, exactly. With A = Σ_{k≤n} (−1)^k
   * n!/k!, the alternating series gives A/n! − 1/(n+1)! < e^{−1} < A/n! + 1/(n+1)!; n grows until
   * both bounds have the same first B = 64·words bits (BigInteger arithmetic, class-init only).
   */
  static long[] expansionOfExpMinusOne(int words) {
    int b = 64 * words;
    for (int n = 8; ; n += 8) {
      BigInteger nFact = BigInteger.ONE;
      for (int k = 2; k <= n; k++) {
        nFact = nFact.multiply(BigInteger.valueOf(k));
      }
      BigInteger a = BigInteger.ZERO;
      BigInteger term = nFact; // n!/k! for k = 0
      for (int k = 0; k <= n; k++) {
        a = (k % 2 == 0) ? a.add(term) : a.subtract(term);
        if (k < n) {
          term = term.divide(BigInteger.valueOf(k + 1));
        }
      }
      // Bounds times 2^B: (A(n+1) ∓ 1)·2^B / (n+1)!.
      BigInteger den = nFact.multiply(BigInteger.valueOf(n + 1));
      BigInteger mid = a.multiply(BigInteger.valueOf(n + 1));
      BigInteger lo = mid.subtract(BigInteger.ONE).shiftLeft(b).divide(den);
      BigInteger hi = mid.add(BigInteger.ONE).shiftLeft(b).divide(den);
      if (lo.equals(hi)) {
        long[] out = new long[words];
        for (int i = 0; i < words; i++) {
          out[i] = lo.shiftRight(64 * (words - 1 - i)).longValue();
        }
        return out;
      }
    }
  }

  /**
   * Bernoulli(exp(−n/d)) for an unsigned 128-bit n = hi·2^64 + lo and 0 < d < 2^63: CKS Algorithm
   * 1, case γ > 1, as e^{−γ} = (e^{−1})^{⌊γ⌋}·e^{−(γ − ⌊γ⌋)}. Instead of dividing, subtract d
   * once per successful Bernoulli(e^{−1}) trial; the first failure ends the loop, so the expected
   * work is O(1) however large γ is. Exact unsigned 128-bit compare and subtract on two longs.
   */
  static boolean expMinus(RandomBits bits, long hi, long lo, long d) {
    while (hi != 0 || Long.compareUnsigned(lo, d) >= 0) {
      if (!expMinusOne(bits)) {
        return false;
      }
      if (Long.compareUnsigned(lo, d) < 0) {
        hi--; // borrow
      }
      lo -= d;
    }
    return expMinusAtMostOne(bits, lo, d); // here 0 <= lo < d < 2^63
  }
}
