package io.dplrf.release;

import static io.dplrf.sketch.params.Preconditions.check;

import io.dplrf.release.Linalg.Svd;
import io.dplrf.sketch.lra.DenseNoisyMatrix;
import io.dplrf.sketch.matrix.Dense;

/**
 * The input-perturbation baseline: the truncated rank-k SVD of the whole noisy matrix A + N.
 * O(mn) memory and a full SVD: benchmarks and small matrices only. Stateless and thread-safe.
 */
public final class DenseRelease {
  private DenseRelease() {}

  /**
   * @param d the released noisy matrix
   * @param k target rank, 1 ≤ k ≤ min(m, n)
   */
  public static ReportedFactorization factorize(DenseNoisyMatrix d, int k) {
    Dense a = d.noisyA();
    int m = a.rows();
    int n = a.cols();
    int limit = Math.min(m, n);
    check(k >= 1 && k <= limit, "k", "in [1, min(m, n)] = [1, " + limit + "]", k);
    // Decompose the tall orientation; for m < n that is Aᵀ, read in place.
    Svd svd = m >= n
        ? Linalg.svd(Linalg.copyOf(a)).top(k)
        : swap(Linalg.svd(Linalg.transposeView(a)).top(k));
    Factorization f = Linalg.factorization(svd.u(), svd.s(), svd.v());
    return new ReportedFactorization(f, Reports.dense(d.noise(), m, n, f.s(), k));
  }

  private static Svd swap(Svd transposed) {
    return new Svd(transposed.v(), transposed.s(), transposed.u());
  }
}
