package io.dplrf.deploy.serve.completion;

import io.dplrf.deploy.config.CompletionSettings;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.ingest.RatingsStore;
import io.dplrf.release.completion.BiasedAccount;
import io.dplrf.release.completion.BiasedCompletion;
import io.dplrf.release.completion.BiasedModel;
import io.dplrf.release.completion.BiasedParams;
import io.dplrf.release.completion.CompletionAccount;
import io.dplrf.release.completion.CompletionModel;
import io.dplrf.release.completion.CompletionParams;
import io.dplrf.release.completion.EigenSolver;
import io.dplrf.release.completion.PrivateFrankWolfe;
import io.dplrf.release.completion.Ratings;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.IOException;
import java.util.Arrays;

/**
 * The service's adapter to io.dplrf.release.completion: reads the committed ratings, fits the
 * configured model with this fit's share of the budget and noise from its own label of the
 * secret key, checks that share before anything is published, and wraps the model for serving
 * and storing ({@link StoredModel}).
 *
 * <p><b>The same model as {@code dplrf complete}.</b> The parameters are built from the settings
 * exactly as {@code complete} builds them from its options of the same names ({@link
 * #biasedParams}, {@link #frankWolfeParams}), at (ε_run, δ) of {@link CompletionBudget}: the
 * biased model by default ({@link BiasedCompletion#fit}: global offset, item biases, the users'
 * spread that sets λ_u, each user's own bias, gated private Frank–Wolfe on the residuals, one
 * budget), or Algorithm 1 alone centred by {@code completion-offset}. The ratings store already
 * applied ξ and the latest-rating rule and refused ratings off the declared scale.
 */
final class CompletionFit implements CompletionRuns.Fitter {
  /** {@code dplrf complete --model fw}'s default row bound L. */
  static final double FW_DEFAULT_ROW_NORM = 5;

  private final CompletionSettings settings;
  private final CompletionBudget budget;
  private final SecretKey key;
  private final BiasedParams biased; // null unless the biased model
  private final CompletionParams frankWolfe; // null unless fw

  private CompletionFit(CompletionSettings settings, CompletionBudget budget, SecretKey key) {
    this.settings = settings;
    this.budget = budget;
    this.key = key;
    PrivacyParams perRun = new PrivacyParams(budget.epsilonPerRun(), budget.delta());
    this.biased = settings.model() == CompletionSettings.Model.BIASED
        ? biasedParams(settings, perRun) : null;
    this.frankWolfe = biased == null ? frankWolfeParams(settings, perRun) : null;
  }

  /** The fit of {@code config}, each at (ε_run, δ) of {@link CompletionBudget}. */
  static CompletionFit create(ServiceConfig config, SecretKey key) {
    return new CompletionFit(config.completion(), new CompletionBudget(config.epsilon(),
        config.delta(), config.completion().runs()), key);
  }

  /**
   * The biased model's parameters, as {@code dplrf complete} builds them: {@link
   * BiasedParams#of} for (ε, δ), ξ and the declared scale (L = (max − min)·√ξ/8, τ = (max −
   * min)/4, λ_u estimated privately, T and k by Corollary 3.1, the full solver), then each
   * setting given in place of its default.
   */
  static BiasedParams biasedParams(CompletionSettings s, PrivacyParams privacy) {
    BiasedParams defaults = BiasedParams.of(privacy, s.maxRatings(), s.ratingMin(),
        s.ratingMax());
    BiasedParams p = defaults.withResidual(residual(s, privacy, defaults.residual().clip()))
        .withItemClip(Double.isNaN(s.itemClip()) ? defaults.itemClip() : s.itemClip());
    return s.userShrinkage().isPresent() ? p.withUserShrinkage(s.userShrinkage().getAsDouble())
        : p;
  }

  /** Algorithm 1 alone, as {@code dplrf complete --model fw}: L = 5 by default. */
  static CompletionParams frankWolfeParams(CompletionSettings s, PrivacyParams privacy) {
    return residual(s, privacy, FW_DEFAULT_ROW_NORM);
  }

  private static CompletionParams residual(CompletionSettings s, PrivacyParams privacy,
      double defaultRowNorm) {
    return new CompletionParams(privacy, s.maxRatings(),
        Double.isNaN(s.rowNorm()) ? defaultRowNorm : s.rowNorm(),
        s.iterations().orElse(0), Double.isNaN(s.nuclearNorm()) ? 0 : s.nuclearNorm(),
        s.solver() == CompletionSettings.Solver.OJA ? EigenSolver.OJA : EigenSolver.FULL,
        s.ojaSteps(), CompletionParams.DEFAULT_BETA);
  }

  /** T of every fit's (residual) Frank–Wolfe (public: from public parameters only). */
  int iterations() {
    CompletionParams p = biased != null ? biased.residual() : frankWolfe;
    return p.iterationsFor(settings.users(), settings.items());
  }

  @Override
  public CompletionRuns.Model fit(RatingsStore store, String label,
      CompletionRuns.Progress progress) throws IOException {
    int t = iterations();
    progress.iteration(0, t);
    double shift = biased != null ? 0 : settings.offset(); // fw: the public offset, centring
    Triples in = new Triples();
    store.forEachUser(r -> {
      for (int k = 0; k < r.size(); k++) {
        in.add(r.user(), r.items()[k], r.values()[k] - shift);
      }
    });
    int[] user = Arrays.copyOf(in.user, in.n);
    int[] item = Arrays.copyOf(in.item, in.n);
    double[] value = Arrays.copyOf(in.value, in.n);
    CompletionRuns.Model served;
    if (biased != null) {
      Ratings ratings = BiasedCompletion.ratings(settings.users(), settings.items(), biased,
          user, item, value);
      BiasedModel m = BiasedCompletion.fit(ratings, biased, key, label,
          done -> progress.iteration(done, t));
      checkShare(m.account().orElseThrow(
          () -> new IllegalStateException("the fit reports no privacy account")), budget);
      served = new ServedBiasedModel(m, biased.itemClip(),
          userShrinkageSource(biased, settings));
    } else {
      Ratings ratings = Ratings.of(settings.users(), settings.items(),
          frankWolfe.maxRatingsPerUser(), frankWolfe.clip(), user, item, value);
      CompletionModel m = PrivateFrankWolfe.fit(ratings, frankWolfe, key, label,
          done -> progress.iteration(done, t));
      checkShare(m.diagnostics().account().orElseThrow(
          () -> new IllegalStateException("the fit reports no privacy account")), budget);
      served = new ServedFrankWolfeModel(m, settings.offset(), settings.ratingMin(),
          settings.ratingMax());
    }
    progress.iteration(t, t);
    return served;
  }

  /**
   * The budget's premise, checked on what the fit reports before anything is published: it was
   * run at the budget's δ with μ(ε_run, δ) ≤ μ_run, and the μ its releases spent, derived from
   * the noise they drew ({@link BiasedAccount#muSpent}), is at most μ_run up to rounding ({@link
   * BiasedAccount#TOLERANCE}). A fit calibrated to more than its share (the whole budget, a
   * halved σ) is refused: it throws, and the runner publishes nothing (the fit still counts).
   */
  static void checkShare(BiasedAccount a, CompletionBudget budget) {
    double share = budget.muPerRun();
    if (a.privacy().delta() != budget.delta() || !(a.mu() <= share)
        || !(a.muSpent() <= share * (1 + BiasedAccount.TOLERANCE))) {
      throw new IllegalStateException("fit at delta = " + a.privacy().delta() + " with mu = "
          + a.mu() + " spent mu = " + a.muSpent() + " > its share " + share + " at delta = "
          + budget.delta() + "; not published");
    }
  }

  /** As above for Frank–Wolfe alone, whose account states the μ it was calibrated to. */
  static void checkShare(CompletionAccount a, CompletionBudget budget) {
    if (a.privacy().delta() != budget.delta() || !(a.mu() <= budget.muPerRun())) {
      throw new IllegalStateException("fit at delta = " + a.privacy().delta() + " used mu = "
          + a.mu() + " > its share " + budget.muPerRun() + "; not published");
    }
  }

  /**
   * How λ_u was set, in words (public): as {@code dplrf complete}'s release.json says it for a
   * private run.
   */
  static String userShrinkageSource(BiasedParams p, CompletionSettings s) {
    if (s.userShrinkage().isPresent()) {
      return "fixed by the operator (completion-user-shrinkage)";
    }
    return "privately";
  }

  @Override
  public CompletionRuns.Model decode(byte[] bytes) throws IOException {
    return StoredModel.decode(bytes, settings.ratingMin(), settings.ratingMax());
  }

  /** Growable (user, item, value) arrays. */
  private static final class Triples {
    int n;
    int[] user = new int[1024];
    int[] item = new int[1024];
    double[] value = new double[1024];

    void add(int u, int j, double v) {
      if (n == user.length) {
        user = Arrays.copyOf(user, 2 * n);
        item = Arrays.copyOf(item, 2 * n);
        value = Arrays.copyOf(value, 2 * n);
      }
      user[n] = u;
      item[n] = j;
      value[n++] = v;
    }
  }
}
