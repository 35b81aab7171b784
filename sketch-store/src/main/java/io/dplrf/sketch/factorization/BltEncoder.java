package io.dplrf.sketch.factorization;

import static io.dplrf.sketch.params.Preconditions.check;

/**
 * Streams y = Cx for a BLT encoder C, element-wise over vectors: one call to {@link #step} per
 * epoch t (over the whole vector, or chunk by chunk) turns the epoch's exact values x_t into
 * (Cx)_t = x_t + Σ_i ω_i S_{i,t}, then updates the buffers S_{i,t+1} = θ_i S_{i,t} + x_t, with
 * S_{i,1} = 0 ([1] §5; jax_privacy's {@code StreamingMatrixBuilder.build}, after [2] Alg. 2).
 * Indeed S_{i,t} = Σ_{τ&lt;t} θ_i^{t−1−τ} x_τ, so Σ_i ω_i S_{i,t} = Σ_{τ&lt;t} c_{t−τ} x_τ.
 *
 * <p>State is d arrays owned by the caller ({@link #newBuffers}, or arrays restored from a file),
 * read and written in place; the encoder holds only (θ, ω). Every coordinate is independent, so
 * any partition of the index range into chunks, processed in any order or concurrently on
 * disjoint ranges, gives the same result. No allocation per step.
 *
 * <p><b>The buffers hold sums of secret data</b>: they are as sensitive as x, never released.
 */
public final class BltEncoder {
  private final double[] theta;
  private final double[] omega;
  private final double[][] buffers;
  private final int length;

  /**
   * @param parameters C's (θ, ω)
   * @param buffers d = {@code parameters.buffers()} arrays of equal length, all zero before
   *     epoch 1; wrapped, not copied
   */
  public BltEncoder(BltParameters parameters, double[][] buffers) {
    check(parameters != null, "parameters", "non-null", parameters);
    this.theta = parameters.theta();
    this.omega = parameters.omega();
    this.buffers = checkBuffers(buffers, theta.length);
    this.length = buffers[0].length;
  }

  /** d zeroed arrays of {@code length} entries: the state before epoch 1. */
  public static double[][] newBuffers(BltParameters parameters, int length) {
    check(length >= 0, "length", ">= 0", length);
    return new double[parameters.buffers()][length];
  }

  /** The entries per buffer. */
  public int length() {
    return length;
  }

  /** One epoch over the whole vector: {@code out[k] = (Cx)_t[k]}; {@code out} may be {@code x}. */
  public void step(double[] x, double[] out) {
    step(x, out, 0, length);
  }

  /**
   * One epoch over entries [from, to) of x, out and the buffers (all indexed alike):
   * out[k] = x[k] + Σ_i ω_i S_i[k], then S_i[k] = θ_i S_i[k] + x[k]. {@code out} may be {@code x}.
   */
  public void step(double[] x, double[] out, int from, int to) {
    checkRange(x, out, from, to, length);
    int d = theta.length;
    for (int k = from; k < to; k++) {
      double xk = x[k];
      double y = xk;
      for (int i = 0; i < d; i++) {
        double[] s = buffers[i];
        double sk = s[k];
        y += omega[i] * sk;
        s[k] = theta[i] * sk + xk;
      }
      out[k] = y;
    }
  }

  static double[][] checkBuffers(double[][] buffers, int d) {
    check(buffers != null && buffers.length == d, "buffers.length", "the number of buffers " + d,
        buffers == null ? null : buffers.length);
    for (int i = 0; i < d; i++) {
      check(buffers[i] != null && buffers[i].length == buffers[0].length, "buffers[" + i + "]",
          "an array of length buffers[0].length", buffers[i] == null ? null : buffers[i].length);
    }
    return buffers;
  }

  static void checkRange(double[] in, double[] out, int from, int to, int length) {
    check(in != null && in.length >= to, "input.length", ">= to = " + to,
        in == null ? null : in.length);
    check(out != null && out.length >= to, "output.length", ">= to = " + to,
        out == null ? null : out.length);
    check(from >= 0 && from <= to && to <= length, "[from, to)", "within [0, " + length + ")",
        "[" + from + ", " + to + ")");
  }
}
