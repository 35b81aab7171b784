package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.matrix.SketchMatrix;
import java.util.List;

/**
 * The released (noisy) sketches of PRIVATE-OPTIMAL-LRF, paper 002 Algorithm 1 step 2, for an
 * m×n matrix A padded to Â = (A σmin·I_m), which is m×(m+n):
 *
 * <pre>
 *   Yc = Â Φ            m × t        (no additive noise: privacy from the secret Gaussian Φ)
 *   Yr = Ψ Â + N1       t × (m+n)
 *   Z  = S Â Tᵀ + N2    v × v
 * </pre>
 *
 * S (v×m) and T (v×(m+n)) are regenerated on demand. Everything here is safe to post-process:
 * it is the mechanism's output.
 */
public record Priv1Sketches(
    int m,
    int n,
    double sigmaMin,
    Dense yc,
    Dense yr,
    Dense z,
    SketchMatrix s,
    SketchMatrix t,
    List<NoiseScale> noise) {

  public Priv1Sketches {
    int tw = yc.cols();
    int v = z.rows();
    if (yc.rows() != m || yr.rows() != tw || yr.cols() != m + n || z.cols() != v
        || s.rows() != v || s.cols() != m || t.rows() != v || t.cols() != m + n) {
      throw new IllegalArgumentException("inconsistent Priv1 sketch shapes");
    }
    noise = List.copyOf(noise);
  }
}
