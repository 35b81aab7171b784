package io.dplrf.sketch.lra;

import io.dplrf.sketch.randomness.SparseSignMatrix;

/**
 * Buffers the updates of a sparse-embedding sketch and applies them band by band, so that the
 * random writes of a flush land in a cache-sized slice of each accumulator at a time.
 *
 * <p>Why: an update (Δ, i, j) writes s entries of Y's row i and s of Zᵀ's row j. Applied as they
 * come, with m, n ≈ 10⁵ and Y, Zᵀ of hundreds of MB, each write misses every cache level. Here a
 * flush partitions the buffered updates by band of i (rows of Y whose slice is ≤ {@link
 * #BAND_BYTES}) with a counting sort and applies them band by band, then does the same for Zᵀ by
 * band of j: each band's slice is read from memory about once and hit in cache by the updates
 * that follow. On the 2-core benchmark machine, quiet, 2²³ random updates at m = n = 10⁵, t = 100,
 * v = 400: {@code ContinualSketch.update} 2.5–3.6 M updates/s one at a time, 4.4–5.3 M/s banded
 * (docs/benchmarks-ingest.md).
 *
 * <p>Exactness: the result is the same sum in another order, so it differs from applying the
 * updates one by one only in floating-point rounding (accumulators are not exact; privacy
 * README §7). The order is a function of the update sequence and the flush points (buffer full,
 * or {@code flushPending}: snapshot, release, absorb, reset), so a restored sketch continues
 * bit-identically.
 *
 * <p>Memory: two copies of up to {@code capacity} updates (16 bytes each), allocated at the first
 * update: only a tree's accumulator receives updates, never its nodes.
 */
final class BandedUpdates {
  /** Band slice target: well inside a core's L2 (1.25–2.5 MB on the machines measured). */
  static final int BAND_BYTES = 1 << 20;
  static final int MAX_CAPACITY = 1 << 22;

  private final int capacity;
  private int[] rows;
  private int[] cols;
  private double[] deltas;
  private int[] sortedRows;
  private int[] sortedCols;
  private double[] sortedDeltas;
  private int size;

  /** A buffer sized for accumulators of {@code stateDoubles} entries in all. */
  BandedUpdates(long stateDoubles) {
    // Worth filling only if a flush touches each band's cache lines several times: about one
    // update per 8 accumulator entries (so ≥ 1 per cache line); small sketches flush often.
    long c = Math.max(1 << 12, Math.min(MAX_CAPACITY, stateDoubles / 8));
    capacity = Integer.highestOneBit((int) c);
  }

  /** Returns true when the buffer is full after this add. */
  boolean add(int i, int j, double delta) {
    if (rows == null) {
      rows = new int[capacity];
      cols = new int[capacity];
      deltas = new double[capacity];
      sortedRows = new int[capacity];
      sortedCols = new int[capacity];
      sortedDeltas = new double[capacity];
    }
    rows[size] = i;
    cols[size] = j;
    deltas[size] = delta;
    return ++size == capacity;
  }

  int size() {
    return size;
  }

  /**
   * Applies every buffered update — Y row i += Δ·Φ[j,:] (m×t, {@code phiT} t×n) and Zᵀ row j +=
   * Δ·S[:,i] ({@code s} v×m) — and empties the buffer.
   */
  void flush(SparseSignMatrix phiT, double[] y, int tw, SparseSignMatrix s, double[] zT, int v) {
    if (size == 0) {
      return;
    }
    int rowsPerBand = bandRows(tw);
    partition(rows, rowsPerBand, y.length / tw);
    for (int u = 0; u < size; u++) {
      phiT.addColumn(sortedCols[u], sortedDeltas[u], y, sortedRows[u] * tw);
    }
    partition(cols, bandRows(v), zT.length / v);
    for (int u = 0; u < size; u++) {
      s.addColumn(sortedRows[u], sortedDeltas[u], zT, sortedCols[u] * v);
    }
    size = 0;
  }

  /** Rows per band: a power of two whose slice of {@code width} doubles is ≤ BAND_BYTES. */
  private static int bandRows(int width) {
    return Integer.highestOneBit(Math.max(1, BAND_BYTES / (8 * width)));
  }

  /**
   * Stable counting sort of the buffer into the sorted arrays by band of {@code keys}
   * (key / rowsPerBand), keys in [0, extent).
   */
  private void partition(int[] keys, int rowsPerBand, int extent) {
    int shift = Integer.numberOfTrailingZeros(rowsPerBand);
    int bands = ((extent - 1) >> shift) + 1;
    int[] start = new int[bands + 1];
    for (int u = 0; u < size; u++) {
      start[(keys[u] >> shift) + 1]++;
    }
    for (int b = 0; b < bands; b++) {
      start[b + 1] += start[b];
    }
    for (int u = 0; u < size; u++) {
      int p = start[keys[u] >> shift]++;
      sortedRows[p] = rows[u];
      sortedCols[p] = cols[u];
      sortedDeltas[p] = deltas[u];
    }
  }

  long sizeInBytes() {
    return rows == null ? 0 : 32L * capacity;
  }

  /** For tests: the capacity chosen. */
  int capacity() {
    return capacity;
  }
}
