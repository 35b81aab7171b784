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
  // Bands of 2^20 / (8·40) → 2048 rows of Y and 2^20 / (8·64) → 2048 rows of Zᵀ.
  private static final int M = 3000;
  private static final int N = 2500;
  private static final int TW = 40;
  private static final int V = 64;
  private static final SparseSignMatrix PHI_T = SparseSignMatrix.of(KEY, "t/phi", TW, N, 4);
  private static final SparseSignMatrix S = SparseSignMatrix.of(KEY, "t/S", V, M, 4);

  /** A buffer onto Y = {@code y} (M×TW) and Zᵀ = {@code zT} (N×V, or shorter in a failure test). */
  private static BandedUpdates banded(double[] y, double[] zT) {
    return new BandedUpdates(PHI_T, y, TW, S, zT, V);
  }

  /**
   * Band by band gives the same sketch as one update at a time. Δ are small integers and the
   * embedding entries ±½, so every partial sum is exact in binary floating point and the two
   * orders must agree bit for bit, across several flushes of a full buffer and a partial one.
   */
  @Test
  void flush_equalsApplyingEachUpdateInArrivalOrder() {
    double[] y = new double[M * TW];
    double[] zT = new double[N * V];
    double[] yOne = new double[M * TW];
    double[] zTOne = new double[N * V];
    BandedUpdates banded = banded(y, zT);
    assertEquals(1 << 15, banded.capacity()); // (120,000 + 160,000) / 8 → 35,000 → 2^15
    SplittableRandom r = new SplittableRandom(3);
    int updates = 3 * banded.capacity() + 1234; // two full buffers flushed in the background
    for (int u = 0; u < updates; u++) {
      int i = r.nextInt(M);
      int j = r.nextInt(N);
      double d = r.nextInt(-9, 10);
      PHI_T.addColumn(j, d, yOne, i * TW);
      S.addColumn(i, d, zTOne, j * V);
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
    double[] y = new double[M * TW];
    double[] zT = new double[N * V];
    double[] yWaited = new double[M * TW];
    double[] zTWaited = new double[N * V];
    BandedUpdates background = banded(y, zT);
    BandedUpdates waited = banded(yWaited, zTWaited);
    SplittableRandom r = new SplittableRandom(5);
    for (int u = 0; u < 5 * background.capacity() + 77; u++) {
      int i = r.nextInt(M);
      int j = r.nextInt(N);
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
    BandedUpdates banded = banded(new double[M * TW], new double[(N - 1) * V]);
    banded.add(0, N - 1, 1.0); // fine for Y; Zᵀ has no row N − 1
    for (int u = 1; u < banded.capacity(); u++) {
      banded.add(0, 0, 1.0); // the last one fills the buffer: Y applied here, Zᵀ in the background
    }
    IllegalStateException first = assertThrows(IllegalStateException.class, banded::flush);
    assertInstanceOf(ArrayIndexOutOfBoundsException.class, first.getCause());
    assertThrows(IllegalStateException.class, banded::flush);
    assertThrows(IllegalStateException.class, () -> banded.add(1, 1, 1.0));
  }

  /**
   * A Y pass that fails on the caller (row M of Y does not exist) throws from the add that filled
   * the buffer — after the Zᵀ pass running beside it has ended — and makes the sketch unusable.
   */
  @Test
  void failedCallerPass_throwsAtOnceAndThenAtEveryCall() {
    BandedUpdates banded = banded(new double[M * TW], new double[N * V]);
    banded.add(M, 0, 1.0);
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
