package io.dplrf.sketch.factorization;

import static io.dplrf.sketch.params.Preconditions.check;
import static io.dplrf.sketch.params.Preconditions.invalid;

import java.util.Arrays;

/**
 * The parameters of a buffered linear Toeplitz (BLT) encoder C (Dvijotham, McMahan, Pillutla,
 * Steinke, Thakurta 2024 [1], §5): d buffer decays θ_i and output scales ω_i, defining the
 * lower-triangular Toeplitz C with c_0 = 1 and c_k = Σ_i ω_i θ_i^(k−1) for k ≥ 1, i.e. the
 * generating function C(x) = 1 + Σ_i ω_i x / (1 − θ_i x).
 *
 * <p>Validated to the class in which every figure of {@link ToeplitzFactorization#blt} is proved
 * (docs/privacy/blt-factorization.md §2):
 *
 * <ul>
 *   <li>1 ≤ d ≤ {@link #MAX_BUFFERS};
 *   <li>0 &lt; θ_i &lt; 1, strictly decreasing: buffers decay, so c_k is summable and the stream's
 *       state stays bounded; the order is canonical, which makes {@link #equals} mean "same C";
 *   <li>ω_i &gt; 0 and finite: c_k is then positive and non-increasing for k ≥ 1;
 *   <li>Σ_i ω_i / θ_i &lt; 1 (the condition of McMahan and Pillutla 2025 [3], Theorem 1, which
 *       jax_privacy's optimizer also imposes): then C⁻¹ is a BLT whose decays θ̂_j interlace the θ_i
 *       inside (0, 1) and whose scales are negative, so the decoder's recursion is stable and the
 *       closed forms are sums of positive terms. It also gives c_1 = Σ ω_i &lt; 1 = c_0.
 * </ul>
 *
 * <p>Immutable: the arrays are copied in and out. These parameters are public (they depend only
 * on T and d); the buffers they drive over secret data are not.
 *
 * @param theta buffer decays θ_1 &gt; … &gt; θ_d in (0, 1)
 * @param omega output scales ω_i &gt; 0, with Σ ω_i/θ_i &lt; 1
 */
public record BltParameters(double[] theta, double[] omega) {
  /**
   * Most buffers. Figures and the optimizer are tested for d ≤ 5, where the loss is already within
   * 1% of the √-factorization's up to T = 2^20; jax_privacy reports numerical trouble from ~15.
   */
  public static final int MAX_BUFFERS = 8;

  public BltParameters {
    check(theta != null, "theta", "non-null", theta);
    check(omega != null, "omega", "non-null", omega);
    theta = theta.clone();
    omega = omega.clone();
    if (theta.length < 1 || theta.length > MAX_BUFFERS) {
      throw invalid("theta.length", "in [1, " + MAX_BUFFERS + "]", theta.length);
    }
    if (omega.length != theta.length) {
      throw invalid("omega.length", "theta.length = " + theta.length, omega.length);
    }
    // Messages are built only on failure: the optimizer validates every point it evaluates.
    double score = 0;
    for (int i = 0; i < theta.length; i++) {
      if (!(theta[i] > 0 && theta[i] < 1)) {
        throw invalid("theta[" + i + "]", "in the open interval (0, 1)", theta[i]);
      }
      if (!(omega[i] > 0) || Double.isInfinite(omega[i])) {
        throw invalid("omega[" + i + "]", "> 0 and < infinity", omega[i]);
      }
      if (i > 0 && !(theta[i] < theta[i - 1])) {
        throw invalid("theta[" + i + "]", "< theta[" + (i - 1) + "]", theta[i]);
      }
      score += omega[i] / theta[i];
    }
    if (!(score < 1)) {
      throw invalid("sum of omega[i]/theta[i]", "< 1", score);
    }
  }

  /** The number of buffers d (the state is d arrays per vector, in the encoder and the decoder). */
  public int buffers() {
    return theta.length;
  }

  @Override
  public double[] theta() {
    return theta.clone();
  }

  @Override
  public double[] omega() {
    return omega.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BltParameters p
        && Arrays.equals(theta, p.theta) && Arrays.equals(omega, p.omega);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(theta) + Arrays.hashCode(omega);
  }

  @Override
  public String toString() {
    return "BltParameters[theta=" + Arrays.toString(theta) + ", omega="
        + Arrays.toString(omega) + "]";
  }
}
