package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.Dense;
import java.util.List;

/**
 * Input perturbation, the accuracy baseline: the whole m×n matrix plus Gaussian noise, O(mn)
 * memory. Only for benchmarks and small matrices.
 */
public record DenseNoisyMatrix(Dense noisyA, List<NoiseScale> noise)
    implements ReleasedSketches {
  public DenseNoisyMatrix {
    noise = List.copyOf(noise);
  }

  /** Entrywise sum (post-processing). */
  public static DenseNoisyMatrix sum(List<DenseNoisyMatrix> parts) {
    return sum(parts, false, null);
  }

  /**
   * As {@link #sum(List)}; with {@code reuseFirst}, the first part's arrays become the sum's;
   * {@code noise}, when not null, is the sum's noise (that of more parts than these).
   */
  static DenseNoisyMatrix sum(List<DenseNoisyMatrix> parts, boolean reuseFirst,
      List<NoiseScale> noise) {
    DenseNoisyMatrix f = parts.get(0);
    double[] a = Priv1Sketches.copy(f.noisyA.data(), reuseFirst);
    for (int p = 1; p < parts.size(); p++) {
      Dense o = parts.get(p).noisyA;
      if (o.rows() != f.noisyA.rows() || o.cols() != f.noisyA.cols()) {
        throw new IllegalArgumentException("cannot sum noisy matrices of different shapes");
      }
      Priv1Sketches.add(a, o.data());
    }
    return new DenseNoisyMatrix(new Dense(f.noisyA.rows(), f.noisyA.cols(), a),
        noise != null ? noise
            : NoiseScale.sum(parts.stream().map(DenseNoisyMatrix::noise).toList()));
  }
}
