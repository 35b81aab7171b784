package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.matrix.SketchMatrix;
import java.util.List;

/**
 * The released (noisy) sketches of ROBUST-LRA / ROBUST-PCA (paper 000, Algorithms 1 and 2;
 * docs/privacy/robust.md §1):
 *
 * <pre>
 *   Yr = Φ A + N1     t × n
 *   Yc = A Ψ + N2     m × t   (null for ROBUST-PCA)
 *   Z  = S A T + N3   v × v
 * </pre>
 *
 * with S (v×m) and Tᵀ (v×n) for the post-processing Z_c = S·Yc, Z_r = Yr·T.
 */
public record RobustSketches(int m, int n, double p, Dense yr, Dense yc, Dense z, SketchMatrix s,
    SketchMatrix tT, List<NoiseScale> noise) implements ReleasedSketches {
  public RobustSketches {
    if (yr.cols() != n || z.rows() != z.cols() || s.rows() != z.rows() || s.cols() != m
        || tT.rows() != z.rows() || tT.cols() != n
        || (yc != null && (yc.rows() != m || yc.cols() != yr.rows()))) {
      throw new IllegalArgumentException("inconsistent robust sketch shapes");
    }
    noise = List.copyOf(noise);
  }

  /** ROBUST-PCA's bundle (no Yc). */
  public boolean pca() {
    return yc == null;
  }

  /** Entrywise sum of the releases of nodes of one instance (post-processing). */
  public static RobustSketches sum(List<RobustSketches> parts) {
    return sum(parts, false, null);
  }

  /**
   * As {@link #sum(List)}; with {@code reuseFirst}, the first part's arrays become the sum's;
   * {@code noise}, when not null, is the sum's noise (that of more parts than these).
   */
  static RobustSketches sum(List<RobustSketches> parts, boolean reuseFirst,
      List<NoiseScale> noise) {
    RobustSketches f = parts.get(0);
    double[] yr = Priv1Sketches.copy(f.yr.data(), reuseFirst);
    double[] yc = f.yc == null ? null : Priv1Sketches.copy(f.yc.data(), reuseFirst);
    double[] z = Priv1Sketches.copy(f.z.data(), reuseFirst);
    for (int q = 1; q < parts.size(); q++) {
      RobustSketches o = parts.get(q);
      if (o.m != f.m || o.n != f.n || o.p != f.p || o.pca() != f.pca()
          || o.yr.rows() != f.yr.rows() || o.z.rows() != f.z.rows()) {
        throw new IllegalArgumentException("cannot sum robust sketches of different shapes");
      }
      Priv1Sketches.add(yr, o.yr.data());
      if (yc != null) {
        Priv1Sketches.add(yc, o.yc.data());
      }
      Priv1Sketches.add(z, o.z.data());
    }
    return new RobustSketches(f.m, f.n, f.p, new Dense(f.yr.rows(), f.n, yr),
        yc == null ? null : new Dense(f.m, f.yr.rows(), yc), new Dense(f.z.rows(), f.z.rows(), z),
        f.s, f.tT, noise != null ? noise
            : NoiseScale.sum(parts.stream().map(RobustSketches::noise).toList()));
  }
}
