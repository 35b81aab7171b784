package io.dplrf.sketch.lra;

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

  @Override
  final void apply(int i, int j, double delta) {
    if (buffer.add(i, j, delta)) {
      flush();
    }
  }

  @Override
  final void flushPending() {
    flush();
  }

  /** Applies every buffered update to the accumulators and clears the buffer. */
  abstract void flush();
}
