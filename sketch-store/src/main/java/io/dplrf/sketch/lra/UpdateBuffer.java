package io.dplrf.sketch.lra;

import java.util.Arrays;

/**
 * Buffers turnstile updates so that a sketch whose update needs a column of a regenerated
 * sketching matrix generates each column once per flush instead of once per update.
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
  private final long[] order;
  private final int[] positions;
  private int size;

  UpdateBuffer(int capacity) {
    rows = new int[capacity];
    cols = new int[capacity];
    deltas = new double[capacity];
    order = new long[capacity];
    positions = new int[capacity];
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

  void clear() {
    size = 0;
  }

  /** Visits the buffered updates grouped by {@code keys[position]} (rows or cols). */
  void forEachGroup(int[] keys, GroupConsumer consumer) {
    for (int p = 0; p < size; p++) {
      order[p] = ((long) keys[p] << 32) | p;
    }
    Arrays.sort(order, 0, size);
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
  }

  long sizeInBytes() {
    return (long) rows.length * (4 + 4 + 8 + 8 + 4);
  }
}
