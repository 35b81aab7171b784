package io.dplrf.release;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.pca.Gram;
import io.dplrf.sketch.pca.SmoothSensitivity;
import io.dplrf.sketch.pca.SmoothSensitivityPlan;
import io.dplrf.sketch.randomness.SecretKey;

/**
 * Algorithm 1 of Gonen &amp; Gilad-Bachrach (paper 003), end to end: the non-private PCA oracle
 * (exact top-k eigenvectors and the eigengap λ_k − λ_{k+1} of the exact d×d Gram matrix of the
 * clipped rows, with ojAlgo), the private perturbation of sketch-store's {@link
 * SmoothSensitivity} (random rotation, noise scaled by the β-smooth bound), and the final QR.
 *
 * <p>The one place in this module that sees non-private values: the oracle's eigenvectors and
 * eigenvalues go straight into {@link SmoothSensitivity#perturb} and nowhere else; the returned
 * subspace is the QR of the noisy basis (post-processing), with no eigenvalues — the mechanism
 * releases a subspace only. The exact decomposition costs O(d³) time and d² memory; callers
 * bound d. Stateless, thread-safe.
 */
public final class SmoothSensitivityPca {
  private SmoothSensitivityPca() {}

  /**
   * The release and what scaled its noise.
   *
   * @param subspace V (d×k, orthonormal columns), private; its eigenvalue arrays are empty
   * @param notPrivate the eigengap, bounds and noise scale: NOT private, never to be released
   */
  public record Result(Pca.Subspace subspace, SmoothSensitivity.Diagnostics notPrivate) {}

  /** Runs Algorithm 1 on {@code gram} with randomness from (key, label); use a fresh label per run. */
  public static Result run(SmoothSensitivityPlan plan, Gram gram, SecretKey key, String label) {
    int d = plan.dimension();
    int k = plan.rank();
    Pca.Subspace exact = Pca.topEigenvectors(gram.toDense(), Math.min(k + 1, d));
    Dense basis = new Dense(d, k);
    for (int i = 0; i < d; i++) {
      for (int c = 0; c < k; c++) {
        basis.set(i, c, exact.v().get(i, c));
      }
    }
    SmoothSensitivity.Perturbed p =
        SmoothSensitivity.perturb(plan, gram, basis, exact.eigenvalues(), key, label);
    Dense v = Pca.orthonormalColumns(p.noisyBasis());
    return new Result(new Pca.Subspace(v, new double[0], new double[0], 0), p.notPrivate());
  }
}
