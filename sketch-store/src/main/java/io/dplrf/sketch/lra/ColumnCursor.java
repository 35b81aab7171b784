package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.SketchMatrix;

/**
 * Serves columns of a regenerated sketching matrix for non-decreasing column indices (a flush
 * visits its updates grouped by sorted index). When the requested indices are dense it generates
 * a window of {@value #WIDE} columns per call, amortising the per-call cost; when they are sparse
 * it generates only the column asked for, so nothing is generated in vain. A matrix held in
 * memory ({@link CachedColumns}) is served in place: copying a window out of it cost more than
 * the updates that read it ({@code dplrf bench ingest}, docs/benchmarks-ingest.md).
 */
final class ColumnCursor {
  static final int WIDE = 64;
  private static final int DENSE_GAP = 4;

  private final SketchMatrix matrix;
  private final int rows;
  private final double[] window;
  private final boolean inPlace;
  private int lo;
  private int hi;
  private int last = -1;

  ColumnCursor(SketchMatrix matrix) {
    this.matrix = matrix;
    this.rows = matrix.rows();
    if (matrix instanceof CachedColumns c) {
      this.inPlace = true;
      this.window = c.data();
      this.lo = 0;
      this.hi = c.cols();
    } else {
      this.inPlace = false;
      this.window = new double[WIDE * rows];
    }
  }

  /** The window holding column j; read it at {@link #offset(int)}. */
  double[] column(int j) {
    if (inPlace) {
      return window;
    }
    if (j < lo || j >= hi) {
      int width = last >= 0 && j - last <= DENSE_GAP ? WIDE : 1;
      lo = j;
      hi = Math.min(matrix.cols(), j + width);
      matrix.columns(lo, hi, window);
    }
    last = j;
    return window;
  }

  int offset(int j) {
    return (j - lo) * rows;
  }
}
