package io.dplrf.sketch.factorization;

import static io.dplrf.sketch.params.Preconditions.check;

/**
 * Turns the noisy encoded stream ŷ = Cx + z into the prefix releases R_t = (A·C⁻¹·ŷ)_t =
 * (Ax)_t + (Bz)_t, element-wise and without forming C⁻¹: v = C⁻¹ŷ solves ŷ = Cv, so
 * v_t = ŷ_t − Σ_i ω_i S^v_{i,t} with buffers S^v_{i,t+1} = θ_i S^v_{i,t} + v_t over v, using C's own
 * (θ, ω) (the forward substitution of jax_privacy's {@code build_inverse}, after [2] Alg. 3); then
 * R_t = R_{t−1} + v_t.
 *
 * <p>Stability: the recursion's state matrix diag(θ) − 1ωᵀ has the eigenvalues θ̂_j ∈ (0, 1) of
 * C⁻¹ ({@link BltParameters}' class), so rounding errors decay geometrically instead of growing;
 * an error δ in one ŷ_t moves the later v by less than 2|δ| in total (C⁻¹'s coefficients after
 * the first are negative and sum to b_∞ − 1 &gt; −1).
 *
 * <p>State is the caller's: d buffer arrays and the running-sum array R (which holds the release
 * after each step), all zero before epoch 1 and updated in place; chunks as in
 * {@link BltEncoder}. Everything here is computed from ŷ, i.e. it is post-processing of the
 * released noisy stream and public.
 */
public final class BltDecoder {
  private final double[] theta;
  private final double[] omega;
  private final double[][] buffers;
  private final double[] release;
  private final int length;

  /**
   * @param parameters C's (θ, ω), the same as the encoder's
   * @param buffers d arrays, zero before epoch 1; wrapped, not copied
   * @param release the running sum R, same length, zero before epoch 1; wrapped, not copied
   */
  public BltDecoder(BltParameters parameters, double[][] buffers, double[] release) {
    check(parameters != null, "parameters", "non-null", parameters);
    this.theta = parameters.theta();
    this.omega = parameters.omega();
    this.buffers = BltEncoder.checkBuffers(buffers, theta.length);
    this.length = buffers[0].length;
    check(release != null && release.length == length, "release.length",
        "the buffers' length " + length, release == null ? null : release.length);
    this.release = release;
  }

  /** The entries per vector. */
  public int length() {
    return length;
  }

  /** One epoch over the whole vector; afterwards the release array holds R_t. */
  public void step(double[] noisy) {
    step(noisy, 0, length);
  }

  /**
   * One epoch over entries [from, to): v = ŷ[k] − Σ_i ω_i S_i[k]; S_i[k] = θ_i S_i[k] + v;
   * R[k] += v.
   */
  public void step(double[] noisy, int from, int to) {
    BltEncoder.checkRange(noisy, release, from, to, length);
    int d = theta.length;
    for (int k = from; k < to; k++) {
      double v = noisy[k];
      for (int i = 0; i < d; i++) {
        v -= omega[i] * buffers[i][k];
      }
      for (int i = 0; i < d; i++) {
        double[] s = buffers[i];
        s[k] = theta[i] * s[k] + v;
      }
      release[k] += v;
    }
  }
}
