package io.dplrf.deploy.serve.completion;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.params.Preconditions;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How mode completion spends its privacy budget over repeated fits (docs/completion-service.md
 * §3), by the composition the algorithm itself uses. The operator gives a total (ε, δ) and R, the
 * most fits it must cover. One private Frank–Wolfe fit is a sequence of adaptively composed
 * Gaussian releases calibrated to μ-GDP for one user's ratings (io.dplrf.release.completion:
 * CompletionPlan; Dong–Roth–Su 2022 Thm 3.2/Cor 3.3), and μ-GDP is (ε, δ)-DP exactly when
 * δ(ε; μ) ≤ δ (Balle–Wang 2018 Thm 8; {@link AnalyticGaussian}). Fits compose the same way,
 * adaptively — also when a later fit sees more ratings: each fit is a function of the stream read
 * so far, and neighbouring streams differ in one user's records — so R fits of μ_run each are
 * √R·μ_run-GDP together.
 *
 * <p>Hence μ_total = {@link AnalyticGaussian#mu}(ε, δ) (the largest μ with δ(ε; μ) ≤ δ, lower
 * end of its bisection), μ_run = μ_total/√R, and each fit is given the (ε_run, δ) whose own
 * calibration yields at most μ_run: ε_run is the lower end of a bisection for δ(ε_run; μ_run) = δ,
 * where δ(ε_run; μ_run) &gt; δ, so that the largest μ with δ(ε_run; μ) ≤ δ is below μ_run
 * (δ(ε; μ) increases in μ). The runner checks the fit's reported μ against μ_run. Fit R + 1 is
 * refused, as the tree stops at epoch T.
 *
 * @param epsilon total ε over all R fits
 * @param delta total δ (each fit is run at this δ: GDP composes μ, not δ)
 * @param runs R
 */
record CompletionBudget(double epsilon, double delta, int runs) {

  CompletionBudget {
    Preconditions.checkPositiveFinite("epsilon", epsilon);
    Preconditions.checkOpenUnit("delta", delta);
    Preconditions.checkPositive("runs", runs);
  }

  double muTotal() {
    return AnalyticGaussian.mu(epsilon, delta);
  }

  /** The GDP parameter each fit may use at most. */
  double muPerRun() {
    return muTotal() / Math.sqrt(runs);
  }

  /** The ε each fit is given (at δ): its calibration then uses at most {@link #muPerRun}. */
  double epsilonPerRun() {
    return epsilonOf(muPerRun(), delta, false);
  }

  /** ε of the first {@code started} fits together, at δ (upper end: never understated). */
  double epsilonSpent(int started) {
    return started == 0 ? 0 : epsilonOf(muPerRun() * Math.sqrt(started), delta, true);
  }

  /**
   * The ε with δ(ε; μ) = δ, by bisection to 10⁻¹² relative width: the upper end (δ(ε; μ) ≤ δ:
   * a guarantee) or the lower end (δ(ε; μ) &gt; δ: a parameter to calibrate with).
   */
  static double epsilonOf(double mu, double delta, boolean upper) {
    double lo = 0;
    double hi = 1;
    while (AnalyticGaussian.delta(hi, mu) > delta) {
      lo = hi;
      hi *= 2;
    }
    while (hi - lo > 1e-12 * hi) {
      double mid = 0.5 * (lo + hi);
      if (AnalyticGaussian.delta(mid, mu) > delta) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return upper ? hi : lo;
  }

  /** The public description for /v1/status. */
  Map<String, Object> json(int started) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("epsilon", epsilon);
    m.put("delta", delta);
    m.put("runs", runs);
    m.put("runsStarted", started);
    m.put("runsLeft", Math.max(0, runs - started));
    m.put("muTotal", muTotal());
    m.put("muPerRun", muPerRun());
    m.put("epsilonPerRun", epsilonPerRun());
    m.put("epsilonSpent", epsilonSpent(Math.min(started, runs)));
    m.put("accounting", "Gaussian DP, as each fit's own calibration: mu_total = mu(epsilon,"
        + " delta) on the exact curve (Balle-Wang 2018); each fit gets mu_total/sqrt(R), i.e."
        + " (epsilonPerRun, delta); R adaptively composed fits give mu_total, hence (epsilon,"
        + " delta)-DP for one user's ratings (Dong-Roth-Su 2022); fit R+1 is refused. A fit"
        + " counts when it starts, finished or not.");
    return m;
  }
}
