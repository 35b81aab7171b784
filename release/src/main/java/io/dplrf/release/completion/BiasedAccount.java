package io.dplrf.release.completion;

import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.params.PrivacyParams;
import java.util.List;
import java.util.Optional;

/**
 * The privacy accounting of one biased completion fit (docs/privacy/completion.md §7): public.
 * Every component is a Gaussian mechanism (or an adaptive composition of them); its μ is
 * <em>derived from the noise it used</em>, √(Σ_k R_k·(Δ_k/σ_k)²) over its noise scales k, each
 * released R_k times with sensitivity Δ_k (grid-rounding slack included) and the effective σ_k
 * of the grid Gaussian drawn. They compose adaptively to μ = √(Σ μ_c²) (Dong–Roth–Su 2022 Cor.
 * 3.3), which the fit checks against μ(ε, δ): (ε, δ)-DP for the global part and (ε, δ)-joint DP
 * for the users' outputs (billboard lemma). The check compares σ with the Δ the noise was
 * calibrated to: it catches a wrong share, μ or count of releases, never a wrong derivation of
 * Δ; the residual Frank–Wolfe's parts are its plan's calibration times the iterations run.
 *
 * @param privacy the (ε, δ) guaranteed, user level, joint DP
 * @param relation the neighbouring relation ({@link CompletionAccount#RELATION})
 * @param mu μ(ε, δ), the budget
 * @param components the releases in the order they were made
 * @param residual the residual Frank–Wolfe run's own account, when it ran all its iterations
 */
public record BiasedAccount(PrivacyParams privacy, String relation, double mu,
    List<Component> components, Optional<CompletionAccount> residual) {
  /**
   * The relative tolerance of the check μ_spent ≤ μ(ε, δ): rounding only. The calibration makes
   * Δ/σ ≤ μ_share for every noise scale (the grid only rounds σ up, by a relative &lt; 2⁻³⁰), and
   * the shares sum to 1 within a few ulps ({@link BiasedParams.Shares}), so μ_spent exceeds μ only
   * by the rounding of a dozen squares, products and square roots (&lt; 10⁻¹⁴ relative); any
   * miscalibration larger than that is caught.
   */
  public static final double TOLERANCE = 1e-12;

  /** A noise scale and the number of releases made with it. */
  public record Part(NoiseScale noise, long releases) {
    public Part {
      if (releases < 1) {
        throw new IllegalArgumentException("releases must be >= 1. Provided value: " + releases);
      }
    }

    /** R·(Δ/σ)². */
    double muSquared() {
      double r = noise.sensitivity() / noise.sigma();
      return releases * r * r;
    }
  }

  /** One released component: its name and the noise of every release it made. */
  public record Component(String name, List<Part> parts) {
    public Component {
      parts = List.copyOf(parts);
    }

    /** √(Σ_k R_k·(Δ_k/σ_k)²): what this component spent, from the noise it used. */
    public double mu() {
      double s = 0;
      for (Part p : parts) {
        s += p.muSquared();
      }
      return Math.sqrt(s);
    }
  }

  public BiasedAccount {
    components = List.copyOf(components);
  }

  /** √(Σ μ_c²) over the components; the fit checks it is at most μ(1 + {@link #TOLERANCE}). */
  public double muSpent() {
    double s = 0;
    for (Component c : components) {
      double m = c.mu();
      s += m * m;
    }
    return Math.sqrt(s);
  }
}
