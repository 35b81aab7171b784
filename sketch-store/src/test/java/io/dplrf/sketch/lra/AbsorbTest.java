package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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

  /**
   * An accumulator handed over with intoNode is exactly a fresh node that absorbed it (same data,
   * same count, same noise from the node's label), for the sparse Priv2 accumulator of the tree
   * with updates still buffered; the spent accumulator refuses further use.
   */
  @Test
  void intoNode_equalsAFreshNodeThatAbsorbedTheAccumulator_andSpendsIt() {
    Priv2Plan plan = Priv2Plan.calibrateSparse(new PrivacyParams(1, 1e-6), 1, SIZES, 4, 1);
    Priv2Matrices mats = Priv2Matrices.generate(KEY, "i", SIZES, true, 4);
    Priv2Sketch acc = Priv2Sketch.createWithoutNoise(plan, mats, KEY, "i/acc");
    for (int x = 0; x < 20; x++) {
      acc.update(x % 12, (3 * x) % 9, x - 4.5);
    }
    Priv2Sketch absorbed = Priv2Sketch.create(plan, mats, KEY, "i/node");
    absorbed.absorb(acc);
    NoisyLinearSketch node = acc.intoNode("i/node");
    assertEquals(false, node.isNoiseless());
    assertEquals(20, node.updateCount());
    Priv2Sketches a = absorbed.release();
    Priv2Sketches b = (Priv2Sketches) node.release();
    assertArrayEquals(a.y().data(), b.y().data(), 0.0);
    assertArrayEquals(a.z().data(), b.z().data(), 0.0);
    assertThrows(IllegalStateException.class, acc::reset);
    assertThrows(IllegalStateException.class, () -> absorbed.absorb(acc));
    assertThrows(IllegalStateException.class, () -> acc.intoNode("i/again"));
    assertThrows(IllegalStateException.class, () -> node.intoNode("i/x"), "a noisy node");
    assertThrows(IllegalStateException.class, () -> acc("i").intoNode("i/x"),
        "Priv1 state holds more than data");
  }

  /**
   * A right child turned into its parent in place is exactly a fresh parent node that absorbed
   * both children (same data bit for bit, same count, same noise from the parent's label); the
   * left child is untouched, the spent child refuses further use, and neither a noiseless
   * accumulator nor a Priv1 node (its state holds its padding) can become a parent.
   */
  @Test
  void intoParent_equalsAFreshParentThatAbsorbedBothChildren_andSpendsTheChild() {
    Priv2Plan plan = Priv2Plan.calibrateSparse(new PrivacyParams(1, 1e-6), 1, SIZES, 4, 1);
    Priv2Matrices mats = Priv2Matrices.generate(KEY, "i", SIZES, true, 4);
    Priv2Sketch left = Priv2Sketch.create(plan, mats, KEY, "i/left");
    Priv2Sketch right = Priv2Sketch.create(plan, mats, KEY, "i/right");
    for (int x = 0; x < 30; x++) {
      left.update(x % 12, (5 * x) % 9, 0.1 * x - 1.3);
      right.update((7 * x) % 12, x % 9, 2.5 - 0.3 * x);
    }
    Priv2Sketch fresh = Priv2Sketch.create(plan, mats, KEY, "i/parent");
    fresh.absorb(left);
    fresh.absorb(right);
    double[] leftY = left.release().y().data().clone();
    NoisyLinearSketch parent = right.intoParent(left, "i/parent");
    assertEquals("i/parent", parent.nodeLabel());
    assertEquals(60, parent.updateCount());
    Priv2Sketches a = fresh.release();
    Priv2Sketches b = (Priv2Sketches) parent.release();
    assertArrayEquals(a.y().data(), b.y().data(), 0.0);
    assertArrayEquals(a.z().data(), b.z().data(), 0.0);
    assertArrayEquals(leftY, left.release().y().data(), 0.0, "the left child is unchanged");
    assertThrows(IllegalStateException.class, () -> right.intoParent(left, "i/again"));
    assertThrows(IllegalStateException.class, () -> fresh.absorb(right));
    Priv2Sketch acc = Priv2Sketch.createWithoutNoise(plan, mats, KEY, "i/acc");
    assertThrows(IllegalStateException.class, () -> acc.intoParent(left, "i/p"),
        "a noiseless accumulator becomes a node with intoNode");
    assertThrows(IllegalStateException.class, () -> noisy("i", "i/n").intoParent(noisy("i", "i/m"),
        "i/p"), "Priv1 state holds more than data");
  }

  @Test
  void absorbAndReset_refuseNoisySketchesAndOtherInstances() {
    Priv1Sketch node = noisy("i", "i/n");
    assertThrows(IllegalArgumentException.class, () -> node.absorb(noisy("i", "i/m")));
    assertThrows(IllegalArgumentException.class, () -> node.absorb(acc("other")));
    assertThrows(IllegalStateException.class, node::reset);
  }
}
