package io.dplrf.sketch.lra;

import java.util.Arrays;

/**
 * Buffers turnstile updates so that a sketch whose update needs a column of a regenerated
 * sketching matrix (T or S) generates each column once per flush instead of once per update.
 * Package-private: an implementation detail of the sketches.
 */
final class UpdateBuffer {
  interface GroupConsumer {
    /** Called once per distinct key with the positions (into rows/cols/deltas) of its updates. */
    void group(int key, int[] positions, int count);
  }

  final int[] rows;
  final int[] cols;
  final double[] deltas;
  private int size;

  UpdateBuffer(int capacity) {
    rows = new int[capacity];
    cols = new int[capacity];
    deltas = new double[capacity];
  }

  /** Returns true when the buffer is full after this add. */
  boolean add(int i, int j, double delta) {
    rows[size] = i;
    cols[size] = j;
    deltas[size] = delta;
    return ++size == rows.length;
  }

  int size() {
    return size;
  }

  /** Visits the buffered updates grouped by {@code keys[position]} (rows or cols), then clears. */
  void drainGroupedBy(int[] keys, GroupConsumer consumer) {
    long[] order = new long[size];
    for (int p = 0; p < size; p++) {
      order[p] = ((long) keys[p] << 32) | p;
    }
    Arrays.sort(order);
    int[] positions = new int[size];
    int p = 0;
    while (p < size) {
      int key = (int) (order[p] >>> 32);
      int count = 0;
      while (p < size && (int) (order[p] >>> 32) == key) {
        positions[count++] = (int) order[p];
        p++;
      }
      consumer.group(key, positions, count);
    }
    size = 0;
  }
}
