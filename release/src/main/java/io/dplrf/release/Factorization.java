package io.dplrf.release;

import io.dplrf.sketch.matrix.Dense;
import java.util.Arrays;

/**
 * A released rank-k factorization Ã = U Σ Vᵀ of an m×n matrix.
 *
 * <p>Invariants, checked on construction: U is m×k, V is n×k, s has length k, is sorted descending
 * and every value is finite and ≥ 0. Column orthonormality of U and V is a property of every
 * factorization this package builds (tested by invariants: UᵀU = I, VᵀV = I, A V = U Σ), not
 * re-checked here.
 *
 * <p>The record copies its inputs; {@link #u()} and {@link #v()} return the stored matrices,
 * which callers must not mutate ({@link Dense} has no read-only view). {@link #s()} returns a
 * copy. Safe for concurrent reads.
 *
 * @param u m×k, orthonormal columns (left singular vectors)
 * @param s the k singular values, descending, ≥ 0
 * @param v n×k, orthonormal columns (right singular vectors)
 */
public record Factorization(Dense u, double[] s, Dense v) {
  public Factorization {
    int k = s.length;
    if (u.cols() != k || v.cols() != k) {
      throw new IllegalArgumentException(
          "shapes must agree: u is " + u.rows() + "x" + u.cols() + ", s has " + k
              + " values, v is " + v.rows() + "x" + v.cols());
    }
    s = s.clone();
    for (int l = 0; l < k; l++) {
      if (!(s[l] >= 0) || Double.isInfinite(s[l])) {
        throw new IllegalArgumentException(
            "singular values must be finite and >= 0. Provided value: " + Arrays.toString(s));
      }
      if (l > 0 && s[l] > s[l - 1]) {
        throw new IllegalArgumentException(
            "singular values must be sorted descending. Provided value: " + Arrays.toString(s));
      }
    }
    u = u.copy();
    v = v.copy();
  }

  @Override
  public double[] s() {
    return s.clone();
  }

  public int k() {
    return s.length;
  }

  public int rows() {
    return u.rows();
  }

  public int cols() {
    return v.rows();
  }

  /** Row i of Ã's left factor, U_i Σ (length k): the embedding of row i. */
  public double[] row(int i) {
    return scaled(u, i);
  }

  /** Row j of Ã's right factor, V_j Σ (length k): the embedding of column j. */
  public double[] col(int j) {
    return scaled(v, j);
  }

  /** Ã_ij = U_i Σ V_jᵀ. */
  public double score(int i, int j) {
    int k = s.length;
    double[] ud = u.data();
    double[] vd = v.data();
    double sum = 0;
    for (int l = 0; l < k; l++) {
      sum += ud[i * k + l] * s[l] * vd[j * k + l];
    }
    return sum;
  }

  /** The dense m×n product U Σ Vᵀ. O(mn) memory: small matrices, tests and benchmarks only. */
  public Dense toDense() {
    return Linalg.toDense(
        Linalg.scaleColumns(Linalg.copyOf(u), s).multiply(Linalg.copyOf(v).transpose()));
  }

  private double[] scaled(Dense f, int index) {
    int k = s.length;
    if (index < 0 || index >= f.rows()) {
      throw new IndexOutOfBoundsException("index " + index + " outside [0, " + f.rows() + ")");
    }
    double[] out = new double[k];
    for (int l = 0; l < k; l++) {
      out[l] = f.data()[index * k + l] * s[l];
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Factorization f
        && f.u.equals(u)
        && Arrays.equals(f.s, s)
        && f.v.equals(v);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * u.hashCode() + Arrays.hashCode(s)) + v.hashCode();
  }

  @Override
  public String toString() {
    return "Factorization[" + u.rows() + "x" + v.rows() + ", k=" + s.length + "]";
  }
}
