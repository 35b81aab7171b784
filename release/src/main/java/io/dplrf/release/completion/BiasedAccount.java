package io.dplrf.release.completion;

import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.params.PrivacyParams;
import java.util.List;
import java.util.Optional;

/**
 * The privacy accounting of one biased completion fit (docs/privacy/completion.md §7): public.
 * Every component is a Gaussian mechanism (or an adaptive composition of them) with its own μ;
 * they compose adaptively to μ = √(Σ μ_c²) ≤ μ(ε, δ) (Dong–Roth–Su 2022 Cor. 3.3), which is
 * (ε, δ)-DP for the global part and (ε, δ)-joint DP for the users' outputs (billboard lemma).
 *
 * @param privacy the (ε, δ) guaranteed, user level, joint DP
 * @param relation the neighbouring relation ({@link CompletionAccount#RELATION})
 * @param mu μ(ε, δ), the budget
 * @param components the releases in the order they were made, each with its μ and noise scales
 * @param residual the residual Frank–Wolfe run's own account, when it ran all its iterations
 */
public record BiasedAccount(PrivacyParams privacy, String relation, double mu,
    List<Component> components, Optional<CompletionAccount> residual) {
  /** One released component: name, its μ, its noise scales. */
  public record Component(String name, double mu, List<NoiseScale> noise) {
    public Component {
      noise = List.copyOf(noise);
    }
  }

  public BiasedAccount {
    components = List.copyOf(components);
  }

  /** √(Σ μ_c²): what the components spent; never more than {@link #mu} (checked by the fit). */
  public double muSpent() {
    double s = 0;
    for (Component c : components) {
      s += c.mu() * c.mu();
    }
    return Math.sqrt(s);
  }
}
