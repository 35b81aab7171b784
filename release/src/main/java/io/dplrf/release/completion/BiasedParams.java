package io.dplrf.release.completion;

import static io.dplrf.sketch.params.Preconditions.check;
import static io.dplrf.sketch.params.Preconditions.checkPositiveFinite;

import io.dplrf.sketch.params.PrivacyParams;
import java.util.Objects;

/**
 * Parameters of the biased completion model ({@link BiasedCompletion}): a global offset, item
 * biases, user biases and private Frank–Wolfe on the residuals, all in one (ε, δ) budget.
 * Validated on construction with the project's one message shape. Every default is a function
 * of public parameters only (the declared rating range and ξ); docs/benchmarks-completion.md
 * shows the sensitivity of the result to each.
 *
 * @param residual Frank–Wolfe on the residuals: its (ε, δ) is the <em>whole</em> budget, its ξ
 *     bounds every component, its L bounds each residual row
 * @param ratingMin the declared public lower end of the rating scale
 * @param ratingMax the declared public upper end (&gt; ratingMin); ratings are clamped to the
 *     range, predictions too
 * @param userShrinkage λ_u ≥ 0: a user's bias is Σ(r − g − b_j)/(n_i + λ_u), i.e. shrunk toward
 *     0 as if λ_u ratings at the prediction had been added. When {@code shares.userSpread()} &gt;
 *     0 (the default) the users' λ_u is estimated privately ({@link BiasedCompletion}) and this
 *     value only centres each user's contribution to the item sums; otherwise it is the users' λ_u
 * @param itemClip τ &gt; 0: each user's centred ratings enter the item sums with root mean square
 *     at most τ (the row is scaled down otherwise)
 * @param shares the budget's split (fractions of μ², normalised to sum to 1)
 */
public record BiasedParams(CompletionParams residual, double ratingMin, double ratingMax,
    double userShrinkage, double itemClip, Shares shares) {
  /**
   * λ_u before the data are seen: five ratings' worth of prior at the population (the usual 2–25
   * range). It centres the item contributions, and it is close to the users' λ_u that the private
   * estimate gives when its release carries no information ({@link #SPREAD_CLIP}).
   */
  public static final double DEFAULT_USER_SHRINKAGE = 5;

  /**
   * a, the clip of each user's estimate of ρ = (variance of the users' true biases)/(variance of
   * one rating around them) in the private estimate λ_u = 1/E[ρ̄] ({@link BiasedCompletion}):
   * a user contributes clamp(ρ̂_i, [−1/6, a]), and the prior on their mean ρ̄ is uniform on
   * [0, a]. With a = 0.4 a release that carries no information gives λ_u = 5.3 (the posterior is
   * then ∝ (1 + ρ̄²/a²)^(−1/2), of mean 0.47a), next to {@link #DEFAULT_USER_SHRINKAGE}; users
   * whose biases vary more than 0.4 of a rating's variance are clipped, which errs toward
   * shrinking more.
   */
  public static final double SPREAD_CLIP = 2 / DEFAULT_USER_SHRINKAGE;

  /**
   * Users with fewer ratings than this do not enter the users' spread (each user's estimate ρ̂_i
   * needs n_i ≥ 4, and 6 bounds it below by −1/6).
   */
  public static final int SPREAD_MIN_RATINGS = 6;

  /**
   * The budget's split as fractions of μ² (Gaussian-DP composes by adding μ², Dong–Roth–Su 2022
   * Cor. 3.3), normalised on construction so that they sum to 1 up to rounding (a few ulps): the
   * fit then checks the spent μ against μ(ε, δ) with a rounding-level tolerance only. By
   * default: 5% global offset, 5% the users' spread (the private λ_u), 5% the model choice (the
   * users' held-out score of the item effects against the user-only model), 27% item sums, 13%
   * item weights, 45% Frank–Wolfe on the residuals, of which the first iteration (a fraction 1/T)
   * is the signal test and the rest goes back to the item biases when that test fails.
   *
   * @param userSpread 0 for a fixed, public λ_u (no release); every other share &gt; 0
   */
  public record Shares(double global, double userSpread, double choice, double itemSums,
      double itemCounts, double residual) {
    public static final Shares DEFAULT = new Shares(0.05, 0.05, 0.05, 0.27, 0.13, 0.45);

    public Shares {
      for (double s : new double[] {global, choice, itemSums, itemCounts, residual}) {
        check(s > 0 && Double.isFinite(s), "budget share", "> 0 and finite", s);
      }
      check(userSpread >= 0 && Double.isFinite(userSpread), "user-spread budget share",
          ">= 0 and finite", userSpread);
      double sum = global + userSpread + choice + itemSums + itemCounts + residual;
      global /= sum;
      userSpread /= sum;
      choice /= sum;
      itemSums /= sum;
      itemCounts /= sum;
      residual /= sum;
    }

    /** The same split with no user-spread release (the other shares renormalised). */
    public Shares withoutUserSpread() {
      return new Shares(global, 0, choice, itemSums, itemCounts, residual);
    }
  }

  public BiasedParams {
    Objects.requireNonNull(residual, "residual");
    Objects.requireNonNull(shares, "shares");
    check(Double.isFinite(ratingMin), "rating min", "finite", ratingMin);
    check(Double.isFinite(ratingMax) && ratingMax > ratingMin, "rating max",
        "finite and > rating min " + ratingMin, ratingMax);
    check(userShrinkage >= 0 && Double.isFinite(userShrinkage), "user shrinkage",
        ">= 0 and finite", userShrinkage);
    checkPositiveFinite("item clip (tau)", itemClip);
  }

  /**
   * The defaults for (ε, δ), ξ (the residual Frank–Wolfe's ratings per user) and the declared
   * range [min, max]: L = (max − min)·√ξ/8 (a row of
   * ξ residuals of root mean square (max − min)/8, a quarter of a uniform rating's standard
   * deviation (max − min)/√12 ≈ (max − min)/3.5 after the biases took out most of it), τ =
   * (max − min)/4, the users' λ_u estimated privately (λ_u = 5 to centre the item sums), T and
   * k by Corollary 3.1 of paper 004 (public m, d, ξ, L), the dense solver.
   */
  public static BiasedParams of(PrivacyParams privacy, int maxRatingsPerUser, double ratingMin,
      double ratingMax) {
    double width = ratingMax - ratingMin;
    double l = width * Math.sqrt(maxRatingsPerUser) / 8;
    return new BiasedParams(CompletionParams.of(privacy, maxRatingsPerUser, l), ratingMin,
        ratingMax, DEFAULT_USER_SHRINKAGE, width / 4, Shares.DEFAULT);
  }

  public BiasedParams withResidual(CompletionParams p) {
    return new BiasedParams(p, ratingMin, ratingMax, userShrinkage, itemClip, shares);
  }

  /** A fixed, public λ_u for every user: no user-spread release, its share renormalised away. */
  public BiasedParams withUserShrinkage(double lambda) {
    return new BiasedParams(residual, ratingMin, ratingMax, lambda, itemClip,
        shares.withoutUserSpread());
  }

  /**
   * Whether the users' λ_u is estimated privately (else it is {@link #userShrinkage}): unless it
   * was fixed ({@link #withUserShrinkage}) or its share is 0.
   */
  public boolean estimatesUserShrinkage() {
    return shares.userSpread() > 0;
  }

  public BiasedParams withItemClip(double tau) {
    return new BiasedParams(residual, ratingMin, ratingMax, userShrinkage, tau, shares);
  }

  public BiasedParams withShares(Shares s) {
    return new BiasedParams(residual, ratingMin, ratingMax, userShrinkage, itemClip, s);
  }

  /** (ε, δ) of the whole model. */
  public PrivacyParams privacy() {
    return residual.privacy();
  }

  /** ξ. */
  public int maxRatingsPerUser() {
    return residual.maxRatingsPerUser();
  }

  /** The midpoint of the declared range. */
  public double midpoint() {
    return (ratingMin + ratingMax) / 2;
  }

  /** Half the width of the declared range. */
  public double halfWidth() {
    return (ratingMax - ratingMin) / 2;
  }

  /**
   * The bound on a rating row's norm after clamping to the range when every one of d items may be
   * rated: max(|min|, |max|)·√d. The biased model's own releases bound each user's contribution
   * whatever her count (docs/privacy/completion.md §7), so its rows are never capped at ξ nor
   * scaled; only the residual Frank–Wolfe keeps ξ per user.
   */
  public double rowBound(int items) {
    return Math.max(Math.abs(ratingMin), Math.abs(ratingMax)) * Math.sqrt(items) * (1 + 1e-6);
  }
}
