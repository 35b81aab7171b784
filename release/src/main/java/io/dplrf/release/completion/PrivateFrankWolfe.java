package io.dplrf.release.completion;

import io.dplrf.sketch.randomness.SecretKey;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntConsumer;

/**
 * Private Frank–Wolfe matrix completion (Jain, Thakkar, Thakurta, "Differentially Private Matrix
 * Completion Revisited", ICML 2018 — paper 004, Algorithm 1, optionally with Algorithm 2 as
 * the eigen solver) and its non-private twin, the baseline.
 *
 * <p>Each of the T iterations: the global component ({@link GlobalComponent}) releases the noisy
 * top eigenpair (v̂_t, λ̂_t²) of W = Σ A_iᵀA_i, sets λ̂′_t = λ̂_t + √(σ log(d/β)) d^{1/4}
 * (Algorithm 1: a high-probability bound on the noise's effect on λ̂), and every user runs the
 * local update {@link LocalUpdate#step}. The output {@link CompletionModel} holds only
 * (v̂_t, λ̂′_t) and public parameters — (ε, δ)-DP by Theorem 3.1's argument with the exact
 * calibration of {@link CompletionPlan}; each user's completed row is a function of that model
 * and her own row only, so the whole is (ε, δ)-joint DP (billboard lemma, Hsu et al. 2014).
 *
 * <p>Iteration indexing: the paper's loop releases T eigenpairs but its first local step uses
 * v̂ = 0 and its last eigenpair is never used; here eigenpair t is computed from
 * A^{(t−1)} and used by local step t, so all T releases are used (same privacy cost: T releases).
 * Stateless.
 */
public final class PrivateFrankWolfe {
  private PrivateFrankWolfe() {}

  /**
   * The private fit.
   *
   * @param ratings built with the same ξ and L as {@code params}
   * @param key the secret key all noise derives from
   * @param runLabel a label never used before with this key (e.g. "completion/" + a random run
   *     id): the noise is a function of (key, label), so a reused label reuses noise
   */
  public static CompletionModel fit(Ratings ratings, CompletionParams params, SecretKey key,
      String runLabel) {
    return fit(ratings, params, key, runLabel, done -> { });
  }

  /**
   * The private fit, calling {@code progress} with the number of iterations done after each one
   * (a count of public steps: it depends on T only, never on the data).
   */
  public static CompletionModel fit(Ratings ratings, CompletionParams params, SecretKey key,
      String runLabel, IntConsumer progress) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(runLabel, "runLabel");
    checkMatches(ratings, params);
    int t = params.iterationsFor(ratings.users(), ratings.items());
    CompletionPlan plan = CompletionPlan.calibrate(params, t, ratings.items());
    return run(ratings, params, t, global(ratings, params, plan, key, runLabel),
        "private-frank-wolfe", Optional.of(plan.account()), progress, false);
  }

  /**
   * A Frank–Wolfe run on a share of a larger budget: the model, or null when the signal test
   * stopped it after its first iteration, and the calibration its releases used.
   */
  record ShareRun(CompletionModel model, CompletionPlan plan) {
    /** The noise of the releases made: all T iterations, or the first one when stopped. */
    List<BiasedAccount.Part> parts() {
      return plan.parts(model == null ? 1 : plan.iterations());
    }
  }

  /**
   * The private fit spending μ-GDP (a share of a larger budget), stopped after its first
   * iteration when {@code gated} and the first release fails the signal test λ̂₁² &lt; {@link
   * #signalThreshold}(σ, d): the caller then owns the unspent part μ·√((T − 1)/T) of the share.
   */
  static ShareRun fitShare(Ratings ratings, CompletionParams params, double mu, SecretKey key,
      String runLabel, boolean gated, IntConsumer progress) {
    Objects.requireNonNull(key, "key");
    checkMatches(ratings, params);
    int t = params.iterationsFor(ratings.users(), ratings.items());
    CompletionPlan plan = CompletionPlan.calibrate(params, t, ratings.items(), mu);
    return new ShareRun(run(ratings, params, t, global(ratings, params, plan, key, runLabel),
        "private-frank-wolfe", Optional.of(plan.account()), progress, gated), plan);
  }

  /**
   * The signal test's overlap term, 3/√2 ≈ 2.12 (of σ√d). A heuristic (docs/privacy/completion.md
   * §7) whose basis is the spiked Wigner model: for Ŵ = θ·u uᵀ + N, N symmetric Gaussian (σ per
   * entry, d×d), the noise alone has top eigenvalue ≈ 2σ√d (semicircle edge), and as d → ∞ a
   * spike θ &gt; σ√d shows as a top eigenvalue θ + σ²d/θ whose eigenvector has squared overlap
   * 1 − σ²d/θ² with u (Benaych-Georges and Nadakuditi 2011, Thm 2.1). Overlap² ≥ 1/2 — the
   * direction carries at least as much signal as noise — is θ ≥ √2·σ√d, a top eigenvalue ≥
   * (3/√2)·σ√d. W is not rank one and d is finite, so this is no guarantee.
   */
  static final double SIGNAL_GATE = 3 / Math.sqrt(2);

  /**
   * The signal test's finite-d term, of σ·d^(−1/6): the noise's top eigenvalue fluctuates about
   * 2σ√d on the scale σ·d^(−1/6) (Tracy–Widom, GOE edge), and 3.3 is about the upper 10⁻³ point
   * of TW₁. It matters for small d only: it sets the threshold for d &lt; 140.
   */
  static final double EDGE_QUANTILE = 3.3;

  /**
   * The signal test on the first release: λ̂₁² must reach max((3/√2)·σ√d, 2σ√d + 3.3·σ·d^(−1/6))
   * — a direction at least half signal, and a top eigenvalue that the noise alone reaches in
   * under 10⁻³ of draws (simulated for this noise, docs/privacy/signal_test_simulation.py:
   * 8.9·10⁻⁵ at d = 12, 2.4·10⁻⁴ at d = 40, 4.6·10⁻⁴ at d = 140 where the two terms are about
   * equal, none of 5,000 at d = 400). With the Oja solver λ̂₁² is instead the released
   * energy v̂ᵀW v̂ along the Oja direction (no σ²d/θ inflation) and σ that of W·v̂, so the same
   * threshold asks more of it.
   */
  static double signalThreshold(double sigma, int d) {
    return sigma * Math.max(SIGNAL_GATE * Math.sqrt(d),
        2 * Math.sqrt(d) + EDGE_QUANTILE * Math.pow(d, -1.0 / 6));
  }

  private static GlobalComponent global(Ratings ratings, CompletionParams params,
      CompletionPlan plan, SecretKey key, String runLabel) {
    Objects.requireNonNull(runLabel, "runLabel");
    String label = runLabel + "/completion";
    return params.solver() == EigenSolver.FULL
        ? GlobalComponent.full(ratings, params.privacy(), plan.eigen(), key, label)
        : GlobalComponent.oja(ratings, plan, key, label);
  }

  /** The non-private baseline: the same FW iterations with the exact top eigenpair. */
  public static CompletionModel fitNonPrivate(Ratings ratings, CompletionParams params) {
    checkMatches(ratings, params.withSolver(EigenSolver.FULL, params.ojaSteps()));
    int t = params.iterationsFor(ratings.users(), ratings.items());
    return run(ratings, params.withSolver(EigenSolver.FULL, params.ojaSteps()), t,
        GlobalComponent.exact(ratings), "frank-wolfe", Optional.empty(), done -> { }, false);
  }

  /**
   * The FULL solver materialises d(d+1)/2 exact 128-bit sums and noise draws and a dense d×d
   * eigen-decomposition per iteration; beyond this d that is minutes per iteration.
   */
  public static final int FULL_MAX_ITEMS = 2000;

  /**
   * The solver that works for d items: {@link EigenSolver#FULL} (Algorithm 1) up to {@link
   * #FULL_MAX_ITEMS}, else {@link EigenSolver#OJA} (Algorithm 2, linear in d per step). A
   * function of the public d only.
   */
  public static EigenSolver solverFor(int items) {
    return items <= FULL_MAX_ITEMS ? EigenSolver.FULL : EigenSolver.OJA;
  }

  private static void checkMatches(Ratings ratings, CompletionParams params) {
    if (ratings.items() > FULL_MAX_ITEMS && params.solver() == EigenSolver.FULL) {
      throw new IllegalArgumentException("the full eigen solver needs a dense d x d matrix; d = "
          + ratings.items() + " items is more than " + FULL_MAX_ITEMS
          + ": use the oja solver or keep the most-rated items");
    }
    if (ratings.maxPerUser() != params.maxRatingsPerUser() || ratings.clip() != params.clip()) {
      throw new IllegalArgumentException("ratings were bounded with xi = "
          + ratings.maxPerUser() + ", L = " + ratings.clip() + " but the parameters say xi = "
          + params.maxRatingsPerUser() + ", L = " + params.clip());
    }
  }

  private static CompletionModel run(Ratings ratings, CompletionParams params, int iterations,
      GlobalComponent global, String mechanism, Optional<CompletionAccount> account,
      IntConsumer progress, boolean gated) {
    int d = ratings.items();
    double k = params.nuclearNormFor(ratings.users(), d);
    double clip = params.clip();
    int[] cols = ratings.cols();
    double[] target = ratings.vals();
    double[] y = new double[target.length]; // Y_i^{(0)} = 0 on Ω
    double[] residual = new double[target.length];
    double[][] factors = new double[iterations][];
    double[] lambdaHat = new double[iterations];
    double[] lambdaPrime = new double[iterations];
    double correction = Math.sqrt(global.sigma() * Math.log(d / params.beta()))
        * Math.pow(d, 0.25);
    for (int t = 1; t <= iterations; t++) {
      for (int x = 0; x < y.length; x++) {
        residual[x] = y[x] - target[x]; // A^{(t−1)} = P_Ω(Y^{(t−1)} − Y*)
      }
      GlobalComponent.Eigenpair top = global.top(t, residual);
      if (t == 1 && gated && top.lambdaSquared() < signalThreshold(global.sigma(), d)) {
        return null;
      }
      factors[t - 1] = top.v();
      lambdaHat[t - 1] = Math.sqrt(Math.max(0, top.lambdaSquared()));
      lambdaPrime[t - 1] = lambdaHat[t - 1] + correction;
      for (int i = 0; i < ratings.users(); i++) {
        int s = ratings.start(i);
        LocalUpdate.step(cols, target, s, ratings.end(i) - s, y, top.v(), lambdaPrime[t - 1],
            iterations, k, clip, null, t);
      }
      progress.accept(t);
    }
    CompletionDiagnostics diagnostics = new CompletionDiagnostics(mechanism, params.solver(),
        iterations, params.solver() == EigenSolver.OJA ? params.ojaSteps() : 0, k, lambdaHat,
        account);
    return CompletionModel.of(d, params.maxRatingsPerUser(), clip, k, factors, lambdaPrime,
        diagnostics);
  }
}
