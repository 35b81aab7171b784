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
   * The sparse sign embeddings of {@link Priv2Plan#calibrateSparse} ({@code sparsity} non-zeros
   * per column; 0 = the Gaussian ones). Sparse matrices are always held: s ints per column.
   */
  public static Priv2Matrices generate(
      SecretKey key, String instance, SketchSizes sizes, boolean cacheUpdateColumns, int sparsity) {
    Preconditions.check(sparsity >= 0, "sparsity", ">= 0", sparsity);
    return new Priv2Matrices(key, instance, sizes, cacheUpdateColumns, sparsity);
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
