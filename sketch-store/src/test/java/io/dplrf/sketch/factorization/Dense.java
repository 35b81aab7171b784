package io.dplrf.sketch.factorization;

/** Dense reference computations over the first columns of lower-triangular Toeplitz matrices. */
final class Dense {
  private Dense() {}

  /** The n×n lower-triangular Toeplitz matrix with first column c. */
  static double[][] toeplitz(double[] c) {
    int n = c.length;
    double[][] m = new double[n][n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j <= i; j++) {
        m[i][j] = c[i - j];
      }
    }
    return m;
  }

  static double[][] multiply(double[][] a, double[][] b) {
    int n = a.length;
    double[][] p = new double[n][n];
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < n; k++) {
        for (int j = 0; j < n; j++) {
          p[i][j] += a[i][k] * b[k][j];
        }
      }
    }
    return p;
  }

  /** First column of the inverse of a unit lower-triangular Toeplitz matrix: forward substitution. */
  static double[] inverse(double[] c) {
    int n = c.length;
    double[] inv = new double[n];
    for (int k = 0; k < n; k++) {
      double s = k == 0 ? 1 : 0;
      for (int j = 1; j <= k; j++) {
        s -= c[j] * inv[k - j];
      }
      inv[k] = s;
    }
    return inv;
  }

  /** Prefix sums: the first column of A·M for M with first column m. */
  static double[] prefixSums(double[] m) {
    double[] s = new double[m.length];
    double acc = 0;
    for (int k = 0; k < m.length; k++) {
      acc += m[k];
      s[k] = acc;
    }
    return s;
  }

  /** Σ_k (B[last, k] − B[first − 1, k])² with B[i, k] = b[i − k] (1-based rows, 0 for row 0). */
  static double rangeVariance(double[] b, int first, int last) {
    double s = 0;
    for (int k = 1; k <= last; k++) {
      double hi = b[last - k];
      double lo = k <= first - 1 ? b[first - 1 - k] : 0;
      s += (hi - lo) * (hi - lo);
    }
    return s;
  }
}
