package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.randomness.SecretKey;

/**
 * A sketch whose updates read columns of regenerated (or cached) sketching matrices: updates are
 * buffered and applied in flushes that visit them grouped by index, so each column is produced
 * once per flush ({@link UpdateBuffer}, {@link ColumnCursor}).
 */
abstract sealed class BufferedSketch extends NoisyLinearSketch permits Priv1Sketch, Priv2Sketch {
  private static final int BUFFER = 1 << 14;

  final UpdateBuffer buffer = new UpdateBuffer(BUFFER);

  BufferedSketch(int m, int n, SecretKey key, String nodeLabel, boolean noiseless) {
    super(m, n, key, nodeLabel, noiseless);
  }

  /**
   * One scatter target: for an update keyed by index x and aimed at index y,
   * {@code accumulator[y·width .. y·width + width) += Δ · (column x of matrix)}.
   */
  record Scatter(SketchMatrix matrix, double[] accumulator, int width) {}

  @Override
  void apply(int i, int j, double delta) {
    if (buffer.add(i, j, delta)) {
      flush();
    }
  }

  @Override
  final void flushPending() {
    flush();
  }

  /** Applies every buffered update to the accumulators and clears the buffer. */
  final void flush() {
    if (buffer.size() > 0) {
      applyBuffered();
      buffer.clear();
    }
    flushOwnBuffer();
  }

  /** A subclass that buffers updates its own way applies them here (default: none). */
  void flushOwnBuffer() {}

  /** Applies the buffered updates (the buffer is non-empty), typically by {@link #scatter}. */
  abstract void applyBuffered();

  /**
   * Groups the buffered updates by {@code keys} (rows or cols) and, for each distinct key,
   * produces the key's column of every part's matrix once and adds Δ times it into the row of
   * the update's other index ({@code targets}) of that part's accumulator.
   */
  final void scatter(int[] keys, int[] targets, Scatter... parts) {
    ColumnCursor[] cursors = new ColumnCursor[parts.length];
    for (int q = 0; q < parts.length; q++) {
      cursors[q] = new ColumnCursor(parts[q].matrix());
    }
    buffer.forEachGroup(keys, (key, positions, count) -> {
      for (int q = 0; q < parts.length; q++) {
        double[] col = cursors[q].column(key);
        int off = cursors[q].offset(key);
        double[] acc = parts[q].accumulator();
        int width = parts[q].width();
        for (int c = 0; c < count; c++) {
          int p = positions[c];
          axpy(buffer.deltas[p], col, off, acc, targets[p] * width, width);
        }
      }
    });
  }
}
