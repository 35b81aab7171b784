package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.GaussianMatrices;
import io.dplrf.sketch.randomness.SecretKey;

/**
 * The secret sketching matrices of the Priv2 mechanism shared by all nodes of one instance:
 * Φ (n×t, N(0,1/t), rows cached: every update reads one) and S (v×m, N(0,1/v), regenerated a
 * column at a time).
 */
public final class Priv2Matrices {
  final SketchSizes sizes;
  final SketchMatrix s;
  final double[] phiRows; // row j of Φ at [j*t, (j+1)*t)

  private Priv2Matrices(SecretKey key, String instance, SketchSizes sizes) {
    this.sizes = sizes;
    SketchMatrix phiT =
        GaussianMatrices.gaussian(key, instance + "/phi", sizes.t(), sizes.n(), 1 / Math.sqrt(sizes.t()));
    phiRows = new double[Math.multiplyExact(sizes.t(), sizes.n())];
    phiT.columns(0, sizes.n(), phiRows);
    s = GaussianMatrices.gaussian(key, instance + "/S", sizes.v(), sizes.m(), 1 / Math.sqrt(sizes.v()));
  }

  public static Priv2Matrices generate(SecretKey key, String instance, SketchSizes sizes) {
    return new Priv2Matrices(key, instance, sizes);
  }

  long sizeInBytes() {
    return 8L * phiRows.length;
  }
}
