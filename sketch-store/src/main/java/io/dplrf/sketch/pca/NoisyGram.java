package io.dplrf.sketch.pca;

import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.matrix.Dense;
import java.util.List;

/**
 * The released output of Analyze Gauss: the symmetric d×d matrix AᵀA + E. Public; safe to
 * post-process (eigenvectors, eigenvalues).
 *
 * @param gram the noisy symmetric matrix (callers must not mutate it)
 * @param noise the noise of E as released
 */
public record NoisyGram(Dense gram, List<NoiseScale> noise) {
  public NoisyGram {
    if (gram.rows() != gram.cols()) {
      throw new IllegalArgumentException("a Gram matrix is square, got " + gram.rows() + "x" + gram.cols());
    }
    noise = List.copyOf(noise);
  }
}
