package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.GaussianMatrices;
import io.dplrf.sketch.randomness.SecretKey;

/**
 * The secret sketching matrices of the Priv2 mechanism shared by all nodes of one instance:
 * Φ (n×t, N(0,1/t)) and S (v×m, N(0,1/v)), regenerated from the key a column at a time. With
 * {@code cacheUpdateColumns} both are held in memory instead, for the streaming service: every
 * update reads a row of Φ (t numbers) and a column of S (v numbers), and with rows spread over
 * a large m nearly every S column a flush needs is a distinct one, so regenerating them cost
 * v Gaussians per update (98% of ingest time in {@code dplrf bench ingest}, docs/benchmarks-ingest.md).
 */
public final class Priv2Matrices {
  final SketchSizes sizes;
  final String instance;
  final SketchMatrix phiT; // t × n: column j is row j of Φ
  final SketchMatrix s; // v × m

  private Priv2Matrices(SecretKey key, String instance, SketchSizes sizes, boolean cache) {
    this.sizes = sizes;
    this.instance = instance;
    phiT = CachedColumns.maybe(GaussianMatrices.gaussian(
        key, instance + "/phi", sizes.t(), sizes.n(), 1 / Math.sqrt(sizes.t())), cache);
    s = CachedColumns.maybe(GaussianMatrices.gaussian(
        key, instance + "/S", sizes.v(), sizes.m(), 1 / Math.sqrt(sizes.v())), cache);
  }

  public static Priv2Matrices generate(
      SecretKey key, String instance, SketchSizes sizes, boolean cacheUpdateColumns) {
    return new Priv2Matrices(key, instance, sizes, cacheUpdateColumns);
  }

  public SketchSizes sizes() {
    return sizes;
  }

  /** The instance label the matrices derive from (public, not secret). */
  public String instance() {
    return instance;
  }

  long sizeInBytes() {
    return CachedColumns.bytes(phiT) + CachedColumns.bytes(s);
  }
}
