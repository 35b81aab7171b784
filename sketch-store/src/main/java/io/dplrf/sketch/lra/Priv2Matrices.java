package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.GaussianMatrices;
import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.randomness.SparseSignMatrix;

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
  /** The same matrices when sparse (sparsity > 0), else null: updates add their s non-zeros. */
  final SparseSignMatrix phiTSparse;
  final SparseSignMatrix sSparse;
  final int sparsity;

  private Priv2Matrices(SecretKey key, String instance, SketchSizes sizes, boolean cache,
      int sparsity) {
    this.sizes = sizes;
    this.instance = instance;
    this.sparsity = sparsity;
    if (sparsity > 0) {
      // Own labels: a sparse and a Gaussian instance never share key stream bytes.
      phiTSparse = SparseSignMatrix.of(key, instance + "/phi-sparse", sizes.t(), sizes.n(), sparsity);
      sSparse = SparseSignMatrix.of(key, instance + "/S-sparse", sizes.v(), sizes.m(), sparsity);
      phiT = phiTSparse;
      s = sSparse;
    } else {
      phiTSparse = sSparse = null;
      phiT = CachedColumns.maybe(GaussianMatrices.gaussian(
          key, instance + "/phi", sizes.t(), sizes.n(), 1 / Math.sqrt(sizes.t())), cache);
      s = CachedColumns.maybe(GaussianMatrices.gaussian(
          key, instance + "/S", sizes.v(), sizes.m(), 1 / Math.sqrt(sizes.v())), cache);
    }
  }

  public static Priv2Matrices generate(
      SecretKey key, String instance, SketchSizes sizes, boolean cacheUpdateColumns) {
    return new Priv2Matrices(key, instance, sizes, cacheUpdateColumns, 0);
  }

  /**
   * The sparse sign embeddings of {@link Priv2Plan#calibrateL1} ({@code sparsity} non-zeros
   * per column; 0 = the Gaussian ones). Sparse matrices are always held: s ints per column.
   */
  public static Priv2Matrices generate(
      SecretKey key, String instance, SketchSizes sizes, boolean cacheUpdateColumns, int sparsity) {
    Preconditions.check(sparsity >= 0, "sparsity", ">= 0", sparsity);
    return new Priv2Matrices(key, instance, sizes, cacheUpdateColumns, sparsity);
  }

  /**
   * b_Φ = max_j ‖row j of Φ‖₂, the factor of Y's sensitivity under entrywise-ℓ1 neighbours
   * (docs/privacy/l1-units.md, Lemma 1): exactly 1 for sparse sign embeddings (s non-zeros ±1/√s
   * per column, s = 4: each square is 1/4, exact in binary), else computed from the drawn matrix and
   * rounded up ({@link #maxColumnNorm}).
   */
  public double maxRowNormOfPhi() {
    return sparsity > 0 ? 1 : maxColumnNorm(phiT); // column j of Φᵀ is row j of Φ
  }

  /** b_S = max_i ‖column i of S‖₂, Z's factor; as {@link #maxRowNormOfPhi}. */
  public double maxColumnNormOfS() {
    return sparsity > 0 ? 1 : maxColumnNorm(s);
  }

  /**
   * An upper bound of the largest column norm of {@code a}. Each norm is √(Σ x²) summed in double
   * over k = rows entries: relative error at most ((k + 1)/2 + 1)·2⁻⁵³ to first order (k − 1
   * additions of non-negative terms, k squarings and a square root, each within 2⁻⁵³), so the
   * maximum is multiplied by 1 + (k + 2)·2⁻⁵² — at least twice that bound — and rounded up.
   */
  static double maxColumnNorm(SketchMatrix a) {
    int rows = a.rows();
    int block = Math.max(1, (1 << 16) / rows);
    double[] buf = new double[block * rows];
    double max = 0;
    for (int from = 0; from < a.cols(); from += block) {
      int to = Math.min(a.cols(), from + block);
      a.columns(from, to, buf);
      for (int c = 0; c < to - from; c++) {
        double sum = 0;
        for (int r = c * rows, end = r + rows; r < end; r++) {
          sum += buf[r] * buf[r];
        }
        max = Math.max(max, sum);
      }
    }
    return Math.nextUp(Math.sqrt(max) * (1 + (rows + 2) * 0x1.0p-52));
  }

  public SketchSizes sizes() {
    return sizes;
  }

  /** The instance label the matrices derive from (public, not secret). */
  public String instance() {
    return instance;
  }

  long sizeInBytes() {
    if (sparsity > 0) {
      return phiTSparse.sizeInBytes() + sSparse.sizeInBytes();
    }
    return CachedColumns.bytes(phiT) + CachedColumns.bytes(s);
  }
}
