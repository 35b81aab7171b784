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
public record Priv2Sketches(int m, int n, Dense y, Dense z, SketchMatrix s, List<NoiseScale> noise) {
  public Priv2Sketches {
    if (y.rows() != m || z.cols() != n || s.rows() != z.rows() || s.cols() != m) {
      throw new IllegalArgumentException("inconsistent Priv2 sketch shapes");
    }
    noise = List.copyOf(noise);
  }
}
