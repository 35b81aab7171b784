package io.dplrf.sketch.tree;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.lra.Priv1Matrices;
import io.dplrf.sketch.lra.Priv1Plan;
import io.dplrf.sketch.lra.Priv1Sketch;
import io.dplrf.sketch.lra.Priv2Matrices;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.lra.Priv2Sketch;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.lra.RobustPlan;
import io.dplrf.sketch.lra.RobustSketch;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;

/** Shared deterministic inputs of the tree tests. */
final class TreeFixtures {
  static final PrivacyParams PRIVACY = new PrivacyParams(1, 1e-6);
  static final SecretKey KEY_FOR_CALIBRATION = SecretKey.forTesting(77);

  private TreeFixtures() {}

  static TreeConfig config(Mechanism mech, SketchSizes sizes, int epochs) {
    return new TreeConfig(mech, sizes, PRIVACY, 1.0, epochs, false);
  }

  /** The x-th update of epoch e (deterministic, spread over the matrix). */
  static int row(SketchSizes s, int e, int x) {
    return (7 * x + 3 * e) % s.m();
  }

  static int col(SketchSizes s, int e, int x) {
    return (11 * x + 5 * e + x * x) % s.n();
  }

  static double delta(int e, int x) {
    return 0.5 * x - 0.3 * e + 0.125;
  }

  static final int PER_EPOCH = 12;

  /** Feeds updates x in [from, to) of epoch e. */
  static void feed(ContinualSketch tree, int e, int from, int to) {
    SketchSizes s = tree.config().sizes();
    for (int x = from; x < to; x++) {
      tree.update(row(s, e, x), col(s, e, x), delta(e, x));
    }
  }

  /** The noiseless sketch, on the tree's plan and instance, of all updates of epochs s..e. */
  static NoisyLinearSketch exact(ContinualSketch tree, SecretKey key, int s, int e) {
    SketchSizes sz = tree.config().sizes();
    NoisyLinearSketch exact = tree.plan() instanceof RobustPlan rp
        ? RobustSketch.createWithoutNoise(rp, RobustMatrices.generate(key, tree.instance(), sz,
            rp.p(), rp.pca()), key, "exact")
        : tree.plan() instanceof Priv1Plan p
        ? Priv1Sketch.createWithoutNoise(p, Priv1Matrices.generate(key, tree.instance(), sz, false),
            key, "exact")
        : Priv2Sketch.createWithoutNoise((Priv2Plan) tree.plan(),
            Priv2Matrices.generate(key, tree.instance(), sz, false,
                ((Priv2Plan) tree.plan()).sparsity()), key, "exact");
    for (int ep = s; ep <= e; ep++) {
      for (int x = 0; x < PER_EPOCH; x++) {
        exact.update(row(sz, ep, x), col(sz, ep, x), delta(ep, x));
      }
    }
    return exact;
  }
}
