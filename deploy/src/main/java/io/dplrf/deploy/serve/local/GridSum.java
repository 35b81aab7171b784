package io.dplrf.deploy.serve.local;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * An exact sum of vectors whose entries lie on one power-of-two grid γℤ with |entry| ≤ 2⁶²·γ
 * (ingest's report decoders check both), plus a copy of it taken at the last epoch close. Each
 * entry is kept in grid units as a 128-bit two's-complement integer (hi, lo), which cannot
 * overflow before 2⁶⁵ additions: the sum is independent of the order of the additions and is
 * stored bit for bit. Converted to doubles only for post-processing ({@link #closedValues}).
 *
 * <p>Used by the local-mode aggregates ({@link LocalTarget}: one grid; {@link
 * LocalRobustTarget}: one per sketch). Not thread-safe: the owner synchronizes.
 */
final class GridSum {
  private final double gamma;
  private final long[] hi;
  private final long[] lo;
  private final long[] closedHi;
  private final long[] closedLo;

  /** A zero sum of {@code n} entries on the grid γℤ ({@code gamma} a power of two). */
  GridSum(int n, double gamma) {
    this.gamma = gamma;
    hi = new long[n];
    lo = new long[n];
    closedHi = new long[n];
    closedLo = new long[n];
  }

  int size() {
    return hi.length;
  }

  /** Adds {@code v} (length {@link #size}, entries checked on γℤ and within 2⁶²·γ). */
  void add(double[] v) {
    for (int e = 0; e < v.length; e++) {
      long k = (long) (v[e] / gamma); // exact: v on γℤ, |v/γ| ≤ 2^62, γ a power of two
      long s = lo[e] + k;
      // 128-bit add of sign-extended k: carry out of the unsigned low word, plus k's sign word.
      hi[e] += (k >> 63) + (Long.compareUnsigned(s, lo[e]) < 0 ? 1 : 0);
      lo[e] = s;
    }
  }

  /** Copies the live sum aside: it is what {@link #closedValues} returns until the next close. */
  void close() {
    System.arraycopy(hi, 0, closedHi, 0, hi.length);
    System.arraycopy(lo, 0, closedLo, 0, lo.length);
  }

  /** The sum at the last close, in the units of the added vectors (rounded from exact). */
  double[] closedValues() {
    double[] y = new double[hi.length];
    for (int e = 0; e < y.length; e++) {
      y[e] = toDouble(closedHi[e], closedLo[e]) * gamma; // γ a power of two: exact scaling
    }
    return y;
  }

  /** The 128-bit integer hi·2⁶⁴ + lo (lo unsigned), rounded to a double. */
  static double toDouble(long hi, long lo) {
    if (hi == (lo >> 63)) {
      return (double) lo; // fits in 64 bits
    }
    // Two roundings (each ≤ 2^-53 relative); the release is an SVD, far coarser than that.
    double low = (double) (lo >>> 1) * 2.0 + (lo & 1);
    return Math.scalb((double) hi, 64) + low;
  }

  /** Writes the live sum, then the closed one: per entry (hi int64, lo int64), in order. */
  void write(DataOutputStream d) throws IOException {
    for (long[][] pair : new long[][][] {{hi, lo}, {closedHi, closedLo}}) {
      for (int e = 0; e < hi.length; e++) {
        d.writeLong(pair[0][e]);
        d.writeLong(pair[1][e]);
      }
    }
  }

  /** Reads what {@link #write} wrote, replacing both sums. */
  void read(DataInputStream d) throws IOException {
    for (long[][] pair : new long[][][] {{hi, lo}, {closedHi, closedLo}}) {
      for (int e = 0; e < hi.length; e++) {
        pair[0][e] = d.readLong();
        pair[1][e] = d.readLong();
      }
    }
  }

  /** Bytes of the four arrays. */
  long sizeInBytes() {
    return 4L * 8 * hi.length;
  }
}
