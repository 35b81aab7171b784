package io.dplrf.sketch.pca;

import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.SecretKey;
import java.math.BigInteger;
import java.util.List;

/**
 * Analyze Gauss (DTTZ 2014, Algorithm 1; calibration in {@link AnalyzeGaussPlan}): the packed
 * upper triangle of AᵀA is rounded to the noise grid, the exact discrete Gaussian noise γ·N_ℤ(0,
 * s²) is added entry by entry, and the result is mirrored into a symmetric matrix — the
 * symmetric Gaussian E of the paper, realised on the grid exactly as the Priv1/Priv2/dense
 * sketches realise theirs ({@code NoisyLinearSketch.addNoise}).
 *
 * <p>The noise is a pure function of (key, node label): drawn from the keystream of
 * {@code nodeLabel + "/E"} with {@link GridGaussian#fill}. A caller must use a fresh label for
 * every run on new data (one-shot runs use a random run id), or two releases would share noise.
 * Stateless, thread-safe.
 */
public final class AnalyzeGauss {
  private AnalyzeGauss() {}

  /** round_γ(u(AᵀA)) + γ·N_ℤ(0, s²), mirrored. */
  public static NoisyGram release(AnalyzeGaussPlan plan, Gram gram, SecretKey key, String nodeLabel) {
    if (gram.dimension() != plan.dimension() || gram.clip() != plan.clip()) {
      throw new IllegalArgumentException("Gram matrix (d = " + gram.dimension() + ", C = "
          + gram.clip() + ") does not match the plan (d = " + plan.dimension() + ", C = "
          + plan.clip() + ")");
    }
    GaussianSketchNoise noise = plan.noise();
    GridGaussian grid = noise.grid();
    double gamma = grid.gamma();
    // The exact Gram entries rounded exactly to the grid (Gram's class comment), plus the
    // integer noise: k + z is the mechanism's output; its conversion to double is post-processing.
    BigInteger[] k = gram.packedRoundedToGrid(gamma);
    double[] e = new double[k.length];
    grid.fill(KeyStream.of(key, nodeLabel + "/E").bits(), e, 0, e.length);
    double[] u = new double[k.length];
    for (int x = 0; x < u.length; x++) {
      long z = (long) (e[x] / gamma); // exact: e[x] is γ times an integer below 2^53
      u[x] = k[x].add(BigInteger.valueOf(z)).doubleValue() * gamma;
    }
    return new NoisyGram(Gram.unpack(plan.dimension(), u), List.of(noise.scale(u.length)));
  }
}
