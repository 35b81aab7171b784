package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.randomness.SparseSignMatrix;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BandedUpdatesTest {
  private static final SecretKey KEY = SecretKey.forTesting(7);

  /**
   * Band by band gives the same sketch as one update at a time. Δ are small integers and the
   * embedding entries ±½, so every partial sum is exact in binary floating point and the two
   * orders must agree bit for bit, across several flushes of a full buffer and a partial one.
   */
  @Test
  void flush_equalsApplyingEachUpdateInArrivalOrder() {
    int m = 3000;
    int n = 2500;
    int tw = 40;
    int v = 64; // bands of 2^20 / (8·40) → 2048 rows of Y and 2^20 / (8·64) → 2048 rows of Zᵀ
    SparseSignMatrix phiT = SparseSignMatrix.of(KEY, "t/phi", tw, n, 4);
    SparseSignMatrix s = SparseSignMatrix.of(KEY, "t/S", v, m, 4);
    double[] y = new double[m * tw];
    double[] zT = new double[n * v];
    double[] yOne = new double[m * tw];
    double[] zTOne = new double[n * v];
    BandedUpdates banded = new BandedUpdates(phiT, y, tw, s, zT, v);
    assertEquals(1 << 15, banded.capacity()); // (120,000 + 160,000) / 8 → 35,000 → 2^15
    SplittableRandom r = new SplittableRandom(3);
    int updates = 3 * banded.capacity() + 1234; // two full buffers flushed in the background
    for (int u = 0; u < updates; u++) {
      int i = r.nextInt(m);
      int j = r.nextInt(n);
      double d = r.nextInt(-9, 10);
      phiT.addColumn(j, d, yOne, i * tw);
      s.addColumn(i, d, zTOne, j * v);
      banded.add(i, j, d);
    }
    // The third full buffer may still be in flight; with the 1,234 filling, all are pending.
    assertEquals(banded.capacity() + 1234, banded.size());
    banded.flush();
    assertEquals(0, banded.size());
    assertArrayEquals(yOne, y);
    assertArrayEquals(zTOne, zT);
  }

  /**
   * A flush in the background applies its buffer exactly as a flush waited for at once: the same
   * order, so the same rounding. Non-integer Δ, so a different order would show in the last bits.
   */
  @Test
  void backgroundFlush_isBitIdenticalToWaitingForEachFlush() {
    int m = 3000;
    int n = 2500;
    int tw = 40;
    int v = 64;
    SparseSignMatrix phiT = SparseSignMatrix.of(KEY, "t/phi", tw, n, 4);
    SparseSignMatrix s = SparseSignMatrix.of(KEY, "t/S", v, m, 4);
    double[] y = new double[m * tw];
    double[] zT = new double[n * v];
    double[] yWaited = new double[m * tw];
    double[] zTWaited = new double[n * v];
    BandedUpdates background = new BandedUpdates(phiT, y, tw, s, zT, v);
    BandedUpdates waited = new BandedUpdates(phiT, yWaited, tw, s, zTWaited, v);
    SplittableRandom r = new SplittableRandom(5);
    for (int u = 0; u < 5 * background.capacity() + 77; u++) {
      int i = r.nextInt(m);
      int j = r.nextInt(n);
      double d = r.nextDouble(-1, 1);
      background.add(i, j, d);
      waited.add(i, j, d);
      if (waited.size() == waited.capacity()) {
        waited.flush(); // the buffer just filled: wait for its flush before the next update
      }
    }
    background.flush();
    waited.flush();
    assertArrayEquals(yWaited, y);
    assertArrayEquals(zTWaited, zT);
  }

  /**
   * A Zᵀ pass that fails on the flusher thread (here the Zᵀ array is one row short, so the last
   * column's update cannot land) is reported at the next flush point, and at every one after it:
   * the sketch is incomplete.
   */
  @Test
  void failedBackgroundPass_isRethrownAtEveryLaterFlush() {
    int m = 3000;
    int n = 2500;
    SparseSignMatrix phiT = SparseSignMatrix.of(KEY, "t/phi", 40, n, 4);
    SparseSignMatrix s = SparseSignMatrix.of(KEY, "t/S", 64, m, 4);
    BandedUpdates banded =
        new BandedUpdates(phiT, new double[m * 40], 40, s, new double[(n - 1) * 64], 64);
    banded.add(0, n - 1, 1.0); // fine for Y; Zᵀ has no row n − 1
    for (int u = 1; u < banded.capacity(); u++) {
      banded.add(0, 0, 1.0); // the last one fills the buffer: Y applied here, Zᵀ in the background
    }
    IllegalStateException first = assertThrows(IllegalStateException.class, banded::flush);
    assertInstanceOf(ArrayIndexOutOfBoundsException.class, first.getCause());
    assertThrows(IllegalStateException.class, banded::flush);
    assertThrows(IllegalStateException.class, () -> banded.add(1, 1, 1.0));
  }

  /**
   * A Y pass that fails on the caller (row m of Y does not exist) throws from the add that filled
   * the buffer — after the Zᵀ pass running beside it has ended — and makes the sketch unusable.
   */
  @Test
  void failedCallerPass_throwsAtOnceAndThenAtEveryCall() {
    int m = 3000;
    int n = 2500;
    SparseSignMatrix phiT = SparseSignMatrix.of(KEY, "t/phi", 40, n, 4);
    SparseSignMatrix s = SparseSignMatrix.of(KEY, "t/S", 64, m, 4);
    BandedUpdates banded =
        new BandedUpdates(phiT, new double[m * 40], 40, s, new double[n * 64], 64);
    banded.add(m, 0, 1.0);
    for (int u = 1; u < banded.capacity() - 1; u++) {
      banded.add(0, 0, 1.0);
    }
    assertThrows(ArrayIndexOutOfBoundsException.class, () -> banded.add(0, 0, 1.0));
    IllegalStateException later = assertThrows(IllegalStateException.class, banded::flush);
    assertInstanceOf(ArrayIndexOutOfBoundsException.class, later.getCause());
  }

  /** The sparse Priv2 sketch buffers: nothing reaches its state before a flush point. */
  @Test
  void sparsePriv2Sketch_flushesAtReleaseAndSnapshot() throws Exception {
    var sizes = new io.dplrf.sketch.params.SketchSizes(50, 40, 2, 8, 16);
    Priv2Plan plan = Priv2Plan.calibrateSparse(new io.dplrf.sketch.params.PrivacyParams(1, 1e-6),
        1, sizes, 4, 1);
    Priv2Sketch sketch = Priv2Sketch.createWithoutNoise(plan,
        Priv2Matrices.generate(KEY, "t", sizes, false, 4), KEY, "t/acc");
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
