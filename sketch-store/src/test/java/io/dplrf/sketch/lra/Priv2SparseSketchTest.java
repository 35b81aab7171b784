package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import org.junit.jupiter.api.Test;

/** Priv2 with sparse sign embeddings: the sketch it keeps, its calibration, its wiring. */
class Priv2SparseSketchTest {
  private static final SecretKey KEY = SecretKey.forTesting(17);
  private static final PrivacyParams PRIVACY = new PrivacyParams(1, 1e-6);
  private final SketchSizes sizes = new SketchSizes(40, 60, 2, 8, 16);
  private final Priv2Plan plan = Priv2Plan.calibrateSparse(PRIVACY, 1, sizes, 4, 1);

  private Priv2Matrices mats() {
    return Priv2Matrices.generate(KEY, "p2s", sizes, false, 4);
  }

  // The release = exact sketch + the node's noise check runs for both embeddings in Priv2SketchTest.

  @Test
  void calibration_sensitivityExactlyC_noJlShare_allOfDeltaToTheGaussians() {
    Priv2Plan p = Priv2Plan.calibrateSparse(PRIVACY, 2.5, sizes, 4, 3);
    assertEquals(2.5, p.yNoise().baseSensitivity(), 0.0);
    assertEquals(2.5, p.zNoise().baseSensitivity(), 0.0);
    assertEquals(0.0, p.jlDeltaShare(), 0.0);
    double mu = AnalyticGaussian.mu(1, 1e-6);
    // μ² over 2 sketches × L = 3 nodes.
    assertEquals(mu / Math.sqrt(6), p.yNoise().mu(), 1e-12);
    assertEquals(mu / Math.sqrt(6), p.zNoise().mu(), 1e-12);
    // Less noise than Gaussian Priv2 at the same sizes: no χ² factor on the sensitivity, no δ_JL.
    Priv2Plan gaussian = Priv2Plan.calibrate(PRIVACY, 2.5, sizes, Priv1Plan.DEFAULT_JL_DELTA_SHARE, 3);
    assertTrue(p.yNoise().sigma() < gaussian.yNoise().sigma() / 1.2,
        p.yNoise().sigma() + " vs " + gaussian.yNoise().sigma());
    assertTrue(p.zNoise().sigma() < gaussian.zNoise().sigma(), p.zNoise().sigma() + " vs "
        + gaussian.zNoise().sigma());
  }

  @Test
  void oneEntryChange_movesTheNoiselessSketchesByExactlyDelta() {
    Priv2Sketch a = Priv2Sketch.createWithoutNoise(plan, mats(), KEY, "a");
    Priv2Sketches base = a.release();
    for (int[] e : new int[][] {{0, 0}, {39, 59}, {17, 23}}) {
      Priv2Sketch b = Priv2Sketch.createWithoutNoise(plan, mats(), KEY, "b");
      b.update(e[0], e[1], -0.75);
      Priv2Sketches moved = b.release();
      double dy = 0;
      double dz = 0;
      for (int x = 0; x < base.y().data().length; x++) {
        dy += Math.pow(moved.y().data()[x] - base.y().data()[x], 2);
      }
      for (int x = 0; x < base.z().data().length; x++) {
        dz += Math.pow(moved.z().data()[x] - base.z().data()[x], 2);
      }
      assertEquals(0.75, Math.sqrt(dy), 2 * plan.yNoise().grid().gamma() * Math.sqrt(sizes.t()));
      assertEquals(0.75, Math.sqrt(dz), 2 * plan.zNoise().grid().gamma() * Math.sqrt(sizes.v()));
    }
  }

  @Test
  void planAndMatrices_mustAgreeOnSparsity() {
    assertThrows(IllegalArgumentException.class, () -> Priv2Sketch.create(plan,
        Priv2Matrices.generate(KEY, "p2s", sizes, false), KEY, "x"));
    assertThrows(IllegalArgumentException.class,
        () -> Priv2Plan.calibrateSparse(PRIVACY, 1, sizes, 16, 1)); // s > t = 8
  }

  @Test
  void snapshot_roundTrips() throws Exception {
    Priv2Sketch s = Priv2Sketch.create(plan, mats(), KEY, "snap");
    s.update(3, 4, 0.5);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    SketchCodec.write(s, out);
    NoisyLinearSketch back = SketchCodec.read(new java.io.ByteArrayInputStream(out.toByteArray()), KEY, false);
    assertTrue(back instanceof Priv2Sketch p && p.plan().equals(plan), "plan restored");
    assertEquals(java.util.Arrays.toString(s.release().y().data()),
        java.util.Arrays.toString(((Priv2Sketch) back).release().y().data()));
  }
}
