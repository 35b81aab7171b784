package io.dplrf.sketch.lra;

import io.dplrf.sketch.randomness.SparseSignMatrix;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;

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
 * v = 400: {@code ContinualSketch.update} 2.5–3.6 M updates/s one at a time, 4.4–5.3 M/s banded,
 * 6.6–9.1 M/s with the two passes on two threads (docs/benchmarks-ingest.md).
 *
 * <p>Exactness: the result is the same sum in another order, so it differs from applying the
 * updates one by one only in floating-point rounding (accumulators are not exact; privacy
 * README §7). The order is a function of the update sequence and the flush points (buffer full,
 * or {@code flushPending}: snapshot, release, absorb, reset), so a restored sketch continues
 * bit-identically.
 *
 * <p>Memory: three copies of up to {@code capacity} updates (16 bytes each: the buffer and one
 * band order per accumulator), allocated at the first update: only a tree's accumulator receives
 * updates, never its nodes.
 */
final class BandedUpdates {
  /** Band slice target: well inside a core's L2 (1.25–2.5 MB on the machines measured). */
  static final int BAND_BYTES = 1 << 20;
  static final int MAX_CAPACITY = 1 << 22;

  private final int capacity;
  private int[] rows;
  private int[] cols;
  private double[] deltas;
  private Pass yPass;
  private Pass zPass;
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
      yPass = new Pass(capacity);
      zPass = new Pass(capacity);
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
   * Δ·S[:,i] ({@code s} v×m) — and empties the buffer. The two passes write disjoint arrays and
   * read the buffer only, so the Zᵀ pass runs on a pool thread while this thread does Y (each in
   * the same order as alone: the result does not depend on the threads).
   */
  void flush(SparseSignMatrix phiT, double[] y, int tw, SparseSignMatrix s, double[] zT, int v) {
    if (size == 0) {
      return;
    }
    int n = size;
    ForkJoinTask<?> z = ForkJoinPool.commonPool().submit(() -> {
      zPass.partition(cols, n, bandRows(v), zT.length / v);
      for (int u = 0; u < n; u++) {
        s.addColumn(zPass.rows[u], zPass.deltas[u], zT, zPass.cols[u] * v);
      }
    });
    try {
      yPass.partition(rows, n, bandRows(tw), y.length / tw);
      for (int u = 0; u < n; u++) {
        phiT.addColumn(yPass.cols[u], yPass.deltas[u], y, yPass.rows[u] * tw);
      }
    } finally {
      z.join(); // also when the Y pass failed: never leave a task writing zT behind
    }
    size = 0;
  }

  /** Rows per band: a power of two whose slice of {@code width} doubles is ≤ BAND_BYTES. */
  private static int bandRows(int width) {
    return Integer.highestOneBit(Math.max(1, BAND_BYTES / (8 * width)));
  }

  /** The buffered updates in band order, for one accumulator. */
  private final class Pass {
    final int[] rows;
    final int[] cols;
    final double[] deltas;

    Pass(int capacity) {
      rows = new int[capacity];
      cols = new int[capacity];
      deltas = new double[capacity];
    }

    /**
     * Stable counting sort of the first {@code n} buffered updates by band of {@code keys}
     * (key / rowsPerBand), keys in [0, extent).
     */
    void partition(int[] keys, int n, int rowsPerBand, int extent) {
      int shift = Integer.numberOfTrailingZeros(rowsPerBand);
      int bands = ((extent - 1) >> shift) + 1;
      int[] start = new int[bands + 1];
      for (int u = 0; u < n; u++) {
        start[(keys[u] >> shift) + 1]++;
      }
      for (int b = 0; b < bands; b++) {
        start[b + 1] += start[b];
      }
      for (int u = 0; u < n; u++) {
        int p = start[keys[u] >> shift]++;
        rows[p] = BandedUpdates.this.rows[u];
        cols[p] = BandedUpdates.this.cols[u];
        deltas[p] = BandedUpdates.this.deltas[u];
      }
    }
  }

  long sizeInBytes() {
    return rows == null ? 0 : 48L * capacity;
  }

  /** For tests: the capacity chosen. */
  int capacity() {
    return capacity;
  }
}
