package io.dplrf.release.completion;

import static io.dplrf.sketch.params.Preconditions.check;
import static io.dplrf.sketch.params.Preconditions.checkOpenUnit;
import static io.dplrf.sketch.params.Preconditions.checkPositive;
import static io.dplrf.sketch.params.Preconditions.checkPositiveFinite;

import io.dplrf.sketch.params.PrivacyParams;
import java.util.Objects;

/**
 * Parameters of private Frank–Wolfe matrix completion (paper 004, Algorithm 1), validated on
 * construction with the project's one message shape.
 *
 * @param privacy (ε, δ) for the whole run, user level, joint DP (ignored by the non-private fit)
 * @param maxRatingsPerUser ξ ≥ 1, ratings kept per user (paper: 80)
 * @param clip L &gt; 0, the bound on ‖P_Ω(Y*_i)‖₂ (rows are clipped to it)
 * @param iterations T ≥ 1, or 0 for the default of Corollary 3.1 ({@link #iterationsFor})
 * @param nuclearNorm k &gt; 0, the nuclear-norm ball of the FW constraint, or 0 for the default
 *     {@link #nuclearNormFor}
 * @param solver {@link EigenSolver#FULL} (Algorithm 1) or {@link EigenSolver#OJA} (Algorithm 2)
 * @param ojaSteps Γ ≥ 1, Oja steps per FW iteration (used by OJA only)
 * @param beta β ∈ (0, 1), the failure probability in Algorithm 1's λ̂′ correction
 */
public record CompletionParams(PrivacyParams privacy, int maxRatingsPerUser, double clip,
    int iterations, double nuclearNorm, EigenSolver solver, int ojaSteps, double beta) {
  /** The paper's ξ (§4, "at most ξ = 80 ratings per user"). */
  public static final int DEFAULT_MAX_RATINGS = 80;
  /** Γ by default: Theorem 3.3's rate √(V/Γ) is then within 10% of its Γ → ∞ limit scale. */
  public static final int DEFAULT_OJA_STEPS = 100;
  /** β by default in λ̂′ = λ̂ + √(σ log(d/β)) d^{1/4}. */
  public static final double DEFAULT_BETA = 0.1;

  public CompletionParams {
    Objects.requireNonNull(privacy, "privacy");
    Objects.requireNonNull(solver, "solver");
    checkPositive("max ratings per user (xi)", maxRatingsPerUser);
    // FLOAT_SLACK and RowClipping's margin are derived for xi <= 10^6 (docs/privacy/completion.md).
    check(maxRatingsPerUser <= 1_000_000, "max ratings per user (xi)", "<= 1000000",
        maxRatingsPerUser);
    checkPositiveFinite("clip (L)", clip);
    check(iterations >= 0, "iterations (T)", ">= 1, or 0 for the Corollary 3.1 default",
        iterations);
    check(nuclearNorm == 0 || (nuclearNorm > 0 && nuclearNorm < Double.POSITIVE_INFINITY),
        "nuclear norm (k)", "> 0 and < infinity, or 0 for the default", nuclearNorm);
    checkPositive("Oja steps (Gamma)", ojaSteps);
    checkOpenUnit("beta", beta);
  }

  /** ξ, L and (ε, δ); T and k by default, the FULL solver. */
  public static CompletionParams of(PrivacyParams privacy, int maxRatingsPerUser, double clip) {
    return new CompletionParams(privacy, maxRatingsPerUser, clip, 0, 0, EigenSolver.FULL,
        DEFAULT_OJA_STEPS, DEFAULT_BETA);
  }

  public CompletionParams withIterations(int t) {
    return new CompletionParams(privacy, maxRatingsPerUser, clip, t, nuclearNorm, solver,
        ojaSteps, beta);
  }

  public CompletionParams withNuclearNorm(double k) {
    return new CompletionParams(privacy, maxRatingsPerUser, clip, iterations, k, solver,
        ojaSteps, beta);
  }

  public CompletionParams withSolver(EigenSolver s, int steps) {
    return new CompletionParams(privacy, maxRatingsPerUser, clip, iterations, nuclearNorm, s,
        steps, beta);
  }

  /**
   * k, or by default √(m·d)·L/√ξ: the nuclear norm of an m×d matrix whose entries all have the
   * magnitude L/√ξ of a full-length row at the clip bound (‖Y‖_nuc ≤ √rank·‖Y‖_F, equality for
   * rank one). Uses public quantities only: m and d are public (the relation replaces a user,
   * docs/privacy/completion.md §1), L and ξ are parameters.
   */
  public double nuclearNormFor(int users, int items) {
    if (nuclearNorm > 0) {
      return nuclearNorm;
    }
    return Math.sqrt((double) users * items) * clip / Math.sqrt(maxRatingsPerUser);
  }

  /**
   * T, or by default Corollary 3.1's T = k^{4/3}/(|Ω|(m + n))^{1/3} (constant 1, at least 1)
   * with |Ω| replaced by its public bound m·ξ (|Ω| itself is data).
   */
  public int iterationsFor(int users, int items) {
    if (iterations > 0) {
      return iterations;
    }
    double k = nuclearNormFor(users, items);
    double omega = (double) users * maxRatingsPerUser;
    double t = Math.pow(k, 4.0 / 3) / Math.cbrt(omega * ((double) users + items));
    return (int) Math.max(1, Math.min(10_000, Math.ceil(t)));
  }
}
