package io.dplrf.sketch.pca;

import io.dplrf.sketch.params.Preconditions;

/**
 * Clips a row to ℓ2 norm ≤ C: x ↦ x·min(1, C/‖x‖₂) ({@link #clipInPlace}), or to ℓ1 norm ≤ C
 * ({@link #clipL1InPlace}: the local-robust protocol, whose Laplace noise is calibrated in ℓ1). This is what makes the row relation
 * {@link io.dplrf.sketch.params.NeighbouringRelation#ONE_ROW} hold for arbitrary input, so it runs
 * on every row before any private statistic sees it. A long row is scaled to a computed norm of
 * at most C·(1 − 10⁻⁹): the computed norm of d entries is within a relative (d + 2)·2⁻⁵³ of the
 * exact one, so for any d below 10⁶ the exact norm is then ≤ C and rounding can never push the
 * sensitivity past C².
 * Stateless, thread-safe.
 */
public final class RowClipping {
  /** Relative safety margin against the rounding error of the computed norm (class comment). */
  static final double MARGIN = 1e-9;

  private RowClipping() {}

  /**
   * Clips {@code x} in place.
   *
   * @param x finite entries
   * @param clip C &gt; 0
   * @return true if the row was longer than C and has been scaled down
   */
  public static boolean clipInPlace(double[] x, double clip) {
    return clip(x, clip, RowClipping::norm, "row entries must be finite");
  }

  private static boolean clip(double[] x, double clip,
      java.util.function.ToDoubleFunction<double[]> normOf, String nonFinite) {
    Preconditions.checkPositiveFinite("clip", clip);
    double norm = normOf.applyAsDouble(x);
    while (norm == Double.POSITIVE_INFINITY && allFinite(x)) {
      // Finite entries whose norm exceeds the largest double: scale by 1/4 (a power of two: the
      // direction is kept, but for entries that become subnormal) until it does not; the row is
      // then clipped like any long row.
      for (int j = 0; j < x.length; j++) {
        x[j] = Math.scalb(x[j], -2);
      }
      norm = normOf.applyAsDouble(x);
    }
    if (!Double.isFinite(norm)) {
      throw new IllegalArgumentException(nonFinite);
    }
    if (norm <= clip * (1 - MARGIN)) {
      return false;
    }
    double target = clip * (1 - MARGIN);
    double f = target / norm;
    double[] scaled = new double[x.length];
    while (true) {
      for (int j = 0; j < x.length; j++) {
        scaled[j] = x[j] * f;
      }
      if (normOf.applyAsDouble(scaled) <= target) {
        break;
      }
      f = Math.nextDown(f);
    }
    System.arraycopy(scaled, 0, x, 0, x.length);
    return true;
  }

  /**
   * Clips {@code x} in place to ℓ1 norm ≤ C (the row bound of LOCAL-ROBUST-PCA, whose
   * sensitivity is an ℓ1 quantity): x ↦ x·min(1, C/‖x‖₁), with the same 10⁻⁹ margin as the ℓ2
   * clip (a computed sum of d absolute values errs by at most (d − 1)·2⁻⁵³ relative).
   *
   * @return true if the row had ℓ1 norm above C and has been scaled down
   */
  public static boolean clipL1InPlace(double[] x, double clip) {
    return clip(x, clip, RowClipping::l1Norm, "row entries must be finite (and their l1 norm too)");
  }

  private static boolean allFinite(double[] x) {
    for (double v : x) {
      if (!Double.isFinite(v)) {
        return false;
      }
    }
    return true;
  }

  /**
   * ‖x‖₁ (NaN if an entry is NaN, ∞ if an entry is infinite), without intermediate overflow: summed
   * as max·Σ|x_j|/max, like {@link #norm}. ∞ for finite entries only if ‖x‖₁ itself exceeds the
   * largest double (e.g. {1e308, 1e308}); the clip then scales the row down first, so that a finite
   * row is always clipped, never refused (a refusal would depend on the data).
   */
  public static double l1Norm(double[] x) {
    double max = 0;
    for (double v : x) {
      if (Double.isNaN(v)) {
        return Double.NaN;
      }
      max = Math.max(max, Math.abs(v));
    }
    if (max == 0 || max == Double.POSITIVE_INFINITY) {
      return max;
    }
    double s = 0;
    for (double v : x) {
      s += Math.abs(v) / max;
    }
    return max * s;
  }

  /** ‖x‖₂, without overflow for large entries. */
  public static double norm(double[] x) {
    double max = 0;
    for (double v : x) {
      max = Math.max(max, Math.abs(v));
    }
    if (max == 0 || !Double.isFinite(max)) {
      return max;
    }
    double s = 0;
    for (double v : x) {
      double r = v / max;
      s += r * r;
    }
    return max * Math.sqrt(s);
  }
}
