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
 *
 * <p>{@code sigmaMin} is the padding of Yr and Z (Â's σmin·I block). In a {@link #sum} of c node
 * releases the data-independent padding σmin·Ψ, σmin·S·T_rightᵀ is carried c times, so the sum
 * describes Â = (A_sum, c·σmin·I) and its {@code sigmaMin} is c·σmin; Yc's padding is σmin·ΣG,
 * distributed as √c·σmin·G, which only affects the column space Yc is used for.
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
    List<NoiseScale> noise) implements ReleasedSketches {

  public Priv1Sketches {
    int tw = yc.cols();
    int v = z.rows();
    if (yc.rows() != m || yr.rows() != tw || yr.cols() != m + n || z.cols() != v
        || s.rows() != v || s.cols() != m || t.rows() != v || t.cols() != m + n) {
      throw new IllegalArgumentException("inconsistent Priv1 sketch shapes");
    }
    noise = List.copyOf(noise);
  }

  /**
   * Entrywise sum of the releases of nodes of one instance (post-processing). Keeps every node's
   * padding (see the class comment): σmin of the sum is Σσmin. Subtracting the extra copies
   * would need the secret Ψ, S, T, so the sum would no longer be a function of released values
   * only; keeping them is plain post-processing (docs/privacy/continual-release.md §5).
   */
  public static Priv1Sketches sum(List<Priv1Sketches> parts) {
    return sum(parts, false, null);
  }

  /**
   * As {@link #sum(List)}; with {@code reuseFirst}, the first part's arrays become the sum's;
   * {@code noise}, when not null, is the sum's noise (that of more parts than these).
   */
  static Priv1Sketches sum(List<Priv1Sketches> parts, boolean reuseFirst,
      List<NoiseScale> noise) {
    Priv1Sketches f = parts.get(0);
    double[] yc = copy(f.yc.data(), reuseFirst);
    double[] yr = copy(f.yr.data(), reuseFirst);
    double[] z = copy(f.z.data(), reuseFirst);
    double sigmaMin = f.sigmaMin;
    for (int p = 1; p < parts.size(); p++) {
      Priv1Sketches o = parts.get(p);
      if (o.m != f.m || o.n != f.n || o.yc.cols() != f.yc.cols() || o.z.rows() != f.z.rows()) {
        throw new IllegalArgumentException("cannot sum Priv1 sketches of different shapes");
      }
      add(yc, o.yc.data());
      add(yr, o.yr.data());
      add(z, o.z.data());
      sigmaMin += o.sigmaMin;
    }
    return new Priv1Sketches(f.m, f.n, sigmaMin, new Dense(f.m, f.yc.cols(), yc),
        new Dense(f.yr.rows(), f.yr.cols(), yr), new Dense(f.z.rows(), f.z.cols(), z), f.s, f.t,
        noise != null ? noise : NoiseScale.sum(parts.stream().map(Priv1Sketches::noise).toList()));
  }

  /** {@code a} itself when the caller owns it ({@code reuse}), else a copy. */
  static double[] copy(double[] a, boolean reuse) {
    return reuse ? a : a.clone();
  }

  static void add(double[] dst, double[] x) {
    for (int e = 0; e < dst.length; e++) {
      dst[e] += x[e];
    }
  }
}
