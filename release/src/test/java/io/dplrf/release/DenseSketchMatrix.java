package io.dplrf.release;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.matrix.SketchMatrix;

/** Test-only {@link SketchMatrix} over a stored matrix, so tests can build exact sketches. */
final class DenseSketchMatrix implements SketchMatrix {
  private final Dense d;

  DenseSketchMatrix(Dense d) {
    this.d = d.copy();
  }

  @Override
  public int rows() {
    return d.rows();
  }

  @Override
  public int cols() {
    return d.cols();
  }

  @Override
  public void columns(int from, int to, double[] dst) {
    for (int j = from; j < to; j++) {
      for (int i = 0; i < d.rows(); i++) {
        dst[(j - from) * d.rows() + i] = d.get(i, j);
      }
    }
  }
}
