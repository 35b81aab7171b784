package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.GaussianMatrices;
import io.dplrf.sketch.randomness.SecretKey;

/**
 * The secret sketching matrices of paper 002 Algorithm 1 that every node of one mechanism
 * instance shares (so node sketches add up): Φ_top (the first n rows of Φ, the rows that meet
 * A's columns), Ψ, S and T. The last m rows of Φ — the rows that meet the σmin·I padding — are
 * NOT here: they are per-node randomness (see {@link Priv1Sketch}).
 *
 * <p>All four are regenerated from the key on demand, a column at a time. With
 * {@code cacheUpdateColumns} the two an update reads in O(t) — Φ_top's rows and Ψ's columns, the
 * same size as Yr and Yc — are held in memory instead (for the streaming service, where
 * regenerating them per update would dominate).
 */
public final class Priv1Matrices {
  final SketchSizes sizes;
  final String instance;
  final SketchMatrix phiTopT; // t × n: column j is row j of Φ_top, entries N(0, 1/t)
  final SketchMatrix psi; // t × m, entries N(0, 1/t)
  final SketchMatrix s; // v × m, entries N(0, 1/v)
  final SketchMatrix t; // v × (m+n), entries N(0, 1/v)

  private Priv1Matrices(SecretKey key, String instance, SketchSizes sizes, boolean cache) {
    this.sizes = sizes;
    this.instance = instance;
    int tw = sizes.t();
    int v = sizes.v();
    double phiStd = 1 / Math.sqrt(tw);
    double sStd = 1 / Math.sqrt(v);
    phiTopT = CachedColumns.maybe(
        GaussianMatrices.gaussian(key, instance + "/phi", tw, sizes.n(), phiStd), cache);
    psi = CachedColumns.maybe(
        GaussianMatrices.gaussian(key, instance + "/psi", tw, sizes.m(), phiStd), cache);
    s = GaussianMatrices.gaussian(key, instance + "/S", v, sizes.m(), sStd);
    t = GaussianMatrices.gaussian(key, instance + "/T", v, sizes.m() + sizes.n(), sStd);
  }

  /** Regenerates the matrices of mechanism instance {@code instance} from the key. */
  public static Priv1Matrices generate(
      SecretKey key, String instance, SketchSizes sizes, boolean cacheUpdateColumns) {
    return new Priv1Matrices(key, instance, sizes, cacheUpdateColumns);
  }

  public SketchSizes sizes() {
    return sizes;
  }

  /** The instance label the matrices derive from (public, not secret). */
  public String instance() {
    return instance;
  }

  long sizeInBytes() {
    return CachedColumns.bytes(phiTopT) + CachedColumns.bytes(psi);
  }
}
