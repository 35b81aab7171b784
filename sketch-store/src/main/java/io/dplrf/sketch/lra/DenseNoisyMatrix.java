package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.Dense;
import java.util.List;

/**
 * Input perturbation, the accuracy baseline: the whole m×n matrix plus Gaussian noise, O(mn)
 * memory. Only for benchmarks and small matrices.
 */
public record DenseNoisyMatrix(Dense noisyA, List<NoiseScale> noise) {
  public DenseNoisyMatrix {
    noise = List.copyOf(noise);
  }
}
