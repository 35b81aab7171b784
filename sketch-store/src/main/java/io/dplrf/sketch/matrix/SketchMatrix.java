package io.dplrf.sketch.matrix;

/**
 * A random sketching matrix whose entries are regenerated on demand (from the secret key, or a
 * public seed) instead of being stored: for a v×(m+n) matrix with m+n in the hundreds of
 * thousands, storing it would dominate memory. Column-major generation: one column is a
 * contiguous stretch of the generator's stream, so any column can be produced independently
 * (and in parallel).
 *
 * <p>Implementations are immutable and thread-safe; every call returns the same numbers.
 */
public interface SketchMatrix {
  int rows();

  int cols();

  /**
   * Writes columns {@code from} (inclusive) to {@code to} (exclusive) into {@code dst}, column
   * after column: entry (i, j) lands at {@code dst[(j - from) * rows() + i]}.
   */
  void columns(int from, int to, double[] dst);

  /** Convenience: one column. */
  default double[] column(int j) {
    double[] c = new double[rows()];
    columns(j, j + 1, c);
    return c;
  }

  /** Materialises the whole matrix; only for small matrices and tests. */
  default Dense toDense() {
    Dense d = new Dense(rows(), cols());
    double[] col = new double[rows()];
    for (int j = 0; j < cols(); j++) {
      columns(j, j + 1, col);
      for (int i = 0; i < rows(); i++) {
        d.set(i, j, col[i]);
      }
    }
    return d;
  }
}
