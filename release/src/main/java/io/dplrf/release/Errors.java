package io.dplrf.release;

import static io.dplrf.sketch.params.Preconditions.check;

import io.dplrf.sketch.matrix.Dense;
import org.ojalgo.matrix.store.MatrixStore;
import org.ojalgo.matrix.store.R064Store;

/**
 * Accuracy measures for tests and benchmarks: they read the true matrix A, so they are not
 * part of any release.
 */
public final class Errors {
  private static final int ROW_BLOCK = 256;

  private Errors() {}

  /**
   * ‖A − UΣVᵀ‖_F, formed {@value #ROW_BLOCK} rows of UΣVᵀ at a time (O(256·n) extra memory).
   */
  public static double frobeniusError(Dense a, Factorization f) {
    int m = a.rows();
    int n = a.cols();
    if (f.rows() != m || f.cols() != n) {
      throw new IllegalArgumentException("shape mismatch: A is " + m + "x" + n
          + ", factorization is " + f.rows() + "x" + f.cols());
    }
    int k = f.k();
    MatrixStore<Double> vT = Linalg.copyOf(f.v()).transpose();
    double[] s = f.s();
    double[] ad = a.data();
    double sum = 0;
    for (int from = 0; from < m; from += ROW_BLOCK) {
      int b = Math.min(ROW_BLOCK, m - from);
      R064Store left = R064Store.FACTORY.make(b, k);
      for (int i = 0; i < b; i++) {
        double[] r = f.row(from + i);
        for (int l = 0; l < k; l++) {
          left.set(i, l, r[l]);
        }
      }
      MatrixStore<Double> p = left.multiply(vT);
      for (int i = 0; i < b; i++) {
        int base = (from + i) * n;
        for (int j = 0; j < n; j++) {
          double diff = ad[base + j] - p.doubleValue(i, j);
          sum += diff * diff;
        }
      }
    }
    return Math.sqrt(sum);
  }

  /** ‖A − [A]_k‖_F = sqrt(Σ_{l>k} σ_l²) (Eckart–Young), from an ojAlgo SVD of A. */
  public static double bestRankKError(Dense a, int k) {
    check(k >= 0, "k", ">= 0", k);
    double[] s = a.rows() >= a.cols()
        ? Linalg.svd(Linalg.copyOf(a)).s()
        : Linalg.svd(Linalg.transposeView(a)).s();
    double sum = 0;
    for (int l = s.length - 1; l >= k; l--) {
      sum += s[l] * s[l];
    }
    return Math.sqrt(sum);
  }
}
