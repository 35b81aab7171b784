package io.dplrf.deploy.config;

import io.dplrf.release.completion.CompletionParams;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.stream.Stream;

/**
 * The settings of mode completion (docs/completion-service.md §1), parsed by {@link #parse}. The
 * names and defaults are those of {@code dplrf complete}'s options, so that a model fitted by the
 * service is the one {@code complete} fits on the same ratings. Immutable.
 *
 * @param users m: user ids are in [0, users) (setting {@code rows}; public, part of the relation)
 * @param items n: item ids are in [0, items) (setting {@code cols})
 * @param ratingMin the declared public lower end of the rating scale (setting {@code
 *     rating-min}, required)
 * @param ratingMax the declared public upper end, &gt; ratingMin (setting {@code rating-max},
 *     required): a rating outside [ratingMin, ratingMax] is dead-lettered, predictions are
 *     clamped to it, and the model's defaults are functions of it
 * @param model the model fitted: {@link Model#BIASED} (the default) or {@link Model#FW}
 * @param maxRatings ξ, the most distinct items stored per user (default 80, as the paper)
 * @param runs R, the most fits the total (epsilon, delta) covers
 * @param everyEpochs fit after every this many closed epochs; 0: on demand only
 * @param iterations T, the Frank–Wolfe iterations; empty: the algorithm's default
 * @param rowNorm L, the bound on each user's (residual) row ‖·‖₂; NaN: the model's default
 * @param nuclearNorm k, the nuclear-norm bound; NaN: the algorithm's default
 * @param solver the eigen solver (default full up to {@link #FULL_SOLVER_MAX_ITEMS} items, else oja)
 * @param ojaSteps Γ, the Oja steps per Frank–Wolfe iteration (oja only; default 100)
 * @param userShrinkage the biased model's λ_u; empty: estimated privately (the default, "auto")
 * @param itemClip the biased model's τ; NaN: its default (max − min)/4
 * @param offset the FW model's public centring constant; NaN: the biased model, which releases
 *     its own global offset
 */
public record CompletionSettings(int users, int items, double ratingMin, double ratingMax,
    Model model, int maxRatings, int runs, int everyEpochs, OptionalInt iterations,
    double rowNorm, double nuclearNorm, Solver solver, int ojaSteps,
    OptionalDouble userShrinkage, double itemClip, double offset) {

  /**
   * The model a fit releases, as {@code dplrf complete --model}: {@code biased}, the global
   * offset, item biases, each user's own bias and private Frank–Wolfe on the residuals in one
   * budget (io.dplrf.release.completion.BiasedCompletion); {@code fw}, paper 004's Algorithm 1
   * alone, centred by the public {@code completion-offset}.
   */
  public enum Model { BIASED, FW }

  /**
   * The eigen solver of private Frank–Wolfe: {@code full}, paper 004 Algorithm 1 (dense n×n
   * noise and eigendecomposition per iteration), or {@code oja}, Algorithm 2 (a noise vector per
   * step, linear in n).
   */
  public enum Solver { FULL, OJA }

  /**
   * The most items the full solver takes (the algorithm refuses more: a dense n×n matrix per
   * iteration); checked at start so that a fit is never charged to the budget and then refused.
   */
  public static final int FULL_SOLVER_MAX_ITEMS = 2000;

  /** Γ by default, as {@code dplrf complete --oja-steps}. */
  public static final int DEFAULT_OJA_STEPS = CompletionParams.DEFAULT_OJA_STEPS;

  /** The setting names of mode completion only. */
  static final List<String> NAMES = List.of("rating-min", "rating-max", "completion-model",
      "max-ratings", "completion-runs", "completion-every-epochs", "completion-iterations",
      "completion-row-norm", "completion-nuclear-norm", "completion-solver",
      "completion-oja-steps", "completion-user-shrinkage", "completion-item-clip",
      "completion-offset");

  /** Every setting this mode reads beyond the common ones. */
  static final List<String> READS = Stream.concat(Stream.of("rows", "cols"),
      NAMES.stream()).toList();

  /** The sketch-tree settings mode completion refuses (and the startup log marks unused). */
  static final List<String> UNUSED = List.of("rank", "epochs", "privacy-unit", "budget-policy",
      "mechanism", "sketch-cols", "sketch-rows", "alpha");

  static CompletionSettings parse(SettingParser parse) {
    for (String name : UNUSED) {
      parse.refuse(name, "unset in mode completion (the unit is one user: at most max-ratings"
          + " ratings on the declared scale; matrix completion has no rank, sketch or epoch"
          + " budget)");
    }
    // The declared scale bounds every rating: ServiceConfig derives clip from it.
    parse.refuse("clip", "unset in mode completion (rating-min and rating-max declare the"
        + " rating scale; a rating outside it is dead-lettered)");
    int users = parse.positiveInt("rows");
    int items = parse.positiveInt("cols");
    double ratingMin = parse.number("rating-min", "finite (the public lower end of the rating"
        + " scale, e.g. 0.5 for MovieLens stars)", Double::isFinite, null);
    double ratingMax = parse.number("rating-max", "finite (the public upper end of the rating"
        + " scale, e.g. 5)", Double::isFinite, null);
    if (!(ratingMax > ratingMin)) {
      throw parse.invalid("rating-max", "> rating-min = " + ratingMin);
    }
    Model model = parse.choice("completion-model", Model.class, Model.BIASED);
    Solver solver = parse.choice("completion-solver", Solver.class,
        items <= FULL_SOLVER_MAX_ITEMS ? Solver.FULL : Solver.OJA);
    if (solver == Solver.FULL && items > FULL_SOLVER_MAX_ITEMS) {
      throw parse.invalid("completion-solver", "oja with cols = " + items + " > "
          + FULL_SOLVER_MAX_ITEMS + " (full needs a dense cols x cols matrix per iteration)");
    }
    if (solver == Solver.FULL) {
      parse.refuse("completion-oja-steps", "unset with completion-solver full");
    }
    int ojaSteps = parse.intIn("completion-oja-steps", DEFAULT_OJA_STEPS, 1, Integer.MAX_VALUE);
    int maxRatings = parse.intIn("max-ratings", CompletionParams.DEFAULT_MAX_RATINGS, 1,
        1_000_000);
    int runs = parse.intIn("completion-runs", 10, 1, 1_000_000);
    int everyEpochs = parse.intIn("completion-every-epochs", 0, 0, Integer.MAX_VALUE);
    OptionalInt iterations = parse.optionalPositiveInt("completion-iterations");
    double rowNorm = parse.optionalNumber("completion-row-norm", "> 0 and < infinity",
        x -> x > 0 && Double.isFinite(x));
    double nuclearNorm = parse.optionalNumber("completion-nuclear-norm", "> 0 and < infinity",
        x -> x > 0 && Double.isFinite(x));
    OptionalDouble userShrinkage = OptionalDouble.empty();
    double itemClip = Double.NaN;
    double offset = Double.NaN;
    if (model == Model.BIASED) {
      parse.refuse("completion-offset", "unset with completion-model biased (the model"
          + " releases its own global offset)");
      String s = parse.string("completion-user-shrinkage", "auto", "auto or a number >= 0"
          + " (lambda_u)", CompletionSettings::isShrinkage);
      if (!s.equals("auto")) {
        userShrinkage = OptionalDouble.of(Double.parseDouble(s));
      }
      itemClip = parse.optionalNumber("completion-item-clip", "> 0 and < infinity",
          x -> x > 0 && Double.isFinite(x));
    } else {
      for (String name : List.of("completion-user-shrinkage", "completion-item-clip")) {
        parse.refuse(name, "unset with completion-model fw (it belongs to the biased model)");
      }
      offset = parse.number("completion-offset", "finite", Double::isFinite,
          (ratingMin + ratingMax) / 2);
    }
    return new CompletionSettings(users, items, ratingMin, ratingMax, model, maxRatings, runs,
        everyEpochs, iterations, rowNorm, nuclearNorm, solver, ojaSteps, userShrinkage,
        itemClip, offset);
  }

  private static boolean isShrinkage(String s) {
    if (s.equals("auto")) {
      return true;
    }
    try {
      double x = Double.parseDouble(s);
      return x >= 0 && Double.isFinite(x);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * max(|ratingMin|, |ratingMax|): the largest |rating| on the declared scale, the per-rating
   * bound C of the ingest loop (ServiceConfig's {@code clip} in this mode).
   */
  public double ratingBound() {
    return Math.max(Math.abs(ratingMin), Math.abs(ratingMax));
  }
}
