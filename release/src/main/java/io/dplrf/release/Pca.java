package io.dplrf.release;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.pca.NoisyGram;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;
import org.ojalgo.matrix.decomposition.Eigenvalue;
import org.ojalgo.matrix.store.MatrixStore;
import org.ojalgo.matrix.store.R064Store;

/**
 * Post-processing of the row-level PCA mechanisms: the top-k principal subspace of a released
 * (noisy) d×d Gram matrix, and the captured-variance measure of the benchmark. No privacy cost,
 * no randomness. Stateless and thread-safe.
 */
public final class Pca {
  private Pca() {}

  /**
   * A released principal subspace.
   *
   * @param v d×k, orthonormal columns: the estimated top-k eigenvectors of AᵀA
   * @param eigenvalues the k noisy eigenvalue estimates as computed, descending; they estimate
   *     λ_i(AᵀA) = σ_i(A)² but carry the noise, so they may be negative
   * @param s the same values clamped at 0 (what {@code S.npy} holds: λ_i(AᵀA) ≥ 0, so clamping
   *     only moves an estimate towards the truth)
   * @param clamped how many eigenvalues were negative and were clamped
   */
  public record Subspace(Dense v, double[] eigenvalues, double[] s, int clamped) {}

  /**
   * Top-k eigenvectors of the symmetric released matrix AᵀA + E (DTTZ 2014, Algorithm 1, last
   * step): the k algebraically largest eigenvalues — not the largest in absolute value, since a
   * large negative eigenvalue of the noisy matrix captures no variance.
   */
  public static Subspace topEigenvectors(NoisyGram released, int k) {
    return topEigenvectors(released.gram(), k);
  }

  /**
   * The utility report of an Analyze Gauss subspace: the noise floor 2σ√d of E against the
   * released eigenvalue estimates ({@code s}, as S.npy holds them). Post-processing.
   */
  public static UtilityReport report(NoisyGram released, Subspace s) {
    return Reports.analyzeGauss(released.noise(), released.gram().rows(), s.s(), s.s().length);
  }

  /** Top-k eigenpairs of a symmetric matrix (only its symmetry is assumed, not definiteness). */
  public static Subspace topEigenvectors(Dense symmetric, int k) {
    int d = symmetric.rows();
    if (symmetric.cols() != d) {
      throw new IllegalArgumentException("need a square matrix, got " + d + "x" + symmetric.cols());
    }
    if (k < 1 || k > d) {
      throw new IllegalArgumentException("rank (k) must be in 1.." + d + ". Provided value: " + k);
    }
    R064Store a = Linalg.copyOf(symmetric);
    Eigenvalue<Double> evd = Eigenvalue.R064.make(a, true);
    if (!evd.decompose(a)) {
      throw new ArithmeticException("symmetric eigen-decomposition failed");
    }
    MatrixStore<Double> dm = evd.getD();
    MatrixStore<Double> vm = evd.getV();
    Integer[] order = IntStream.range(0, d).boxed().toArray(Integer[]::new);
    Arrays.sort(order, Comparator.comparingDouble((Integer i) -> dm.doubleValue(i, i)).reversed());
    Dense v = new Dense(d, k);
    double[] lambda = new double[k];
    double[] s = new double[k];
    int clamped = 0;
    for (int c = 0; c < k; c++) {
      int src = order[c];
      lambda[c] = dm.doubleValue(src, src);
      s[c] = Math.max(0.0, lambda[c]);
      if (lambda[c] < 0) {
        clamped++;
      }
      for (int i = 0; i < d; i++) {
        v.set(i, c, vm.doubleValue(i, src));
      }
    }
    return new Subspace(v, lambda, s, clamped);
  }

  /**
   * The principal subspace of a released rank-k factorization Ũ Σ̃ Ṽᵀ ≈ AᵀA (the Priv2 sketch
   * of AᵀA): V = Ṽ, whose columns are orthonormal; the singular values estimate the
   * eigenvalues of the PSD matrix AᵀA and are ≥ 0 by construction.
   */
  public static Subspace fromFactorization(Factorization f) {
    return new Subspace(f.v(), f.s(), f.s(), 0);
  }

  /**
   * The principal subspace of a noisy range sketch Y = AᵀAΦ + N (d×t, t ≥ k), as aggregated by
   * local-DP PCA ({@code io.dplrf.client.LocalAggregate}): V = the top-k left singular vectors
   * of Y (the estimate [Y]_k of paper 002 §3). With Φ orthonormal and t = d, YΦᵀ = AᵀA + NΦᵀ
   * has the same left singular vectors, so V estimates the top-k eigenvectors of AᵀA. The
   * singular values estimate λ_i(AᵀA) (exactly, without noise, when t = d) and are ≥ 0.
   */
  public static Subspace fromRangeSketch(Dense y, int k) {
    if (k < 1 || k > y.cols() || y.cols() > y.rows()) {
      throw new IllegalArgumentException("need a d x t sketch with k <= t <= d, got "
          + y.rows() + "x" + y.cols() + " and k = " + k);
    }
    Linalg.Svd svd = Linalg.svd(Linalg.copyOf(y));
    Dense v = new Dense(y.rows(), k);
    double[] s = new double[k];
    for (int c = 0; c < k; c++) {
      s[c] = svd.s()[c];
      for (int i = 0; i < y.rows(); i++) {
        v.set(i, c, svd.u().doubleValue(i, c));
      }
    }
    return new Subspace(v, s, s.clone(), 0);
  }

  /** ‖A V‖_F² = Σ_rows ‖Vᵀ x‖²: the variance (uncentred) that the columns of V capture. */
  public static double capturedVariance(Dense a, Dense v) {
    if (a.cols() != v.rows()) {
      throw new IllegalArgumentException(
          "A is " + a.rows() + "x" + a.cols() + " but V has " + v.rows() + " rows");
    }
    MatrixStore<Double> av = Linalg.copyOf(a).multiply(Linalg.copyOf(v));
    double s = 0;
    for (long i = 0; i < av.countRows(); i++) {
      for (long j = 0; j < av.countColumns(); j++) {
        double x = av.doubleValue(i, j);
        s += x * x;
      }
    }
    return s;
  }

  /** An orthonormal basis of the column space of a (rows ≥ cols), by Householder QR. */
  public static Dense orthonormalColumns(Dense a) {
    return Linalg.toDense(Linalg.orthonormalColumns(Linalg.copyOf(a)));
  }
}
