package io.dplrf.release.completion;

import io.dplrf.sketch.pca.RowClipping;

/**
 * The local component A_local of paper 004, Algorithm 1: what user i computes from her own row
 * P_Ω(Y*_i) and the public (v̂_t, λ̂′_t). Shared by training (all users, inside the trusted
 * process) and serving ({@link CompletionModel#predictUser}, one user), so both follow the very
 * same arithmetic.
 *
 * <p>User i's iterate Y_i^{(t)} ∈ ℝ^d lies in span(v̂_1, …, v̂_t), so it is kept as (a) its
 * entries on Ω_i, {@code y}, which the update and the projection need, and optionally (b) its
 * coefficients {@code coef} on v̂_1..v̂_t, from which any entry is Σ_s coef_s v̂_s[j]. Stateless.
 */
final class LocalUpdate {
  private LocalUpdate() {}

  /**
   * One step t (1-based) of A_local:
   * <pre>
   *   A_i = P_Ω(Y_i^{(t−1)} − Y*_i),   û_i = A_i·v̂ / λ̂′
   *   Y_i^{(t)} = Π_{L,Ω}((1 − 1/T) Y_i^{(t−1)} − (k/T) û_i v̂ᵀ)
   * </pre>
   * Π_{L,Ω} scales the whole row by min(1, L/‖P_Ω(M_i)‖₂) (Algorithm 1, local update). With
   * λ̂′ ≤ 0 (nothing released yet, or a zero matrix) the gradient step is skipped.
   *
   * @param items Ω_i, sorted
   * @param target Y*_i on Ω_i
   * @param y Y_i^{(t−1)} on Ω_i, updated in place to Y_i^{(t)}
   * @param v v̂_t, length d
   * @param coef coefficients of Y_i on v̂_1..v̂_T (updated in place), or null when not needed
   */
  static void step(int[] items, double[] target, int off, int len, double[] y, double[] v,
      double lambdaPrime, int iterations, double k, double clip, double[] coef, int t) {
    double u = 0;
    if (lambdaPrime > 0) {
      for (int x = 0; x < len; x++) {
        u += (y[off + x] - target[off + x]) * v[items[off + x]];
      }
      u /= lambdaPrime;
    }
    double keep = 1 - 1.0 / iterations;
    double move = k / iterations * u;
    for (int x = 0; x < len; x++) {
      y[off + x] = keep * y[off + x] - move * v[items[off + x]];
    }
    if (coef != null) {
      for (int s = 0; s < t - 1; s++) {
        coef[s] *= keep;
      }
      coef[t - 1] = -move;
    }
    double f = projection(y, off, len, clip);
    if (f < 1) {
      for (int x = 0; x < len; x++) {
        y[off + x] *= f;
      }
      if (coef != null) {
        for (int s = 0; s < t; s++) {
          coef[s] *= f;
        }
      }
    }
  }

  /** min(1, L/‖P_Ω(M_i)‖₂): the factor Π_{L,Ω} applies to row i. */
  static double projection(double[] y, int off, int len, double clip) {
    double norm = RowClipping.norm(java.util.Arrays.copyOfRange(y, off, off + len));
    return norm > clip ? clip / norm : 1.0;
  }
}
