package io.dplrf.sketch.noise;

import io.dplrf.sketch.randomness.RandomBits;
import java.util.Objects;

/**
 * The bits of a {@link RandomBits} source read k at a time, in stream order, so that a sampler
 * that needs 1, 24 or 53 bits does not spend a 64-bit word on each draw. Every value returned is
 * made of fresh, unused stream bits, so draws are independent and uniform. Not thread-safe.
 */
final class BitReader {
  private final RandomBits source;
  /** The unread bits, left-aligned: the next bit is the top bit of {@code word}. */
  private long word;
  private int left;

  BitReader(RandomBits source) {
    this.source = Objects.requireNonNull(source, "source");
  }

  /** The next {@code k} bits as an unsigned integer, first bit most significant; 1 ≤ k ≤ 64. */
  long bits(int k) {
    if (k <= left) {
      if (k == 64) { // left == 64: a shift by 64 would be a shift by 0
        left = 0;
        return word;
      }
      long r = word >>> (64 - k);
      word <<= k;
      left -= k;
      return r;
    }
    int need = k - left; // in [1, 64]
    long high = left == 0 ? 0 : word >>> (64 - left);
    long fresh = source.nextLong();
    long low = fresh >>> (64 - need);
    word = need == 64 ? 0 : fresh << need;
    left = 64 - need;
    return need == 64 ? low : (high << need) | low;
  }

  boolean bit() {
    if (left == 0) {
      word = source.nextLong();
      left = 64;
    }
    boolean b = word < 0;
    word <<= 1;
    left--;
    return b;
  }

  /**
   * A uniform integer in [0, bound) for 0 < bound ≤ 2^31, from 32-bit draws: Lemire's
   * multiply-and-reject method (ACM TOMACS 2019, Algorithm 5), as {@link
   * RandomBits#nextLongBelow} but on 32 bits. x·bound < 2^63, so the product is exact.
   */
  int below32(long bound) {
    long m = bits(32) * bound;
    long low = m & 0xFFFF_FFFFL;
    if (low < bound) {
      long threshold = ((1L << 32) - bound) % bound; // 2^32 mod bound
      while (low < threshold) {
        m = bits(32) * bound;
        low = m & 0xFFFF_FFFFL;
      }
    }
    return (int) (m >>> 32);
  }

  /** A uniform integer in [0, bound) for bound > 0: Lemire's method on 64-bit draws. */
  long below64(long bound) {
    long x = bits(64);
    long low = x * bound;
    if (Long.compareUnsigned(low, bound) < 0) {
      long threshold = Long.remainderUnsigned(-bound, bound); // 2^64 mod bound
      while (Long.compareUnsigned(low, threshold) < 0) {
        x = bits(64);
        low = x * bound;
      }
    }
    return Math.multiplyHigh(x, bound) + ((x >> 63) & bound);
  }
}
