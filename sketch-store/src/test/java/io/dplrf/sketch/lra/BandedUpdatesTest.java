package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
    BandedUpdates banded = new BandedUpdates((long) y.length + zT.length);
    assertEquals(1 << 15, banded.capacity()); // (120,000 + 160,000) / 8 → 35,000 → 2^15
    SplittableRandom r = new SplittableRandom(3);
    int updates = 2 * banded.capacity() + 1234;
    int flushes = 0;
    for (int u = 0; u < updates; u++) {
      int i = r.nextInt(m);
      int j = r.nextInt(n);
      double d = r.nextInt(-9, 10);
      phiT.addColumn(j, d, yOne, i * tw);
      s.addColumn(i, d, zTOne, j * v);
      if (banded.add(i, j, d)) {
        banded.flush(phiT, y, tw, s, zT, v);
        flushes++;
      }
    }
    assertEquals(2, flushes);
    assertEquals(1234, banded.size());
    banded.flush(phiT, y, tw, s, zT, v);
    assertEquals(0, banded.size());
    assertArrayEquals(yOne, y);
    assertArrayEquals(zTOne, zT);
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
