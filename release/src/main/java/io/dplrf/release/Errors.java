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
    return Math.sqrt(sumOfPowers(a, f, 2));
  }

  /**
   * The entrywise ℓp error ‖A − UΣVᵀ‖_p = (Σ_ij |A_ij − M_ij|^p)^{1/p} (paper 000, eq. (1)),
   * blockwise as {@link #frobeniusError}; p ≥ 1.
   */
  public static double entrywiseError(Dense a, Factorization f, double p) {
    check(p >= 1 && p < Double.POSITIVE_INFINITY, "p", ">= 1 and finite", p);
    return Math.pow(sumOfPowers(a, f, p), 1 / p);
  }

  /**
   * ‖A − A V Vᵀ‖_p for an n×k basis V with orthonormal columns (paper 000, eq. (2): the robust
   * PCA objective with Π = V Vᵀ), blockwise.
   */
  public static double projectionError(Dense a, Dense basis, double p) {
    if (a.cols() != basis.rows()) {
      throw new IllegalArgumentException("A is " + a.rows() + "x" + a.cols() + " but the basis has "
          + basis.rows() + " rows");
    }
    double[] ones = new double[basis.cols()];
    java.util.Arrays.fill(ones, 1.0);
    Dense av = Linalg.toDense(Linalg.copyOf(a).multiply(Linalg.copyOf(basis)));
    return entrywiseError(a, new Factorization(av, ones, basis), p);
  }

  private static double sumOfPowers(Dense a, Factorization f, double pow) {
    int m = a.rows();
    int n = a.cols();
    if (f.rows() != m || f.cols() != n) {
      throw new IllegalArgumentException("shape mismatch: A is " + m + "x" + n
          + ", factorization is " + f.rows() + "x" + f.cols());
    }
    int k = f.k();
    MatrixStore<Double> vT = Linalg.copyOf(f.v()).transpose();
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
          sum += pow == 2 ? diff * diff : Math.pow(Math.abs(diff), pow);
        }
      }
    }
    return sum;
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
