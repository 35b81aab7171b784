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
 * <p>Φ_top (n×t) and Ψ (t×m) are cached because every update reads one row of Φ_top and one
 * column of Ψ; they are the same size as Yc and Yr. S (v×m) and T (v×(m+n)) are regenerated on
 * demand, a column at a time.
 */
public final class Priv1Matrices {
  final SketchSizes sizes;
  final SketchMatrix phiTopT; // t × n: column j is row j of Φ_top, entries N(0, 1/t)
  final SketchMatrix psi; // t × m, entries N(0, 1/t)
  final SketchMatrix s; // v × m, entries N(0, 1/v)
  final SketchMatrix t; // v × (m+n), entries N(0, 1/v)
  final double[] phiTopRows; // row j of Φ_top at [j*t, (j+1)*t)
  final double[] psiColumns; // column i of Ψ at [i*t, (i+1)*t)

  private Priv1Matrices(SecretKey key, String instance, SketchSizes sizes) {
    this.sizes = sizes;
    int tw = sizes.t();
    int v = sizes.v();
    double phiStd = 1 / Math.sqrt(tw);
    double sStd = 1 / Math.sqrt(v);
    phiTopT = GaussianMatrices.gaussian(key, instance + "/phi", tw, sizes.n(), phiStd);
    psi = GaussianMatrices.gaussian(key, instance + "/psi", tw, sizes.m(), phiStd);
    s = GaussianMatrices.gaussian(key, instance + "/S", v, sizes.m(), sStd);
    t = GaussianMatrices.gaussian(key, instance + "/T", v, sizes.m() + sizes.n(), sStd);
    phiTopRows = new double[Math.multiplyExact(tw, sizes.n())];
    phiTopT.columns(0, sizes.n(), phiTopRows);
    psiColumns = new double[Math.multiplyExact(tw, sizes.m())];
    psi.columns(0, sizes.m(), psiColumns);
  }

  /** Regenerates the matrices of mechanism instance {@code instance} from the key. */
  public static Priv1Matrices generate(SecretKey key, String instance, SketchSizes sizes) {
    return new Priv1Matrices(key, instance, sizes);
  }

  public SketchSizes sizes() {
    return sizes;
  }

  long sizeInBytes() {
    return 8L * (phiTopRows.length + psiColumns.length);
  }
}
