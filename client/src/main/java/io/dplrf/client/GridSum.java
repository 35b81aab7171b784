package io.dplrf.client;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * An exact sum of vectors whose entries lie on one power-of-two grid γℤ (every {@link
 * LocalReport}'s parts do), plus a copy of it taken at the last epoch close. Each entry is kept
 * in grid units as a 128-bit two's-complement integer (hi, lo): the sum is independent of the
 * order of the additions and is stored bit for bit. Converted to doubles only for
 * post-processing ({@link #values}, {@link #closedValues}).
 *
 * <p>An entry v adds k = v/γ, an integer (exact: γ is a power of two and v a multiple of it).
 * Decoded reports have |k| ≤ 2⁶² ({@link ReportPart#exactBound()}), so 2⁶⁵ of them cannot
 * overflow; larger k (a report made in process at a very large ε, whose query is far above the
 * noise scale the grid step follows) are added exactly too, up to |k| &lt; 2¹²⁶, and an addition
 * that would overflow 128 bits is refused ({@link #fits}) rather than wrapped.
 *
 * <p>One per report part in {@link LocalAggregate}. Not thread-safe: the owner synchronizes.
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

  /**
   * True if {@link #add}{@code (v)} keeps every entry exact: each v/γ below 2¹²⁶ in magnitude
   * and no 128-bit sum overflowing. Changes nothing.
   */
  boolean fits(double[] v) {
    long[] k = new long[2];
    for (int e = 0; e < v.length; e++) {
      if (!units(v[e], k)) {
        return false;
      }
      long s = lo[e] + k[1];
      long h = hi[e] + k[0] + (Long.compareUnsigned(s, lo[e]) < 0 ? 1 : 0);
      if (((hi[e] ^ h) & (k[0] ^ h)) < 0) { // both addends of one sign, the sum of the other
        return false;
      }
    }
    return true;
  }

  /** Adds {@code v} (length {@link #size}, entries on γℤ, {@link #fits} checked). */
  void add(double[] v) {
    long[] k = new long[2];
    for (int e = 0; e < v.length; e++) {
      units(v[e], k);
      long s = lo[e] + k[1];
      // 128-bit add: carry out of the unsigned low word, plus k's high word.
      hi[e] += k[0] + (Long.compareUnsigned(s, lo[e]) < 0 ? 1 : 0);
      lo[e] = s;
    }
  }

  /**
   * k = v/γ as a 128-bit integer (hi, lo) into {@code out}; false if |k| ≥ 2¹²⁶ or not finite.
   * For |k| &lt; 2⁶³ it is the {@code long} sign-extended; above, the 53-bit significand of k
   * shifted into place (k is a double, so exact).
   */
  private boolean units(double v, long[] out) {
    double q = v / gamma; // exact: v on γℤ, γ a power of two
    if (Math.abs(q) < 0x1p63) {
      long k = (long) q;
      out[0] = k >> 63;
      out[1] = k;
      return true;
    }
    if (!(Math.abs(q) < 0x1p126)) {
      return false;
    }
    int exponent = Math.getExponent(q); // 63..125
    long significand = (long) Math.scalb(Math.abs(q), 52 - exponent); // < 2^53, exact
    int shift = exponent - 52; // 11..73
    long h = shift >= 64 ? significand << (shift - 64) : significand >>> (64 - shift);
    long l = shift >= 64 ? 0 : significand << shift;
    if (q < 0) { // two's complement of (h, l)
      l = -l;
      h = ~h + (l == 0 ? 1 : 0);
    }
    out[0] = h;
    out[1] = l;
    return true;
  }

  /** Copies the live sum aside: it is what {@link #closedValues} returns until the next close. */
  void close() {
    System.arraycopy(hi, 0, closedHi, 0, hi.length);
    System.arraycopy(lo, 0, closedLo, 0, lo.length);
  }

  /** The live sum, in the units of the added vectors (rounded from exact). */
  double[] values() {
    return values(hi, lo);
  }

  /** The sum at the last close, in the units of the added vectors (rounded from exact). */
  double[] closedValues() {
    return values(closedHi, closedLo);
  }

  private double[] values(long[] h, long[] l) {
    double[] y = new double[h.length];
    for (int e = 0; e < y.length; e++) {
      y[e] = toDouble(h[e], l[e]) * gamma; // γ a power of two: exact scaling
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
  void write(DataOutput d) throws IOException {
    for (long[][] pair : new long[][][] {{hi, lo}, {closedHi, closedLo}}) {
      for (int e = 0; e < hi.length; e++) {
        d.writeLong(pair[0][e]);
        d.writeLong(pair[1][e]);
      }
    }
  }

  /** Reads what {@link #write} wrote, replacing both sums. */
  void read(DataInput d) throws IOException {
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
