package io.dplrf.sketch.calibration;

import static io.dplrf.sketch.params.Preconditions.check;
import static io.dplrf.sketch.params.Preconditions.checkOpenUnit;
import static io.dplrf.sketch.params.Preconditions.checkPositiveFinite;

/**
 * The "dilation" half of a smooth-sensitivity Gaussian mechanism (Nissim, Raskhodnikova, Smith,
 * STOC 2007, §2: noise scaled by a data-dependent smooth bound must tolerate a change of scale):
 * how distinguishable P = N(0, I_D) and Q = N(0, r² I_D) are when |ln r| ≤ β.
 * docs/privacy/smooth-sensitivity.md §5.1 has the derivation; the formulas are restated here.
 *
 * <p><b>Rényi moment.</b> For one coordinate, with λ = ln r,
 * ln E_P[(p/q)^{a−1}] = (a − 1)λ − ½·ln(1 − (a − 1)(e^{−2λ} − 1)), finite when the last argument
 * is positive (always for λ &gt; 0; a &lt; 1/(1 − e^{2λ}) for λ &lt; 0). D coordinates multiply.
 *
 * <p><b>Rényi to (ε, δ).</b> With L = ln(p/q) the privacy loss, δ(ε) = E_P[(1 − e^{ε−L})₊] ≤
 * E_P[e^{(a−1)L}]·sup_ℓ (1 − e^{ε−ℓ})₊ e^{−(a−1)ℓ} = exp((a−1)(D_a − ε))·(1/a)(1 − 1/a)^{a−1}
 * for every a &gt; 1 (the supremum is at e^{ε−ℓ} = 1 − 1/a). Any a gives a valid bound; {@link
 * #deltaBound} minimises over a grid of a ∈ (1, 2^20], so the quality of the minimisation affects
 * tightness only, never soundness.
 *
 * <p><b>Worst case over |λ| ≤ β.</b> The exact δ is non-decreasing in |λ| on each side of 0: for
 * λ &gt; 0 the optimal event is {‖z‖² &lt; ρ} and Q's probability of every such set falls as r
 * grows (the laws are ordered by their likelihood ratio in ‖z‖², which also holds for the discrete
 * Gaussian), and symmetrically for λ &lt; 0. So the supremum over [−β, β] is at ±β, and {@link
 * #deltaBoundForBeta} evaluates both ends.
 *
 * <p><b>Discrete noise.</b> For the discrete Gaussian N_ℤ(0, s²) the moment sums are ratios of
 * theta functions Z(s) = √(2π)s·(1 + 2Σ_m e^{−2π²s²m²}), so they exceed the continuous ones by at
 * most a factor (1 + 3e^{−2π²s_a²})(1 + 3e^{−2π²s²})^{a−1} with s_a ≥ s/√a; for s ≥ 2^20 and
 * a ≤ 2^20 that factor is below exp(10^{-10^6}) and is not representable, hence not added.
 *
 * <p>Deterministic, stateless, thread-safe.
 */
public final class GaussianDilation {
  /** Largest Rényi order tried (see the class comment on discrete noise). */
  static final double MAX_ORDER = 0x1.0p20;
  private static final int GRID = 600;

  private GaussianDilation() {}

  /** ln E_P[(p/q)^{a−1}] for one coordinate, P = N(0,1), Q = N(0, e^{2λ}); +∞ outside the domain. */
  static double logMoment(double a, double lambda) {
    double arg = -(a - 1) * Math.expm1(-2 * lambda);
    if (arg <= -1) {
      return Double.POSITIVE_INFINITY;
    }
    return (a - 1) * lambda - 0.5 * Math.log1p(arg);
  }

  /** ln of the Rényi-to-(ε, δ) bound at order a for D coordinates (class comment). */
  static double logDeltaAtOrder(double a, long dims, double lambda, double epsilon) {
    double m = logMoment(a, lambda);
    if (m == Double.POSITIVE_INFINITY) {
      return Double.POSITIVE_INFINITY;
    }
    return dims * m - (a - 1) * epsilon - Math.log(a) + (a - 1) * Math.log1p(-1 / a);
  }

  /**
   * An upper bound on δ(ε) between N(0, I_D) and N(0, e^{2λ} I_D) (either direction of the
   * inequality is covered by evaluating both signs of λ, see {@link #deltaBoundForBeta}).
   *
   * @param dims D ≥ 1
   * @param lambda ln r, finite
   * @param epsilon ε &gt; 0
   */
  public static double deltaBound(long dims, double lambda, double epsilon) {
    return Math.exp(logDeltaBound(dims, lambda, epsilon));
  }

  /** ln of {@link #deltaBound} (−∞ for λ = 0), for budgets whose δ underflows a double. */
  public static double logDeltaBound(long dims, double lambda, double epsilon) {
    check(dims >= 1, "dims", ">= 1", dims);
    check(Double.isFinite(lambda), "lambda", "finite", lambda);
    checkPositiveFinite("epsilon", epsilon);
    if (lambda == 0) {
      return Double.NEGATIVE_INFINITY;
    }
    double best = 0; // ln 1: δ ≤ 1 always
    double logMax = Math.log(MAX_ORDER - 1);
    double logMin = Math.log(1e-9);
    int bestI = -1;
    for (int i = 0; i <= GRID; i++) {
      double a = 1 + Math.exp(logMin + (logMax - logMin) * i / GRID);
      double v = logDeltaAtOrder(a, dims, lambda, epsilon);
      if (v < best) {
        best = v;
        bestI = i;
      }
    }
    if (bestI >= 0) {
      // Golden-section refinement of ln(a − 1) between the grid neighbours of the best point.
      double lo = logMin + (logMax - logMin) * Math.max(0, bestI - 1) / GRID;
      double hi = logMin + (logMax - logMin) * Math.min(GRID, bestI + 1) / GRID;
      double g = (Math.sqrt(5) - 1) / 2;
      for (int it = 0; it < 60; it++) {
        double x1 = hi - g * (hi - lo);
        double x2 = lo + g * (hi - lo);
        double v1 = logDeltaAtOrder(1 + Math.exp(x1), dims, lambda, epsilon);
        double v2 = logDeltaAtOrder(1 + Math.exp(x2), dims, lambda, epsilon);
        best = Math.min(best, Math.min(v1, v2));
        if (v1 < v2) {
          hi = x2;
        } else {
          lo = x1;
        }
      }
    }
    return best;
  }

  private static double logBoundForBeta(long dims, double beta, double epsilon) {
    return Math.max(logDeltaBound(dims, beta, epsilon), logDeltaBound(dims, -beta, epsilon));
  }

  /** max(deltaBound(D, β, ε), deltaBound(D, −β, ε)): the worst scale change with |ln r| ≤ β. */
  public static double deltaBoundForBeta(long dims, double beta, double epsilon) {
    checkPositiveFinite("beta", beta);
    return Math.max(deltaBound(dims, beta, epsilon), deltaBound(dims, -beta, epsilon));
  }

  /**
   * The largest β (to a relative 1e-9, rounded down) with {@link #deltaBoundForBeta} ≤ δ: the
   * smoothness a β-smooth scale may have when its dilation is to cost (ε, δ).
   */
  public static double maxBeta(long dims, double epsilon, double delta) {
    checkOpenUnit("delta", delta);
    return maxBetaForLogDelta(dims, epsilon, Math.log(delta));
  }

  /** {@link #maxBeta} for δ = e^{logDelta}, logDelta &lt; 0 (δ may underflow a double). */
  public static double maxBetaForLogDelta(long dims, double epsilon, double logDelta) {
    check(dims >= 1, "dims", ">= 1", dims);
    checkPositiveFinite("epsilon", epsilon);
    check(logDelta < 0 && logDelta > Double.NEGATIVE_INFINITY, "logDelta", "< 0 and finite", logDelta);
    double lo = 0;
    double hi = epsilon;
    while (logBoundForBeta(dims, hi, epsilon) <= logDelta) {
      lo = hi;
      hi *= 2;
    }
    while (hi - lo > 1e-9 * hi) {
      double mid = 0.5 * (lo + hi);
      if (logBoundForBeta(dims, mid, epsilon) <= logDelta) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    check(lo > 0, "beta", "> 0 (no scale change is affordable at this (epsilon, delta))", lo);
    return lo * (1 - 0x1p-30); // the bound at lo is met with no margin; keep one against rounding
  }

  /**
   * The exact δ(ε) between the continuous N(0, I_D) and N(0, e^{2λ} I_D) by the χ²_D law of
   * ‖z‖²: with r = e^λ the loss is L = D ln r − (1 − r^{−2})‖z‖²/2, monotone in ‖z‖², so
   * δ = P[χ²_D &lt; ρ] − e^ε P[χ²_D &lt; ρ/r²] (λ &gt; 0) or the same with upper tails (λ &lt; 0),
   * ρ the level where L = ε. For tests and the derivation's table: the mechanism uses the
   * Rényi bound, which also holds for discrete noise.
   */
  public static double exactContinuous(int dims, double lambda, double epsilon) {
    check(dims >= 1, "dims", ">= 1", dims);
    checkPositiveFinite("epsilon", epsilon);
    if (lambda == 0) {
      return 0;
    }
    double shrink = -Math.expm1(-2 * lambda); // 1 − r^{−2}
    double rho = 2 * (dims * lambda - epsilon) / shrink;
    double rhoQ = rho * Math.exp(-2 * lambda);
    double d;
    if (lambda > 0) {
      if (rho <= 0) {
        return 0;
      }
      d = ChiSquare.lowerTail(rho, dims) - Math.exp(epsilon) * ChiSquare.lowerTail(rhoQ, dims);
    } else {
      d = ChiSquare.upperTail(rho, dims) - Math.exp(epsilon) * ChiSquare.upperTail(rhoQ, dims);
    }
    return Math.max(0, d);
  }
}
