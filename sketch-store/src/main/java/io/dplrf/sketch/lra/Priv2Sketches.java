package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.matrix.SketchMatrix;
import java.util.List;

/**
 * The released (noisy) sketches of the Priv2 mechanism of paper 002 (§3, "From Priv1 to Priv2"):
 *
 * <pre>
 *   Y = A Φ + N1     m × t
 *   Z = S A + N2     v × n
 * </pre>
 *
 * S (v×m) is regenerated on demand for the post-processing X = (S U)⁺ Z.
 */
public record Priv2Sketches(int m, int n, Dense y, Dense z, SketchMatrix s, List<NoiseScale> noise)
    implements ReleasedSketches {
  public Priv2Sketches {
    if (y.rows() != m || z.cols() != n || s.rows() != z.rows() || s.cols() != m) {
      throw new IllegalArgumentException("inconsistent Priv2 sketch shapes");
    }
    noise = List.copyOf(noise);
  }

  /** Entrywise sum of the releases of nodes of one instance (post-processing). */
  public static Priv2Sketches sum(List<Priv2Sketches> parts) {
    return sum(parts, false, null);
  }

  /**
   * As {@link #sum(List)}; with {@code reuseFirst}, the first part's arrays become the sum's;
   * {@code noise}, when not null, is the sum's noise (that of more parts than these).
   */
  static Priv2Sketches sum(List<Priv2Sketches> parts, boolean reuseFirst,
      List<NoiseScale> noise) {
    Priv2Sketches f = parts.get(0);
    double[] y = Priv1Sketches.copy(f.y.data(), reuseFirst);
    double[] z = Priv1Sketches.copy(f.z.data(), reuseFirst);
    for (int p = 1; p < parts.size(); p++) {
      Priv2Sketches o = parts.get(p);
      if (o.m != f.m || o.n != f.n || o.y.cols() != f.y.cols() || o.z.rows() != f.z.rows()) {
        throw new IllegalArgumentException("cannot sum Priv2 sketches of different shapes");
      }
      Priv1Sketches.add(y, o.y.data());
      Priv1Sketches.add(z, o.z.data());
    }
    return new Priv2Sketches(f.m, f.n, new Dense(f.m, f.y.cols(), y),
        new Dense(f.z.rows(), f.n, z), f.s,
        noise != null ? noise : NoiseScale.sum(parts.stream().map(Priv2Sketches::noise).toList()));
  }
}
