package io.dplrf.release;

import io.dplrf.release.UtilityReport.FloorTerm;
import io.dplrf.sketch.lra.NoiseScale;
import java.util.ArrayList;
import java.util.List;

/**
 * The noise floor of a release from public quantities, before any data: the formulas of the
 * utility report ({@link UtilityReport}, derivations in {@code Reports}), the same code a release
 * runs, so that a plan ({@code dplrf plan}) and the service's report cannot disagree.
 */
public final class NoiseFloors {
  private NoiseFloors() {}

  /**
   * Priv2's floor terms for the noise scales of one release (Y and Z): σ_Y(√m + √t) and
   * σ_Z(√r_s + √n)/σmin(SU). A release takes r_s and σmin(SU) from the released basis U; a plan
   * passes {@link #basisWidth} and {@link #predictedMinSingularValue}.
   */
  public static List<FloorTerm> priv2(List<NoiseScale> noise, int m, int n, int t, int rs,
      double minSU) {
    return Reports.priv2Floor(noise, m, n, t, rs, minSU, new ArrayList<>());
  }

  /** The largest term: the floor a released singular value must exceed to be trusted. */
  public static double floor(List<FloorTerm> terms) {
    double max = 0;
    for (FloorTerm f : terms) {
      max = Math.max(max, f.value());
    }
    return max;
  }

  /** p = min(t, 2k): the width of the denoised range basis U of a Priv2 release. */
  public static int basisWidth(int t, int k) {
    return Priv2Release.basisWidth(t, k);
  }

  /**
   * The smallest singular value of SU (v×p) expected for a basis U (m×p, orthonormal)
   * independent of S: 1 − √(p/v), the lower edge of the spectrum of a v×p matrix of i.i.d.
   * N(0, 1/v) entries (Davidson–Szarek 2001, Theorem II.13; Bai–Yin 1993 for the limit), which
   * sparse sign embeddings match up to O(1/√s) (Nelson–Nguyễn 2013). A prediction for planning:
   * a release reports the value of its own U.
   */
  public static double predictedMinSingularValue(int p, int v) {
    return 1 - Math.sqrt((double) p / v);
  }
}
