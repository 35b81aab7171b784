package io.dplrf.release.completion;

import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.params.PrivacyParams;
import java.util.List;

/**
 * The privacy accounting of one private completion run (docs/privacy/completion.md): public.
 *
 * @param privacy the (ε, δ) guaranteed, user level, joint DP
 * @param relation the neighbouring relation ({@link #RELATION})
 * @param calibration how σ was set
 * @param releases number of Gaussian releases composed (T for FULL, T·(Γ + 1) for OJA)
 * @param mu the composed Gaussian-DP parameter μ = √(releases)·μ_release, the largest μ with
 *     δ(ε; μ) ≤ δ on the exact μ-GDP curve
 * @param muPerRelease μ of each release (Δ/σ after grid rounding, ≤ this value)
 * @param rho the equivalent zCDP parameter ρ = μ²/2 (paper 004's accounting)
 * @param epsilonZcdp ε that paper 004's conversion ρ + 2√(ρ ln(1/δ)) would certify for this ρ
 *     (≥ ε: the exact curve is tighter)
 * @param noise every noise scale: name, σ, sensitivity Δ, entries per release
 * @param paperSigma Algorithm 1's σ = L²√(64 T ln(1/δ))/ε for the same T, for comparison
 */
public record CompletionAccount(PrivacyParams privacy, String relation, String calibration,
    int releases, double mu, double muPerRelease, double rho, double epsilonZcdp,
    List<NoiseScale> noise, double paperSigma) {
  /** Joint DP (Kearns et al. 2014; paper 004 Def. 2.2) for neighbours replacing one user. */
  public static final String RELATION = "one user (joint DP): one user's whole ratings row "
      + "replaced by any other row (<= xi ratings, norm <= L); the other users' outputs and the "
      + "public model are (epsilon, delta)-DP (in the service, what the epoch cut makes public"
      + " is in /v1/status)";

  /**
   * The biased model's relation: its bounded releases read each user's whole row, of any length
   * (docs/privacy/completion.md §7–8); only the residual Frank–Wolfe reads her first ξ ratings.
   */
  public static final String BIASED_RELATION = "one user (joint DP): one user's whole ratings"
      + " row replaced by any other row (any number of ratings, each clamped to [rating-min,"
      + " rating-max]); the other users' outputs and the public model are (epsilon, delta)-DP (in"
      + " the service, what the epoch cut makes public is in /v1/status)";

  public CompletionAccount {
    noise = List.copyOf(noise);
  }
}
