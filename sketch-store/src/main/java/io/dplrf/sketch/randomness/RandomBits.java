package io.dplrf.sketch.randomness;

import io.dplrf.sketch.params.Preconditions;

/**
 * A source of independent uniform bits. Exact samplers take their randomness only from here, so a
 * test can drive them with {@link SecretKey#forTesting} streams and production with keyed streams.
 *
 * <p>Not thread-safe: one reader per thread.
 */
public interface RandomBits {
  /** 64 independent uniform bits. */
  long nextLong();

  /** One uniform bit. */
  default boolean nextBoolean() {
    return nextLong() < 0;
  }

  /**
   * A uniform integer in [0, bound), exactly (no modulo bias): Lemire's multiply-and-reject method
   * (D. Lemire, "Fast Random Integer Generation in an Interval", ACM TOMACS 2019, Algorithm 5).
   * The 128-bit product x·bound is split into its high word (the candidate) and low word; the
   * candidate is rejected iff the low word is below 2^64 mod bound, which makes every result hit
   * by exactly floor(2^64 / bound) values of x.
   *
   * @param bound exclusive upper limit, {@code > 0}
   */
  default long nextLongBelow(long bound) {
    if (bound <= 0) {
      throw Preconditions.invalid("bound", "> 0", bound);
    }
    if ((bound & (bound - 1)) == 0) {
      return nextLong() & (bound - 1);
    }
    long x = nextLong();
    long low = x * bound;
    if (Long.compareUnsigned(low, bound) < 0) {
      long threshold = Long.remainderUnsigned(-bound, bound); // 2^64 mod bound
      while (Long.compareUnsigned(low, threshold) < 0) {
        x = nextLong();
        low = x * bound;
      }
    }
    // Unsigned high word of x·bound for bound >= 0: the signed high word, plus bound when the
    // top bit of x is set (x read as unsigned is x + 2^64).
    return Math.multiplyHigh(x, bound) + ((x >> 63) & bound);
  }

  /** A uniform double in [0, 1): a uniform 53-bit integer times 2^-53 (all values exact). */
  default double nextDouble53() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }
}
