package io.dplrf.sketch.calibration;

import static io.dplrf.sketch.params.Preconditions.check;
import static io.dplrf.sketch.params.Preconditions.checkOpenUnit;
import static io.dplrf.sketch.params.Preconditions.checkPositive;

/**
 * The χ² distribution with {@code dof} degrees of freedom: upper tail, a conservative upper
 * quantile, and the Chernoff bound on the mean of χ² variables used as a sketch sensitivity bound.
 * χ²_d is Gamma(d/2, scale 2), so every tail is a regularized incomplete gamma function
 * (Numerical Recipes §6.2, see {@link IncompleteGamma}). Thread-safe, stateless.
 */
public final class ChiSquare {
  private ChiSquare() {}

  /** P[χ²_dof &gt; x] = Q(dof/2, x/2), full relative accuracy in the upper tail. */
  public static double upperTail(double x, int dof) {
    checkPositive("dof", dof);
    check(!Double.isNaN(x), "x", "a number", x);
    return IncompleteGamma.q(0.5 * dof, 0.5 * Math.max(x, 0));
  }

  /** P[χ²_dof ≤ x] = P(dof/2, x/2), full relative accuracy in the lower tail. */
  static double lowerTail(double x, int dof) {
    return IncompleteGamma.p(0.5 * dof, 0.5 * Math.max(x, 0));
  }

  /**
   * The x with P[χ²_dof &gt; x] = p, by bisection on the monotone upper tail down to adjacent
   * doubles, returning the upper end of the bracket: the result satisfies {@code upperTail(x, dof)
   * ≤ p} (conservative when x is used as a high-probability upper bound).
   */
  public static double upperQuantile(double p, int dof) {
    checkOpenUnit("p", p);
    checkPositive("dof", dof);
    double lo = 0;
    double hi = dof + 1.0;
    while (upperTail(hi, dof) > p) {
      lo = hi;
      hi *= 2;
    }
    return bisectToAdjacent(lo, hi, x -> upperTail(x, dof) <= p);
  }

  /**
   * The c &gt; 1 solving (c·e^{1−c})^{dof/2} = p, rounded up (so the bound at c is ≤ p).
   *
   * <p>Chernoff: for λ &lt; d/2, P[χ²_d/d ≥ c] ≤ e^{−λc}·(1 − 2λ/d)^{−d/2}; the optimal λ =
   * (d/2)(1 − 1/c) gives (c e^{1−c})^{d/2}. The same bound holds for every S = Σ_i w_i χ²_{d,i}/d
   * with independent χ²_{d,i}, w_i ≥ 0 and Σ w_i ≤ 1: its log-MGF −(d/2) Σ_i log(1 − 2λw_i/d) is
   * convex in w, so on the simplex {w ≥ 0, Σw ≤ 1} it is largest at a vertex, where it is either 0
   * or the log-MGF of χ²_d/d. Hence, for each λ, the Chernoff exponent of S is at most that of
   * χ²_d/d, and so is its infimum over λ.
   *
   * <p>Why it matters: for a Gaussian Φ (N×d, i.i.d. N(0, 1/d) entries) and any fixed difference
   * D with SVD D = Σ s_i u_i v_iᵀ, ‖DΦ‖²_F = Σ s_i² ‖v_iᵀΦ‖² and the ‖v_iᵀΦ‖² are independent
   * χ²_d/d (orthonormal v_i). So ‖DΦ‖²_F/‖D‖²_F is such an S with w_i = s_i²/‖D‖²_F, and
   * ‖DΦ‖²_F ≤ c·‖D‖²_F fails with probability at most p for each fixed D — for an arbitrary
   * difference, not only a rank-one one. Note the bound is per fixed D, not uniform over D.
   */
  public static double chernoffQuantileOfMean(double p, int dof) {
    checkOpenUnit("p", p);
    checkPositive("dof", dof);
    double target = 2 * Math.log(p) / dof; // ln c + 1 − c = (2/d) ln p < 0, decreasing for c > 1
    double lo = 1;
    double hi = 2;
    while (chernoffExponent(hi) > target) {
      lo = hi;
      hi *= 2;
    }
    return bisectToAdjacent(lo, hi, c -> chernoffExponent(c) <= target);
  }

  /** ln c + 1 − c, the per-(d/2) Chernoff exponent of χ²_d/d at level c. */
  private static double chernoffExponent(double c) {
    return IncompleteGamma.log1pmx(c - 1);
  }

  /** Bisects [lo, hi] with ok(hi) true until lo and hi are adjacent doubles; returns hi. */
  private static double bisectToAdjacent(
      double lo, double hi, java.util.function.DoublePredicate ok) {
    while (true) {
      double mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) {
        return hi;
      }
      if (ok.test(mid)) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
  }
}
