package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.randomness.SparseSignMatrix;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class BandedUpdatesTest {
  private static final SecretKey KEY = SecretKey.forTesting(7);

  /**
   * Band by band gives the same sketch as one update at a time. Δ are small integers and, with s
   * = 4, the embedding entries ±½, so every partial sum is exact; with s = 2 (±1/√2, rounded) the
   * sums agree bit for bit because each entry receives its updates in arrival order either way.
   * Across several flushes of a full buffer, a partial one, and one of three updates (bands
   * holding fewer updates than the read-ahead), for s = 4 (codes read ahead) and s = 2 (not).
   */
  @Test
  void flush_equalsApplyingEachUpdateInArrivalOrder() {
    for (int nonZeros : new int[] {4, 2}) {
      flushEqualsOneAtATime(nonZeros);
    }
  }

  private static void flushEqualsOneAtATime(int nonZeros) {
    int m = 3000;
    int n = 2500;
    int tw = 40;
    int v = 64; // bands of 2^20 / (8·40) → 2048 rows of Y and 2^20 / (8·64) → 2048 rows of Zᵀ
    SparseSignMatrix phiT = SparseSignMatrix.of(KEY, "t/phi", tw, n, nonZeros);
    SparseSignMatrix s = SparseSignMatrix.of(KEY, "t/S", v, m, nonZeros);
    assertEquals(nonZeros == 4, phiT.hasCodeWords()); // both loops of a band are covered
    double[] y = new double[m * tw];
    double[] zT = new double[n * v];
    double[] yOne = new double[m * tw];
    double[] zTOne = new double[n * v];
    BandedUpdates banded = new BandedUpdates((long) y.length + zT.length);
    assertEquals(1 << 15, banded.capacity()); // (120,000 + 160,000) / 8 → 35,000 → 2^15
    SplittableRandom r = new SplittableRandom(3);
    int updates = 2 * banded.capacity() + 1234;
    int flushes = 0;
    for (int u = 0; u < updates + 3; u++) {
      int i = r.nextInt(m);
      int j = r.nextInt(n);
      double d = r.nextInt(-9, 10);
      phiT.addColumn(j, d, yOne, i * tw);
      s.addColumn(i, d, zTOne, j * v);
      if (banded.add(i, j, d)) {
        banded.flush(phiT, y, tw, s, zT, v);
        flushes++;
      }
      if (u == updates - 1) {
        assertEquals(2, flushes);
        assertEquals(1234, banded.size());
        banded.flush(phiT, y, tw, s, zT, v);
      }
    }
    assertEquals(3, banded.size());
    banded.flush(phiT, y, tw, s, zT, v);
    assertEquals(0, banded.size());
    assertArrayEquals(yOne, y, "s = " + nonZeros);
    assertArrayEquals(zTOne, zT, "s = " + nonZeros);
  }

  /**
   * Which thread applies which band does not change a bit: with real-valued Δ (rounding in every
   * sum) and many bands per accumulator, a flush whose helper runs beside the caller, one whose
   * helper runs before the caller starts (so it takes every band), one whose helper starts late on
   * a thread of its own, and one whose helper never runs (the caller takes every band) give
   * identical sketches — flushed synchronously, or in the background as a sketch does with a full
   * buffer (the caller then finishes each background flush before the next).
   */
  @Test
  void flush_resultDoesNotDependOnWhichThreadAppliesWhichBand() throws Exception {
    int m = 4096;
    int n = 4096;
    int tw = 100; // 2^20 / 800 → 1024 rows per band of Y: 4 bands
    int v = 400; // 2^20 / 3200 → 256 rows per band of Zᵀ: 16 bands
    SparseSignMatrix phiT = SparseSignMatrix.of(KEY, "t/phi", tw, n, 4);
    SparseSignMatrix s = SparseSignMatrix.of(KEY, "t/S", v, m, 4);
    Executor beside = ForkJoinPool.commonPool();
    Executor first = Runnable::run;
    Executor never = task -> { };
    Executor late = task -> new Thread(() -> {
      LockSupport.parkNanos(5_000_000);
      task.run();
    }).start();
    double[][] results = new double[16][];
    int k = 0;
    for (boolean background : new boolean[] {false, true}) {
    for (Executor helper : new Executor[] {beside, first, never, late}) {
      double[] y = new double[m * tw];
      double[] zT = new double[n * v];
      BandedUpdates banded = new BandedUpdates((long) y.length + zT.length, helper);
      SplittableRandom r = new SplittableRandom(5);
      for (int u = 0; u < 7 * banded.capacity() / 2; u++) {
        if (banded.add(r.nextInt(m), r.nextInt(n), r.nextDouble(-1, 1))) {
          if (background) {
            banded.flushInBackground(phiT, y, tw, s, zT, v);
          } else {
            banded.flush(phiT, y, tw, s, zT, v);
          }
        }
      }
      banded.flush(phiT, y, tw, s, zT, v);
      assertEquals(0, banded.size());
      results[k++] = y;
      results[k++] = zT;
    }
    }
    assertTrue(Arrays.stream(results[1]).anyMatch(x -> x != 0));
    for (int c = 2; c < results.length; c++) {
      assertArrayEquals(results[c % 2], results[c], "helper " + c / 2);
    }
  }

  /**
   * A failure on the helper's side reaches the caller: a Zᵀ one row short makes only the Zᵀ
   * pass fail, and the helper, run before the caller, takes that pass.
   */
  @Test
  void flush_rethrowsTheHelpersFailure() {
    int m = 300;
    int n = 200;
    SparseSignMatrix phiT = SparseSignMatrix.of(KEY, "t/phi", 10, n, 4);
    SparseSignMatrix s = SparseSignMatrix.of(KEY, "t/S", 16, m, 4);
    double[] y = new double[m * 10];
    double[] zTShort = new double[(n - 1) * 16];
    BandedUpdates banded = new BandedUpdates(1 << 20, Runnable::run);
    banded.add(7, n - 1, 1.0);
    assertThrows(ArrayIndexOutOfBoundsException.class,
        () -> banded.flush(phiT, y, 10, s, zTShort, 16));
  }

  /**
   * A background flush's failure reaches the caller at the next flush, and a flush never starts
   * while another may still write: the second full buffer waits for the failed one.
   */
  @Test
  void flushInBackground_rethrowsTheHelpersFailureAtTheNextFlush() {
    int m = 300;
    int n = 200;
    SparseSignMatrix phiT = SparseSignMatrix.of(KEY, "t/phi", 10, n, 4);
    SparseSignMatrix s = SparseSignMatrix.of(KEY, "t/S", 16, m, 4);
    double[] y = new double[m * 10];
    double[] zTShort = new double[(n - 1) * 16];
    BandedUpdates banded = new BandedUpdates(1 << 20, Runnable::run);
    banded.add(7, n - 1, 1.0);
    banded.flushInBackground(phiT, y, 10, s, zTShort, 16); // the helper runs it, and fails
    assertThrows(ArrayIndexOutOfBoundsException.class,
        () -> banded.flush(phiT, y, 10, s, zTShort, 16));
  }

  /** A noiseless sparse Priv2 sketch, 50×40, t = 8, v = 16: buffer capacity 4,096 updates. */
  private static Priv2Sketch smallSparseSketch() {
    var sizes = new io.dplrf.sketch.params.SketchSizes(50, 40, 2, 8, 16);
    Priv2Plan plan = Priv2Plan.calibrateSparse(new io.dplrf.sketch.params.PrivacyParams(1, 1e-6),
        1, sizes, 4, 1);
    return Priv2Sketch.createWithoutNoise(plan,
        Priv2Matrices.generate(KEY, "t", sizes, false, 4), KEY, "t/acc");
  }

  /**
   * An accumulator handed over to a node frees its buffers (48 bytes per update of capacity: the
   * buffer and two band orders; 64 once a background flush made the second buffer) once they are
   * applied; buffers still holding updates cannot be dropped.
   */
  @Test
  void intoNode_appliesThenDropsTheUpdateBuffers() {
    Priv2Sketch sketch = smallSparseSketch();
    sketch.update(3, 5, 2.0);
    long before = sketch.sizeInBytes();
    NoisyLinearSketch node = sketch.intoNode("t/leaf");
    // capacity: max(2^12, (50·8 + 40·16) / 8) = 4,096 updates
    assertEquals(48L * 4096, before - sketch.sizeInBytes());
    assertTrue(Arrays.stream(node.state()[0]).anyMatch(x -> x != 0), "the update was applied");

    Priv2Sketch full = smallSparseSketch();
    for (int u = 0; u < 4096; u++) { // one buffer: flushed in the background, a second made
      full.update(u % 50, u % 40, 1.0);
    }
    long both = full.sizeInBytes();
    full.intoNode("t/leaf2");
    assertEquals(64L * 4096, both - full.sizeInBytes());

    BandedUpdates banded = new BandedUpdates(1 << 20);
    banded.add(1, 2, 3.0);
    assertThrows(IllegalStateException.class, banded::drop);
  }

  /** The sparse Priv2 sketch buffers: nothing reaches its state before a flush point. */
  @Test
  void sparsePriv2Sketch_flushesAtReleaseAndSnapshot() throws Exception {
    Priv2Sketch sketch = smallSparseSketch();
    sketch.update(3, 5, 2.0);
    for (double[] a : sketch.state()) {
      for (double x : a) {
        assertEquals(0.0, x);
      }
    }
    Priv2Sketches released = sketch.release();
    boolean any = false;
    for (double x : released.y().data()) {
      any |= x != 0;
    }
    assertTrue(any, "the release flushed the buffered update");
  }
}
