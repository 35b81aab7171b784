package io.dplrf.sketch.calibration;

import static io.dplrf.sketch.params.Preconditions.checkOpenUnit;
import static io.dplrf.sketch.params.Preconditions.checkPositiveFinite;

/**
 * Zero-concentrated DP (Bun &amp; Steinke, "Concentrated Differential Privacy: Simplifications,
 * Extensions, and Lower Bounds", TCC 2016): the accounting paper 004 (Jain–Thakkar–Thakurta 2018)
 * states its Theorem 3.1 in. Kept to compare against the exact Gaussian-DP calibration
 * ({@link AnalyticGaussian}), which dplrf uses because it is never looser. Stateless.
 */
public final class Zcdp {
  private Zcdp() {}

  /**
   * ρ of a Gaussian mechanism with μ = Δ/σ: ρ = μ²/2 (Bun–Steinke Prop. 1.6); ρ adds up under
   * composition (Lemma 1.7), so T releases with μ_t give Σ μ_t²/2 = μ²/2 for the composed
   * μ = √(Σ μ_t²).
   */
  public static double rhoOfGaussian(double mu) {
    checkPositiveFinite("mu", mu);
    return mu * mu / 2;
  }

  /**
   * ρ-zCDP implies (ρ + 2√(ρ ln(1/δ)), δ)-DP for every δ &gt; 0 (Bun–Steinke Prop. 1.3) — the
   * conversion paper 004 uses (its requirement ε ≤ 2 ln(1/δ) comes from inverting it).
   */
  public static double epsilon(double rho, double delta) {
    checkPositiveFinite("rho", rho);
    checkOpenUnit("delta", delta);
    return rho + 2 * Math.sqrt(rho * Math.log(1 / delta));
  }

  /** The largest ρ with {@link #epsilon}(ρ, δ) ≤ ε: (√(ln(1/δ) + ε) − √ln(1/δ))². */
  public static double rho(double epsilon, double delta) {
    checkPositiveFinite("epsilon", epsilon);
    checkOpenUnit("delta", delta);
    double l = Math.log(1 / delta);
    double r = Math.sqrt(l + epsilon) - Math.sqrt(l);
    return r * r;
  }
}
