package io.dplrf.sketch.lra;

import io.dplrf.sketch.randomness.SparseSignMatrix;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

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
 * <p>Double-buffered, two threads: when the buffer is full, its Zᵀ pass starts on the {@link
 * #FLUSHER} thread, the caller applies its Y pass and goes on filling the second buffer; the next
 * full buffer, and every flush point ({@link #flush}), first wait for that Zᵀ pass. So the caller
 * decodes and applies Y (≈ half the work) while the flusher applies Zᵀ (the other half), each pass
 * stays on one core with its band slices in that core's cache, and each accumulator still
 * receives its buffers one at a time in the order they filled. (Measured before settling on
 * this: both passes on two flusher threads while the caller fills — three busy threads on the
 * two-core benchmark machine — was ≈ 30% faster on a quiet host and ≈ 35% slower on a busier
 * one, its flush threads needing twice the CPU: docs/benchmarks-ingest.md.)
 *
 * <p>Exactness: the result is the same sum in another order, so it differs from applying the
 * updates one by one only in floating-point rounding (accumulators are not exact; privacy
 * README §7). The order is a function of the update sequence and the flush points (buffer full,
 * or {@code flushPending}: snapshot, release, absorb, reset), so a restored sketch continues
 * bit-identically; which thread runs a flush, and when, does not change it.
 *
 * <p>Threads: one owner at a time calls {@link #add} and {@link #flush} (the ingest thread, then
 * possibly the epoch closer it hands the accumulator to); the accumulator arrays must not be read
 * until {@link #flush} has returned (every reader of a sketch's state calls {@code
 * flushPending} first).
 *
 * <p>Memory: four copies of up to {@code capacity} updates (16 bytes each: two buffers and one
 * band order per accumulator), allocated at the first update (the second buffer at the first full
 * one): only a tree's accumulator receives updates, never its nodes.
 */
final class BandedUpdates {
  /** Band slice target: well inside a core's L2 (1.25–2.5 MB on the machines measured). */
  static final int BAND_BYTES = 1 << 20;
  /**
   * 2^21 updates: four copies of 16 bytes each are 128 MiB per accumulator. 2^22 (the size before
   * double buffering) was no faster in the ingest benchmark and, with two accumulators live during
   * a pipelined close, ran its 4-epoch run out of the launcher's 4 GiB heap once.
   */
  static final int MAX_CAPACITY = 1 << 21;

  private static final AtomicInteger FLUSHER_IDS = new AtomicInteger();
  /**
   * The Zᵀ passes of every banded sketch in the JVM: one daemon thread. Tasks only write their
   * own sketch's arrays and never wait for one another, so sketches can share it.
   */
  private static final ExecutorService FLUSHER = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "dplrf-banded-flush-" + FLUSHER_IDS.incrementAndGet());
    t.setDaemon(true);
    return t;
  });

  private final int capacity;
  private final SparseSignMatrix phiT;
  private final double[] y;
  private final int tw;
  private final SparseSignMatrix s;
  private final double[] zT;
  private final int v;
  private Buffer filling;
  /** The other buffer: being flushed while a flush is in flight, else empty; null at first. */
  private Buffer other;
  private Pass yPass;
  private Pass zPass;
  private Future<?> zInFlight; // the Zᵀ pass of the buffer not filling, or null
  private Throwable failure; // of a pass: sticky, the accumulators are incomplete

  /**
   * A buffer for Y (m×t, {@code y}, with {@code phiT} t×n) and Zᵀ (n×v, {@code zT}, with {@code
   * s} v×m): an update (Δ, i, j) is Y row i += Δ·Φ[j,:] and Zᵀ row j += Δ·S[:,i]. Its capacity
   * suits accumulators of that many entries in all.
   */
  BandedUpdates(SparseSignMatrix phiT, double[] y, int tw, SparseSignMatrix s, double[] zT,
      int v) {
    this.phiT = phiT;
    this.y = y;
    this.tw = tw;
    this.s = s;
    this.zT = zT;
    this.v = v;
    // Worth filling only if a flush touches each band's cache lines several times: about one
    // update per 8 accumulator entries (so ≥ 1 per cache line); small sketches flush often.
    long c = Math.max(1 << 12, Math.min(MAX_CAPACITY, ((long) y.length + zT.length) / 8));
    capacity = Integer.highestOneBit((int) c);
  }

  /**
   * Buffers one update. A full buffer starts its Zᵀ pass on the flusher thread and applies its Y
   * pass here, then the caller goes on filling the other buffer (class comment).
   */
  void add(int i, int j, double delta) {
    requireNoFailure();
    if (filling == null) {
      filling = new Buffer(capacity);
      yPass = new Pass(capacity);
      zPass = new Pass(capacity);
    }
    if (filling.add(i, j, delta)) {
      awaitInFlight(); // the other buffer is now empty
      Buffer full = filling;
      filling = other == null ? new Buffer(capacity) : other;
      other = full; // emptied by awaitInFlight, once the Zᵀ pass no longer reads it
      int n = full.size;
      zInFlight = FLUSHER.submit(() -> zPass(full, n));
      applyYPass(full, n, zInFlight);
    }
  }

  /** Updates buffered and not yet applied to both accumulators. */
  int size() {
    return (filling == null ? 0 : filling.size) + (zInFlight == null ? 0 : other.size);
  }

  /**
   * Applies every buffered update: waits for a Zᵀ pass in flight, then applies the rest (the Zᵀ
   * pass on the flusher thread while this thread does Y). On return the accumulators are complete
   * and this thread may read them.
   */
  void flush() {
    requireNoFailure();
    awaitInFlight();
    if (filling == null || filling.size == 0) {
      return;
    }
    int n = filling.size;
    Buffer b = filling;
    Future<?> z = FLUSHER.submit(() -> zPass(b, n));
    applyYPass(b, n, z);
    await(z);
    b.size = 0;
  }

  /**
   * The Y pass of {@code b} on this thread, while {@code z} applies its Zᵀ pass. A failure is
   * recorded (sticky) and rethrown once {@code z} has ended: never leave a task writing zT behind.
   */
  private void applyYPass(Buffer b, int n, Future<?> z) {
    try {
      yPass(b, n);
    } catch (RuntimeException | Error e) {
      failure = e;
      try {
        await(z); // waits out interrupts too, and restores the flag
      } catch (IllegalStateException ignored) {
        // the Zᵀ pass failed as well: `failure` keeps the first error
      }
      throw e;
    }
  }

  /**
   * A failed pass leaves the accumulators partly updated: the sketch must not be used any more,
   * so the failure is thrown at every later call.
   */
  private void requireNoFailure() {
    if (failure != null) {
      throw new IllegalStateException("a banded flush failed; the sketch is incomplete", failure);
    }
  }

  /** Waits for the Zᵀ pass in flight, if any, and empties the buffer it read. */
  private void awaitInFlight() {
    if (zInFlight == null) {
      return;
    }
    Future<?> z = zInFlight;
    zInFlight = null;
    await(z);
    other.size = 0;
  }

  private void await(Future<?> f) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          f.get();
          return;
        } catch (InterruptedException e) {
          interrupted = true; // the passes write our arrays: never return before they end
        } catch (ExecutionException | CancellationException e) {
          if (failure == null) {
            failure = e instanceof ExecutionException ? e.getCause() : e;
          }
          requireNoFailure();
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void yPass(Buffer b, int n) {
    yPass.partition(b.rows, b, n, bandRows(tw), y.length / tw);
    for (int u = 0; u < n; u++) {
      phiT.addColumn(yPass.cols[u], yPass.deltas[u], y, yPass.rows[u] * tw);
    }
  }

  private void zPass(Buffer b, int n) {
    zPass.partition(b.cols, b, n, bandRows(v), zT.length / v);
    for (int u = 0; u < n; u++) {
      s.addColumn(zPass.rows[u], zPass.deltas[u], zT, zPass.cols[u] * v);
    }
  }

  /** Rows per band: a power of two whose slice of {@code width} doubles is ≤ BAND_BYTES. */
  private static int bandRows(int width) {
    return Integer.highestOneBit(Math.max(1, BAND_BYTES / (8 * width)));
  }

  /** Updates in arrival order. */
  private static final class Buffer {
    final int[] rows;
    final int[] cols;
    final double[] deltas;
    int size;

    Buffer(int capacity) {
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
  }

  /** The buffered updates in band order, for one accumulator. */
  private static final class Pass {
    final int[] rows;
    final int[] cols;
    final double[] deltas;

    Pass(int capacity) {
      rows = new int[capacity];
      cols = new int[capacity];
      deltas = new double[capacity];
    }

    /**
     * Stable counting sort of the first {@code n} updates of {@code b} by band of {@code keys}
     * (b's rows or cols; key / rowsPerBand), keys in [0, extent).
     */
    void partition(int[] keys, Buffer b, int n, int rowsPerBand, int extent) {
      int shift = Integer.numberOfTrailingZeros(rowsPerBand);
      int bands = ((extent - 1) >> shift) + 1;
      int[] start = new int[bands + 1];
      for (int u = 0; u < n; u++) {
        start[(keys[u] >> shift) + 1]++;
      }
      for (int k = 0; k < bands; k++) {
        start[k + 1] += start[k];
      }
      for (int u = 0; u < n; u++) {
        int p = start[keys[u] >> shift]++;
        rows[p] = b.rows[u];
        cols[p] = b.cols[u];
        deltas[p] = b.deltas[u];
      }
    }
  }

  long sizeInBytes() {
    return filling == null ? 0 : 16L * capacity * (other == null ? 3 : 4);
  }

  /** For tests: the capacity chosen. */
  int capacity() {
    return capacity;
  }
}
