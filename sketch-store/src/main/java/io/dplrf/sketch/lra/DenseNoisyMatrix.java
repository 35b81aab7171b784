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
    DenseNoisyMatrix f = parts.get(0);
    double[] a = f.noisyA.data().clone();
    for (int p = 1; p < parts.size(); p++) {
      Dense o = parts.get(p).noisyA;
      if (o.rows() != f.noisyA.rows() || o.cols() != f.noisyA.cols()) {
        throw new IllegalArgumentException("cannot sum noisy matrices of different shapes");
      }
      Priv1Sketches.add(a, o.data());
    }
    return new DenseNoisyMatrix(new Dense(f.noisyA.rows(), f.noisyA.cols(), a),
        NoiseScale.sum(parts.stream().map(DenseNoisyMatrix::noise).toList()));
  }
}
