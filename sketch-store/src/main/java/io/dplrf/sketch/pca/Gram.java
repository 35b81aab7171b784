package io.dplrf.sketch.pca;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.Preconditions;
import java.math.BigInteger;

/**
 * The exact Gram matrix AᵀA = Σ_rows x xᵀ of the clipped rows of A, kept as its packed upper
 * triangle (d(d+1)/2 entries). Every row passes through {@link RowClipping} first, so one row
 * changes the Gram matrix by x xᵀ with ‖x xᵀ‖_F = ‖x‖₂² ≤ C².
 *
 * <p><b>Exact arithmetic.</b> A running floating-point sum would make neighbouring Gram matrices
 * differ by x xᵀ plus rounding errors that depend on every other row (up to ~n²·2⁻⁵³·C²), which
 * the privacy proofs do not cover. So each clipped row is put on the fixed-point grid
 * q = 2^(⌊log₂C⌋ − 30) by rounding every entry toward zero (so ‖x‖₂ can only shrink and stays
 * ≤ C; the change is below q per entry, ~10⁻⁹·C), the products a_i·a_j of the integers
 * a = x/q (|a_i| &lt; 2³¹, so |a_i a_j| &lt; 2⁶²) are exact longs, and they are summed exactly in
 * 128-bit integers. Neighbouring Gram matrices then differ by exactly q²·a aᵀ = x xᵀ of the
 * quantised row, and a mechanism can round the exact sum to its noise grid exactly
 * ({@link #packedRoundedToGrid}). The sums are exact for up to 2⁶⁴ rows.
 *
 * <p>NOT private: this is the raw statistic. It never leaves the process except through a
 * mechanism that adds calibrated noise ({@link AnalyzeGauss}, {@link AtaSketch}); the row and
 * clip counts are exact and must not be published (under add/remove they reveal the presence
 * of a row). Not thread-safe.
 */
public final class Gram {
  private final int d;
  private final double clip;
  /** The fixed-point step q = 2^(⌊log₂C⌋ − 30) (a power of two). */
  private final double q;
  private final long[] hi; // 128-bit two's-complement sums of a_i·a_j: high words
  private final long[] lo; // low words (unsigned)
  private long rows;
  private long clipped;

  /**
   * @param d dimension (number of columns of A), public
   * @param clip C, the row-norm bound
   */
  public Gram(int d, double clip) {
    Preconditions.checkPositive("dimension (d)", d);
    Preconditions.checkPositiveFinite("clip", clip);
    this.d = d;
    this.clip = clip;
    int len = Math.toIntExact(packedLength(d));
    this.hi = new long[len];
    this.lo = new long[len];
    this.q = Math.scalb(1.0, Math.getExponent(clip) - 30);
  }

  /** d(d+1)/2, the number of entries on and above the diagonal. */
  public static long packedLength(int d) {
    return (long) d * (d + 1) / 2;
  }

  /** Index of (i, j), i ≤ j, in the row-major packed upper triangle. */
  static int packedIndex(int d, int i, int j) {
    return (int) ((long) i * d - (long) i * (i - 1) / 2 + (j - i));
  }

  public int dimension() {
    return d;
  }

  public double clip() {
    return clip;
  }

  /**
   * Clips a copy of {@code row} to ‖x‖₂ ≤ C and adds x xᵀ.
   *
   * @return true if the row was clipped
   * @throws IllegalArgumentException if the row has the wrong length or a non-finite entry
   */
  public boolean addRow(double[] row) {
    if (row.length != d) {
      throw new IllegalArgumentException(
          "row has " + row.length + " entries, the dimension is " + d);
    }
    double[] x = row.clone();
    boolean wasClipped = RowClipping.clipInPlace(x, clip);
    long[] a = new long[d];
    for (int i = 0; i < d; i++) {
      a[i] = (long) (x[i] / q); // x/q is exact (q a power of two); the cast rounds toward zero
    }
    int p = 0;
    for (int i = 0; i < d; i++) {
      long ai = a[i];
      if (ai == 0) {
        p += d - i;
        continue;
      }
      for (int j = i; j < d; j++, p++) {
        accumulate(p, ai * a[j]); // exact: |a_i a_j| < 2^62
      }
    }
    rows++;
    if (wasClipped) {
      clipped++;
    }
    return wasClipped;
  }

  /**
   * Adds the sparse row x with x[cols[c]] = values[c] (all other entries 0): the same clipping,
   * fixed-point rounding and exact 128-bit sums as {@link #addRow}, in O(nnz²) instead of O(d²) —
   * the product a_i·a_j is zero unless both i and j are stored. Used by private matrix completion
   * (paper 004), whose rows carry at most ξ ratings.
   *
   * @param cols strictly increasing column indices in [0, d)
   * @param values the row's entries at those columns, finite; not modified
   * @return true if the row was clipped
   */
  public boolean addSparseRow(int[] cols, double[] values) {
    if (cols.length != values.length) {
      throw new IllegalArgumentException(
          cols.length + " column indices but " + values.length + " values");
    }
    for (int c = 0; c < cols.length; c++) {
      if (cols[c] < 0 || cols[c] >= d || (c > 0 && cols[c] <= cols[c - 1])) {
        throw new IllegalArgumentException("column indices must be strictly increasing in [0, "
            + d + "). Provided value: " + cols[c] + " at position " + c);
      }
    }
    double[] x = values.clone();
    boolean wasClipped = RowClipping.clipInPlace(x, clip);
    long[] a = new long[x.length];
    for (int c = 0; c < x.length; c++) {
      a[c] = (long) (x[c] / q); // as in addRow: exact scaling, the cast rounds toward zero
    }
    for (int c = 0; c < a.length; c++) {
      long ai = a[c];
      if (ai == 0) {
        continue;
      }
      int i = cols[c];
      for (int e = c; e < a.length; e++) {
        accumulate(packedIndex(d, i, cols[e]), ai * a[e]); // exact: |a_i a_j| < 2^62
      }
    }
    rows++;
    if (wasClipped) {
      clipped++;
    }
    return wasClipped;
  }

  /**
   * 128-bit add of the sign-extended product into entry p: the carry out of the unsigned low
   * word goes to the high word.
   */
  private void accumulate(int p, long prod) {
    long sum = lo[p] + prod;
    hi[p] += (prod >> 63) + (Long.compareUnsigned(sum, lo[p]) < 0 ? 1 : 0);
    lo[p] = sum;
  }

  /** Exact number of rows added: NOT private. */
  public long rowCount() {
    return rows;
  }

  /** Exact number of rows that were clipped: NOT private. */
  public long clippedCount() {
    return clipped;
  }

  /** The fixed-point step q: every entry of the Gram matrix is an integer multiple of q². */
  double step() {
    return q;
  }

  /** Entry p of the packed upper triangle as an exact integer multiple of q². */
  BigInteger exactUnits(int p) {
    BigInteger low = BigInteger.valueOf(lo[p] & Long.MAX_VALUE); // the unsigned low word, in two parts
    if (lo[p] < 0) {
      low = low.setBit(63);
    }
    return BigInteger.valueOf(hi[p]).shiftLeft(64).add(low);
  }

  /** The packed upper triangle, each entry the double nearest to its exact value. */
  double[] packedUpper() {
    double[] out = new double[hi.length];
    double q2 = q * q;
    for (int p = 0; p < out.length; p++) {
      out[p] = exactUnits(p).doubleValue() * q2; // q² a power of two: only the conversion rounds
    }
    return out;
  }

  /**
   * The packed upper triangle rounded EXACTLY to the grid γ (a power of two): entry p is
   * k_p·γ with k_p the integer nearest to (exact entry)/γ, ties away from zero — computed from the
   * exact integer sum, so no floating-point error enters before the rounding that
   * {@code GridGaussian.roundingSlack} accounts for.
   *
   * @return the integers k_p
   */
  BigInteger[] packedRoundedToGrid(double gamma) {
    int shift = Math.getExponent(gamma) - 2 * Math.getExponent(q); // (units·q²)/γ = units·2^-shift
    BigInteger[] out = new BigInteger[hi.length];
    for (int p = 0; p < out.length; p++) {
      BigInteger units = exactUnits(p);
      if (shift <= 0) {
        out[p] = units.shiftLeft(-shift);
      } else {
        BigInteger mag = units.abs();
        BigInteger k = mag.shiftRight(shift);
        if (mag.testBit(shift - 1)) {
          k = k.add(BigInteger.ONE); // remainder ≥ half: round half away from zero
        }
        out[p] = units.signum() < 0 ? k.negate() : k;
      }
    }
    return out;
  }

  /**
   * The exact symmetric d×d matrix AᵀA. NOT private: for mechanisms that add noise to it or to a
   * sketch of it, and for tests and benchmarks.
   */
  public Dense toDense() {
    return unpack(d, packedUpper());
  }

  /** The symmetric d×d matrix whose packed upper triangle is {@code packed}. */
  static Dense unpack(int d, double[] packed) {
    Dense out = new Dense(d, d);
    int p = 0;
    for (int i = 0; i < d; i++) {
      for (int j = i; j < d; j++) {
        double v = packed[p++];
        out.set(i, j, v);
        out.set(j, i, v);
      }
    }
    return out;
  }
}
