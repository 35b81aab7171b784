package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import org.junit.jupiter.api.Test;

class AbsorbTest {
  private static final SecretKey KEY = SecretKey.forTesting(5);
  private static final SketchSizes SIZES = new SketchSizes(12, 9, 2, 4, 8);
  private static final Priv1Plan PLAN = Priv1Plan.calibrate(new PrivacyParams(1, 1e-6), 1, SIZES);

  private static Priv1Sketch noisy(String instance, String node) {
    return Priv1Sketch.create(PLAN, Priv1Matrices.generate(KEY, instance, SIZES, false), KEY, node);
  }

  private static Priv1Sketch acc(String instance) {
    return Priv1Sketch.createWithoutNoise(
        PLAN, Priv1Matrices.generate(KEY, instance, SIZES, false), KEY, instance + "/acc");
  }

  /** Absorbing a noiseless accumulator = applying its updates: padding is not added twice. */
  @Test
  void absorbingANoiselessPriv1Accumulator_equalsUpdatingTheNodeDirectly() {
    Priv1Sketch direct = noisy("i", "i/n");
    Priv1Sketch folded = noisy("i", "i/n");
    Priv1Sketch acc = acc("i");
    for (int x = 0; x < 20; x++) {
      direct.update(x % 12, (3 * x) % 9, x - 4.5);
      acc.update(x % 12, (3 * x) % 9, x - 4.5);
    }
    folded.absorb(acc);
    acc.reset();
    folded.absorb(acc); // empty after reset: adds nothing
    Priv1Sketches a = direct.release();
    Priv1Sketches b = folded.release();
    assertArrayEquals(a.yc().data(), b.yc().data(), 1e-9);
    assertArrayEquals(a.yr().data(), b.yr().data(), 1e-9);
    assertArrayEquals(a.z().data(), b.z().data(), 1e-9);
  }

  @Test
  void absorbAndReset_refuseNoisySketchesAndOtherInstances() {
    Priv1Sketch node = noisy("i", "i/n");
    assertThrows(IllegalArgumentException.class, () -> node.absorb(noisy("i", "i/m")));
    assertThrows(IllegalArgumentException.class, () -> node.absorb(acc("other")));
    assertThrows(IllegalStateException.class, node::reset);
  }
}
