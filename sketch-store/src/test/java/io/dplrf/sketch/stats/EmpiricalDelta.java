package io.dplrf.sketch.stats;

import java.util.Arrays;

/**
 * The empirical privacy profile of two samples of a mechanism's output on neighbouring inputs:
 * sup_τ [F̂_a(τ) − e^ε F̂_b(τ)] over all sample points τ, the δ a threshold test at ε sees. The
 * neighbouring-input tests compare it with the calibrated δ within a DKW margin.
 */
public final class EmpiricalDelta {
  private EmpiricalDelta() {}

  /** sup_τ [F̂_a(τ) − e^ε F̂_b(τ)] over all sample points τ of {@code a}. */
  public static double of(double[] a, double[] b, double epsilon) {
    double[] sa = a.clone();
    double[] sb = b.clone();
    Arrays.sort(sa);
    Arrays.sort(sb);
    double e = Math.exp(epsilon);
    double best = 0;
    int ib = 0;
    for (int ia = 0; ia < sa.length; ia++) {
      double tau = sa[ia];
      while (ib < sb.length && sb[ib] <= tau) {
        ib++;
      }
      best = Math.max(best, (ia + 1.0) / sa.length - e * ((double) ib / sb.length));
    }
    return best;
  }
}
