package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.SketchMatrix;

/**
 * A sketching matrix held whole in memory: trades memory (rows·cols doubles) for speed where an
 * update reads one column (a row of Φ, a column of Ψ) and regeneration would dominate the
 * per-update cost (the streaming service). One-shot runs regenerate instead.
 */
final class CachedColumns implements SketchMatrix {
  private final int rows;
  private final int cols;
  private final double[] data; // column-major

  CachedColumns(SketchMatrix source) {
    rows = source.rows();
    cols = source.cols();
    data = new double[Math.multiplyExact(rows, cols)];
    source.columns(0, cols, data);
  }

  static SketchMatrix maybe(SketchMatrix source, boolean cache) {
    return cache ? new CachedColumns(source) : source;
  }

  static long bytes(SketchMatrix m) {
    return m instanceof CachedColumns c ? 8L * c.data.length : 0;
  }

  /** The column-major data itself, for {@link ColumnCursor} (read only). */
  double[] data() {
    return data;
  }

  @Override
  public int rows() {
    return rows;
  }

  @Override
  public int cols() {
    return cols;
  }

  @Override
  public void columns(int from, int to, double[] dst) {
    System.arraycopy(data, from * rows, dst, 0, (to - from) * rows);
  }
}
