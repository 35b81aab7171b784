package io.dplrf.sketch.pca;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.randomness.GaussianMatrices;
import io.dplrf.sketch.randomness.SecretKey;

/**
 * A secret random k×k orthogonal matrix R with the Haar law on O(k), for the random rotation of
 * paper 003's Algorithm 1 (docs/privacy/smooth-sensitivity.md §1).
 *
 * <p><b>Why k×k, applied on the right.</b> The paper writes "R ∈ ℝ^{d×d}, Ū = RÛ". A Haar d×d
 * rotation on the left maps every orthonormal Û to a uniformly random point of the Stiefel
 * manifold, independent of Û: the output would carry no information at all. What the paper's
 * prose describes (k = 1: "negating the output with probability 1/2") is the right action ÛR,
 * R ∈ O(k): ÛR spans the same subspace as Û, and because the Haar law is invariant (QR ~ R for
 * every fixed Q ∈ O(k)) the law of ÛR depends on span(Û) only, whichever eigenbasis the solver
 * returned. That is what lets the sensitivity be measured by the Procrustes distance.
 *
 * <p><b>Construction</b> (Mezzadri, "How to generate random matrices from the classical compact
 * groups", Notices AMS 2007): G with i.i.d. N(0, 1) entries from the keyed stream {@code label}
 * ({@link GaussianMatrices}), then the Q factor of G = QR with R's diagonal positive — Gram–Schmidt
 * produces exactly that factor (each r_jj is a norm). Modified Gram–Schmidt, run twice per column
 * ("twice is enough", Giraud et al. 2005), keeps Q orthogonal to working precision. For k = 1 the
 * result is the sign of one keyed Gaussian, a fair ±1 exactly (the keyed normal is exactly
 * symmetric).
 *
 * <p>Floating point: the proof assumes an exactly Haar R; this one is Haar up to the rounding of
 * the keyed Gaussians and of Gram–Schmidt (docs/privacy/smooth-sensitivity.md §8). Stateless.
 */
public final class HaarRotation {
  private HaarRotation() {}

  /** The k×k Haar orthogonal matrix keyed by (key, label). */
  public static Dense draw(SecretKey key, String label, int k) {
    Preconditions.checkPositive("k", k);
    double[] g = new double[k * k]; // column-major
    GaussianMatrices.gaussian(key, label, k, k, 1.0).columns(0, k, g);
    Dense q = new Dense(k, k);
    double[] col = new double[k];
    for (int j = 0; j < k; j++) {
      System.arraycopy(g, j * k, col, 0, k);
      for (int pass = 0; pass < 2; pass++) {
        for (int p = 0; p < j; p++) {
          double dot = 0;
          for (int i = 0; i < k; i++) {
            dot += q.get(i, p) * col[i];
          }
          for (int i = 0; i < k; i++) {
            col[i] -= dot * q.get(i, p);
          }
        }
      }
      double norm = 0;
      for (double v : col) {
        norm += v * v;
      }
      norm = Math.sqrt(norm);
      if (!(norm > 0)) {
        throw new ArithmeticException("keyed Gaussian matrix is singular (probability 0)");
      }
      for (int i = 0; i < k; i++) {
        q.set(i, j, col[i] / norm);
      }
    }
    return q;
  }
}
