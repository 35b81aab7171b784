package io.dplrf.deploy.config;

import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Stream;

/**
 * The settings of mode completion (docs/completion-service.md §1), parsed by {@link #parse}.
 * Immutable.
 *
 * @param users m: user ids are in [0, users) (setting {@code rows}; public, part of the relation)
 * @param items n: item ids are in [0, items) (setting {@code cols})
 * @param maxRatings ξ, the most distinct items stored per user (default 80, as the paper)
 * @param runs R, the most fits the total (epsilon, delta) covers
 * @param everyEpochs fit after every this many closed epochs; 0: on demand only
 * @param iterations T, the Frank–Wolfe iterations; empty: the algorithm's default
 * @param rowNorm L, the bound on ‖P_Ω(Y_i)‖₂; NaN: the default clip·√ξ
 * @param nuclearNorm k, the nuclear-norm bound; NaN: the algorithm's default
 * @param solver the eigen solver (default full up to {@link #FULL_SOLVER_MAX_ITEMS} items, else oja)
 * @param offset a public constant subtracted from every rating before a fit and added back to
 *     predictions (e.g. 3 for 1–5 stars): Frank–Wolfe starts at 0 and predicts about 0 for what
 *     it has not learnt
 */
public record CompletionSettings(int users, int items, int maxRatings, int runs,
    int everyEpochs, OptionalInt iterations, double rowNorm, double nuclearNorm, Solver solver,
    double offset) {

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

  /** The setting names of mode completion only. */
  static final List<String> NAMES = List.of("max-ratings", "completion-runs",
      "completion-every-epochs", "completion-iterations", "completion-row-norm",
      "completion-nuclear-norm", "completion-solver", "completion-offset");

  /** Every setting this mode reads beyond the common ones. */
  static final List<String> READS = Stream.concat(Stream.of("rows", "cols"),
      NAMES.stream()).toList();

  /** The sketch-tree settings mode completion refuses (and the startup log marks unused). */
  static final List<String> UNUSED = List.of("rank", "epochs", "privacy-unit", "budget-policy",
      "mechanism", "sketch-cols", "sketch-rows", "alpha");

  static CompletionSettings parse(SettingParser parse) {
    for (String name : UNUSED) {
      parse.refuse(name, "unset in mode completion (the unit is one user: at most max-ratings"
          + " ratings, each |rating| <= clip; private Frank-Wolfe has no rank, sketch or epoch"
          + " budget)");
    }
    int users = parse.positiveInt("rows");
    int items = parse.positiveInt("cols");
    Solver solver = parse.choice("completion-solver", Solver.class,
        items <= FULL_SOLVER_MAX_ITEMS ? Solver.FULL : Solver.OJA);
    if (solver == Solver.FULL && items > FULL_SOLVER_MAX_ITEMS) {
      throw parse.invalid("completion-solver", "oja with cols = " + items + " > "
          + FULL_SOLVER_MAX_ITEMS + " (full needs a dense cols x cols matrix per iteration)");
    }
    int maxRatings = parse.intIn("max-ratings", 80, 1, 1_000_000);
    int runs = parse.intIn("completion-runs", 10, 1, 1_000_000);
    int everyEpochs = parse.intIn("completion-every-epochs", 0, 0, Integer.MAX_VALUE);
    OptionalInt iterations = parse.optionalPositiveInt("completion-iterations");
    double rowNorm = parse.optionalNumber("completion-row-norm", "> 0 and < infinity",
        x -> x > 0 && Double.isFinite(x));
    double nuclearNorm = parse.optionalNumber("completion-nuclear-norm", "> 0 and < infinity",
        x -> x > 0 && Double.isFinite(x));
    double offset = parse.number("completion-offset", "finite", Double::isFinite, 0.0);
    return new CompletionSettings(users, items, maxRatings, runs, everyEpochs, iterations,
        rowNorm, nuclearNorm, solver, offset);
  }
}
