package io.dplrf.sketch.noise;

import io.dplrf.sketch.randomness.RandomBits;

/**
 * Exact Bernoulli trials with rational (or exp(−rational)) success probabilities: CKS Algorithm 1
 * and the uniform-integer comparisons under it. Integer arithmetic only.
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

  /** Bernoulli(exp(−1)). */
  static boolean expMinusOne(RandomBits bits) {
    return expMinusAtMostOne(bits, 1, 1);
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
