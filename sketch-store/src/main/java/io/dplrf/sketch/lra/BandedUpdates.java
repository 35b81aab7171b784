package io.dplrf.sketch.lra;

import io.dplrf.sketch.concurrent.Uninterruptibly;
import io.dplrf.sketch.randomness.SparseSignMatrix;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * that follow. Before a band's updates, its slice is read in address order (one double per cache
 * line), so that the hardware prefetcher streams it in instead of each line missing at a random
 * write. The bands are the unit of work of two threads — the caller and one pool worker — which
 * claim them one at a time: each starts with its own accumulator's partition and bands, then
 * helps with the other's, so neither waits for the larger pass (Zᵀ's rows are 4× Y's at the
 * default sizes). An update is buffered as two longs, so that a partition's scatter writes one
 * stream per band rather than three.
 *
 * <p>A full buffer is applied in the background ({@link #flushInBackground}): the helper's thread
 * starts on it while the caller fills the second buffer, and when that one is full the caller
 * takes the first flush's remaining bands, then hands the second over. So decoding and applying
 * overlap instead of taking turns; a flush before a snapshot, a release or a close ({@link #flush})
 * is synchronous, on both threads. {@code dplrf bench update} (2 × 10⁷ random updates at m = n
 * = 10⁵, t = 100, v = 400, s = 4) on the 2-core benchmark machine: 37–43 M updates/s in steady
 * rounds, against 6.1–7.7 M/s applying each update as it comes. What each choice here (band size,
 * two-long updates, shared bands, the pre-read, the read-ahead) is worth, measured against the
 * alternative: docs/benchmarks-ingest.md, "Choices on the update path, measured".
 *
 * <p>Exactness: the result is the same sum in another order, so it differs from applying the
 * updates one by one only in floating-point rounding (accumulators are not exact; privacy
 * README §7). Each band is applied by one thread, in buffer order within the band, and bands write
 * disjoint slices, so the result does not depend on which thread takes which band, nor on
 * whether the worker runs at all, nor on the band size: an entry lies in one band, which applies
 * the updates that touch it in buffer order. The order is a function of the update sequence and
 * the flush points (buffer full, or {@code flushPending}: snapshot, release, absorb, reset), so a
 * restored sketch continues bit-identically.
 *
 * <p>Memory: four copies of up to {@code capacity} updates (16 bytes each: two buffers and one
 * band order per accumulator), allocated at the first update (the second buffer at the first
 * background flush): only a tree's accumulator receives updates, never its nodes. Freed ({@link
 * #drop}) when the accumulator becomes a node.
 */
final class BandedUpdates {
  /**
   * Band slice target: a fifth of a core's L2 (1.25 MiB on the benchmark machine), which leaves
   * room for the sketching matrix's table, read at random beside it, and for the streamed updates.
   * Measured with {@code dplrf bench update}: 256 KiB bands took 0.6–0.8× the CPU of 1 MiB ones;
   * 512 and 128 KiB no less than 256 (docs/benchmarks-ingest.md, "Choices on the update path").
   */
  static final int BAND_BYTES = 1 << 18;
  static final int MAX_CAPACITY = 1 << 22;
  /**
   * How many updates ahead a band reads the sign table (a power of two), so that the table's
   * random read is under way while earlier updates are applied. {@code dplrf bench update}: 8, 16
   * and 32 take the same CPU; with s = 4 codes read as one int, the read-ahead takes 0.81–0.94
   * CPU s per 2 × 10⁷ updates against 1.13–1.23 reading each update's codes as it is applied
   * (docs/benchmarks-ingest.md, "Choices on the update path").
   */
  static final int AHEAD = 8;

  private final int capacity;
  private final Executor helper;
  /**
   * The buffer being filled. Update u: [2u] = i << 32 | j (both ≥ 0, checked by the sketch),
   * [2u + 1] = Δ's bits.
   */
  private long[] updates;
  /** The other buffer: the one a background flush applies, or idle. */
  private long[] spare;
  private Pass yPass;
  private Pass zPass;
  private int size;
  /** The flush applying {@link #spare} on the helper's thread, or null. */
  private Flush inFlight;

  /** A buffer sized for accumulators of {@code stateDoubles} entries in all. */
  BandedUpdates(long stateDoubles) {
    this(stateDoubles, ForkJoinPool.commonPool());
  }

  /** As above; {@code helper} runs the second thread of each flush (for tests). */
  BandedUpdates(long stateDoubles, Executor helper) {
    capacity = capacityFor(stateDoubles);
    this.helper = helper;
  }

  /**
   * Worth filling only if a flush touches each band's cache lines several times: about one update
   * per 8 accumulator entries (so ≥ 1 per cache line); small sketches flush often.
   */
  private static int capacityFor(long stateDoubles) {
    long c = Math.max(1 << 12, Math.min(MAX_CAPACITY, stateDoubles / 8));
    return Integer.highestOneBit((int) c);
  }

  /** Bytes the buffers take once allocated, for accumulators of {@code stateDoubles} entries. */
  static long bytesFor(long stateDoubles) {
    return 64L * capacityFor(stateDoubles);
  }

  /** Returns true when the buffer is full after this add. */
  boolean add(int i, int j, double delta) {
    if (updates == null) {
      updates = new long[2 * capacity];
      yPass = new Pass(true, capacity);
      zPass = new Pass(false, capacity);
    }
    updates[2 * size] = (long) i << 32 | j;
    updates[2 * size + 1] = Double.doubleToRawLongBits(delta);
    return ++size == capacity;
  }

  int size() {
    return size;
  }

  /**
   * Starts applying the full buffer on the helper's thread and returns at once, with an empty
   * buffer to go on filling: decoding and applying overlap. A flush still under way is finished
   * first, this thread helping with its bands, so flushes apply in buffer order, one at a time.
   */
  void flushInBackground(SparseSignMatrix phiT, double[] y, int tw, SparseSignMatrix s,
      double[] zT, int v) {
    awaitInFlight();
    if (size == 0) {
      return;
    }
    long[] full = updates;
    updates = spare != null ? spare : new long[2 * capacity];
    spare = full;
    yPass.bind(phiT, y, tw, full, size);
    zPass.bind(s, zT, v, full, size);
    size = 0;
    Flush f = new Flush(false);
    inFlight = f;
    helper.execute(f);
  }

  /**
   * Applies every buffered update — Y row i += Δ·Φ[j,:] (m×t, {@code phiT} t×n) and Zᵀ row j +=
   * Δ·S[:,i] ({@code s} v×m) — and empties the buffer, after a flush under way in the background.
   * Returns once every band is applied, by this thread or the helper (class comment).
   */
  void flush(SparseSignMatrix phiT, double[] y, int tw, SparseSignMatrix s, double[] zT, int v) {
    awaitInFlight();
    if (size == 0) {
      return;
    }
    yPass.bind(phiT, y, tw, updates, size);
    zPass.bind(s, zT, v, updates, size);
    size = 0;
    Flush h = new Flush(true);
    helper.execute(h);
    join(h, false);
  }

  /** Finishes the background flush, if any: this thread takes bands until none is left. */
  private void awaitInFlight() {
    Flush f = inFlight;
    if (f != null) {
      inFlight = null;
      join(f, true);
    }
  }

  /**
   * Takes the flush's remaining work on this thread — one pass's partition and bands, then the
   * other's, starting with the pass the other thread does not start with — then waits for the
   * other thread if it started; never returns while the other thread may still write.
   */
  private void join(Flush other, boolean zFirst) {
    Throwable failed = null;
    try {
      (zFirst ? zPass : yPass).work();
      (zFirst ? yPass : zPass).work();
    } catch (RuntimeException | Error e) {
      failed = e;
      throw e;
    } finally {
      other.finish(failed);
    }
  }

  /**
   * A flush's work on the helper's thread: as the second thread of a synchronous flush, Zᵀ's
   * partition and bands first, then Y's unclaimed bands; as a background flush, in the order
   * the caller would take them, Y first.
   */
  private final class Flush implements Runnable {
    private final boolean zFirst;
    /** Taken by whichever comes first: the helper starting, or the caller finding it unstarted. */
    private final AtomicBoolean taken = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    private Throwable failure;

    Flush(boolean zFirst) {
      this.zFirst = zFirst;
    }

    @Override
    public void run() {
      if (!taken.compareAndSet(false, true)) {
        return; // the caller has done all the work already
      }
      try {
        (zFirst ? zPass : yPass).work();
        (zFirst ? yPass : zPass).work();
      } catch (RuntimeException | Error e) {
        failure = e;
      } finally {
        done.countDown();
      }
    }

    /** Waits for a started helper (through interrupts); rethrows its failure unless the caller's. */
    void finish(Throwable callerFailure) {
      if (taken.compareAndSet(false, true)) {
        return; // never started, and now never will
      }
      Uninterruptibly.await(done);
      if (failure == null) {
        return;
      }
      if (callerFailure != null) {
        callerFailure.addSuppressed(failure);
      } else if (failure instanceof RuntimeException e) {
        throw e;
      } else {
        throw (Error) failure;
      }
    }
  }

  /** Rows per band: a power of two whose slice of {@code width} doubles is ≤ BAND_BYTES. */
  private static int bandRows(int width) {
    return Integer.highestOneBit(Math.max(1, BAND_BYTES / (8 * width)));
  }

  /** One accumulator's share of a flush: the buffered updates in its band order, and its bands. */
  private final class Pass {
    /** Y: bands of i, Y row i += Δ·(column j of Φᵀ); Zᵀ: bands of j, row j += Δ·(column i of S). */
    private final boolean byRow;
    /** The buffered updates in band order, laid out as {@link #updates}. */
    private final long[] sorted;
    private final AtomicBoolean partitionTaken = new AtomicBoolean();
    private final AtomicInteger nextBand = new AtomicInteger();
    private CountDownLatch partitioned;
    private SparseSignMatrix matrix;
    private double[] acc;
    /** The buffer being applied. */
    private long[] src;
    private int width;
    private int n;
    private int shift;
    /** Band b's updates are [start[b], start[b+1]); null until partitioned (or if that failed). */
    private int[] start;
    /** Written with the pre-touch reads' sum, so that the compiler cannot drop them. */
    private volatile double touched;

    Pass(boolean byRow, int capacity) {
      this.byRow = byRow;
      sorted = new long[2 * capacity];
    }

    void bind(SparseSignMatrix matrix, double[] acc, int width, long[] src, int n) {
      this.matrix = matrix;
      this.acc = acc;
      this.src = src;
      this.width = width;
      this.n = n;
      shift = Integer.numberOfTrailingZeros(bandRows(width));
      start = null;
      partitionTaken.set(false);
      nextBand.set(0);
      partitioned = new CountDownLatch(1);
    }

    /** Partitions unless the other thread has begun to, then applies bands until none is left. */
    void work() {
      if (partitionTaken.compareAndSet(false, true)) {
        try {
          partition();
        } finally {
          partitioned.countDown();
        }
      } else {
        Uninterruptibly.await(partitioned);
      }
      int[] bandStart = start;
      if (bandStart == null) {
        return; // the partition failed on the other thread, which reports it
      }
      int bands = bandStart.length - 1;
      double sum = 0;
      for (int b; (b = nextBand.getAndIncrement()) < bands; ) {
        sum += applyBand(b, bandStart[b], bandStart[b + 1]);
      }
      touched = sum;
    }

    /** Stable counting sort of the buffered updates by band of their key (i for Y, j for Zᵀ). */
    private void partition() {
      int keyShift = byRow ? 32 : 0;
      int bands = ((acc.length / width - 1) >> shift) + 1;
      int[] bounds = new int[bands + 1];
      for (int u = 0; u < n; u++) {
        bounds[((int) (src[2 * u] >>> keyShift) >> shift) + 1]++;
      }
      for (int b = 0; b < bands; b++) {
        bounds[b + 1] += bounds[b];
      }
      int[] next = bounds.clone();
      for (int u = 0; u < n; u++) {
        long ij = src[2 * u];
        int p = next[(int) (ij >>> keyShift) >> shift]++;
        sorted[2 * p] = ij;
        sorted[2 * p + 1] = src[2 * u + 1];
      }
      start = bounds;
    }

    /** Applies band b's updates [from, to); returns the sum of the pre-touch reads. */
    private double applyBand(int b, int from, int to) {
      if (from == to) {
        return 0;
      }
      int lo = (int) Math.min(acc.length, ((long) b << shift) * width);
      int hi = (int) Math.min(acc.length, ((long) (b + 1) << shift) * width);
      double sum = 0;
      for (int q = lo; q < hi; q += 8) { // 8 doubles per 64-byte line
        sum += acc[q];
      }
      long[] pairs = sorted;
      if (matrix.hasCodeWords()) {
        applyReadingAhead(pairs, from, to);
        return sum;
      }
      for (int u = from; u < to; u++) {
        long ij = pairs[2 * u];
        double delta = Double.longBitsToDouble(pairs[2 * u + 1]);
        int i = (int) (ij >>> 32);
        int j = (int) ij;
        if (byRow) {
          matrix.addColumn(j, delta, acc, i * width);
        } else {
          matrix.addColumn(i, delta, acc, j * width);
        }
      }
      return sum;
    }

    /**
     * {@link #applyBand}'s loop for a matrix with {@link SparseSignMatrix#hasCodeWords}: the
     * column's codes of the update {@link #AHEAD} places on are read now and kept in a ring, so
     * that the random read of the sign table (400 KB, not in L1) is under way while earlier
     * updates are applied instead of stalling each update's writes. Same sums in the same order.
     */
    private void applyReadingAhead(long[] pairs, int from, int to) {
      int[] ring = new int[AHEAD];
      int colShift = byRow ? 0 : 32; // the matrix's column: j for Y (Φᵀ), i for Zᵀ (S)
      int rowShift = 32 - colShift; // the accumulator's row: i for Y, j for Zᵀ
      for (int u = from; u < Math.min(to, from + AHEAD); u++) {
        ring[u - from] = matrix.codeWord((int) (pairs[2 * u] >>> colShift));
      }
      for (int u = from; u < to; u++) {
        int slot = (u - from) & (AHEAD - 1);
        int w = ring[slot];
        if (u + AHEAD < to) {
          ring[slot] = matrix.codeWord((int) (pairs[2 * (u + AHEAD)] >>> colShift));
        }
        long ij = pairs[2 * u];
        matrix.addCodeWord(w, Double.longBitsToDouble(pairs[2 * u + 1]), acc,
            (int) (ij >>> rowShift) * width);
      }
    }
  }

  /**
   * Frees the buffers (they are allocated again at the next {@link #add}).
   *
   * @throws IllegalStateException unless every update has been applied ({@link #flush})
   */
  void drop() {
    if (size > 0 || inFlight != null) {
      throw new IllegalStateException("updates are still buffered");
    }
    updates = null;
    spare = null;
    yPass = null;
    zPass = null;
  }

  long sizeInBytes() {
    return updates == null ? 0 : (spare == null ? 48L : 64L) * capacity;
  }

  /** For tests: the capacity chosen. */
  int capacity() {
    return capacity;
  }
}
