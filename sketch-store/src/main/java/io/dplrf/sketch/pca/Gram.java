package io.dplrf.sketch.pca;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.Preconditions;

/**
 * The exact Gram matrix AᵀA = Σ_rows x xᵀ of the clipped rows of A, kept as its packed upper
 * triangle (d(d+1)/2 doubles). Every row passes through {@link RowClipping} first, so one row
 * changes the Gram matrix by x xᵀ with ‖x xᵀ‖_F = ‖x‖₂² ≤ C².
 *
 * <p>NOT private: this is the raw statistic. It never leaves the process except through a
 * mechanism that adds calibrated noise ({@link AnalyzeGauss}, {@link AtaSketch}); the row and
 * clip counts are exact and must not be published (under add/remove they reveal the presence
 * of a row). Not thread-safe.
 */
public final class Gram {
  private final int d;
  private final double clip;
  private final double[] upper;
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
    this.upper = new double[Math.toIntExact(packedLength(d))];
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
    int p = 0;
    for (int i = 0; i < d; i++) {
      double xi = x[i];
      if (xi == 0) {
        p += d - i;
        continue;
      }
      for (int j = i; j < d; j++) {
        upper[p++] += xi * x[j];
      }
    }
    rows++;
    if (wasClipped) {
      clipped++;
    }
    return wasClipped;
  }

  /** Exact number of rows added: NOT private. */
  public long rowCount() {
    return rows;
  }

  /** Exact number of rows that were clipped: NOT private. */
  public long clippedCount() {
    return clipped;
  }

  /** The packed upper triangle (a copy). */
  double[] packedUpper() {
    return upper.clone();
  }

  /**
   * The exact symmetric d×d matrix AᵀA. NOT private: for mechanisms that add noise to it or to a
   * sketch of it, and for tests and benchmarks.
   */
  public Dense toDense() {
    return unpack(d, upper);
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
