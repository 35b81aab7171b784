package io.dplrf.sketch.calibration;

import static io.dplrf.sketch.params.Preconditions.check;
import static io.dplrf.sketch.params.Preconditions.checkOpenUnit;
import static io.dplrf.sketch.params.Preconditions.checkPositiveFinite;

/**
 * The analytic Gaussian mechanism: the exact privacy profile of adding N(0, σ²) noise to a query of
 * ℓ2 sensitivity Δ, with μ = Δ/σ.
 *
 * <p>Balle &amp; Wang, "Improving the Gaussian Mechanism for Differential Privacy", ICML 2018,
 * Theorem 8 / Algorithm 1; equivalently Dong, Roth &amp; Su, "Gaussian Differential Privacy"
 * (JRSS-B 2022), Corollary 2.13: a mechanism is μ-GDP iff it is (ε, δ(ε))-DP for all ε ≥ 0 with
 * δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2). Thread-safe, stateless.
 */
public final class AnalyticGaussian {
  private AnalyticGaussian() {}

  /** Relative width at which {@link #mu} stops bisecting (brief: ~1e-13). */
  private static final double MU_RELATIVE_TOLERANCE = 1e-13;

  /**
   * δ(ε) of μ-GDP (Dong–Roth–Su Cor. 2.13), the second term computed in log space; never negative.
   *
   * @param epsilon ε &gt; 0
   * @param mu μ ≥ 0 (μ = 0 is the mechanism that reveals nothing: δ = 0)
   */
  public static double delta(double epsilon, double mu) {
    checkPositiveFinite("epsilon", epsilon);
    checkNonNegativeFinite("mu", mu);
    return deltaAt(epsilon, mu);
  }

  /**
   * The same profile for every real e, including e &lt; 0 (needed when composing with another
   * privacy-loss variable): H_{e^e}(N(0,1) ‖ N(μ,1)) = Φ(−e/μ + μ/2) − e^e Φ(−e/μ − μ/2); with
   * μ = 0 it is (1 − e^e)₊. Unvalidated, package-private.
   */
  static double deltaAt(double e, double mu) {
    if (mu == 0) {
      return e >= 0 ? 0.0 : -Math.expm1(e);
    }
    double first = Normal.upperTail(e / mu - mu / 2);
    double second = Math.exp(e + Normal.logUpperTail(e / mu + mu / 2));
    return Math.max(0.0, first - second);
  }

  /**
   * The largest μ with δ(ε, μ) ≤ δ: δ is increasing in μ, so bisect to {@value
   * #MU_RELATIVE_TOLERANCE} relative width and return the lower (private) end of the bracket.
   */
  public static double mu(double epsilon, double delta) {
    checkPositiveFinite("epsilon", epsilon);
    checkOpenUnit("delta", delta);
    double lo = 0;
    double hi = 1;
    while (deltaAt(epsilon, hi) <= delta) {
      lo = hi;
      hi *= 2;
    }
    while (hi - lo > MU_RELATIVE_TOLERANCE * hi) {
      double mid = 0.5 * (lo + hi);
      if (deltaAt(epsilon, mid) <= delta) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** σ = Δ₂/μ(ε, δ): the smallest per-coordinate Gaussian standard deviation that is (ε, δ)-DP. */
  public static double sigma(double epsilon, double delta, double l2Sensitivity) {
    checkPositiveFinite("l2Sensitivity", l2Sensitivity);
    return l2Sensitivity / mu(epsilon, delta);
  }

  /**
   * The classical calibration σ = Δ₂·√(2 ln(1.25/δ))/ε (Dwork &amp; Roth 2014, Theorem A.1; valid
   * for ε &lt; 1 only). For comparison only: it is never smaller than {@link #sigma}.
   */
  public static double classicSigma(double epsilon, double delta, double l2Sensitivity) {
    checkPositiveFinite("epsilon", epsilon);
    checkOpenUnit("delta", delta);
    checkPositiveFinite("l2Sensitivity", l2Sensitivity);
    return l2Sensitivity * Math.sqrt(2 * Math.log(1.25 / delta)) / epsilon;
  }

  /**
   * Composition of independent μ_i-GDP mechanisms is √(Σ μ_i²)-GDP (Dong–Roth–Su Corollary 3.3).
   * Evaluated with {@link Math#hypot} steps, so it neither overflows nor underflows.
   */
  public static double composeMu(double... mus) {
    check(mus != null && mus.length > 0, "mus", "a non-empty array", mus == null ? "null" : "[]");
    double total = 0;
    for (double m : mus) {
      checkNonNegativeFinite("mu", m);
      total = Math.hypot(total, m);
    }
    return total;
  }

  static void checkNonNegativeFinite(String name, double value) {
    check(value >= 0 && value < Double.POSITIVE_INFINITY, name, ">= 0 and < infinity", value);
  }
}
