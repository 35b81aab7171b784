package io.dplrf.release.completion;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.Zcdp;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.pca.Gram;
import java.util.ArrayList;
import java.util.List;

/**
 * Noise calibration of private Frank–Wolfe (paper 004, Theorem 3.1; derivation in
 * docs/privacy/completion.md §2–3).
 *
 * <p><b>Sensitivities</b> (one user's row replaced; A_i = P_Ω(Y_i − Y*_i) with ‖P_Ω(Y_i)‖ ≤ L by
 * Π_{L,Ω} and ‖P_Ω(Y*_i)‖ ≤ L by clipping, so ‖A_i‖ ≤ 2L and the Gram rows are clipped to 2L):
 * <ul>
 *   <li>FULL, packed upper triangle of W = Σ A_iᵀA_i: a aᵀ − b bᵀ with ‖a‖, ‖b‖ ≤ 2L has
 *       Σ_{i≤j} D_ij² = ½(‖D‖_F² + Σ D_ii²) ≤ ‖a‖⁴ + ‖b‖⁴, so Δ = √2·(2L)² = 4√2·L²;
 *   <li>OJA, one step W v for a public unit v: (a aᵀ − b bᵀ) has eigenvalues in
 *       [−‖b‖², ‖a‖²] (Weyl), so ‖(a aᵀ − b bᵀ)v‖ ≤ 4L²; the eigenvalue query Σ (A_i·v)² changes
 *       by |(a·v)² − (b·v)²| ≤ 4L², exactly also after clamping each term to [0, 4L²]. W v gets
 *       a relative slack {@link #FLOAT_SLACK} for the floating-point per-user products a(a·v)
 *       and the clip, plus 2q√ξ for the fixed-point rounding of the exact sum
 *       ({@link ExactSum}).
 * </ul>
 *
 * <p><b>Calibration.</b> All releases are Gaussian mechanisms, adaptively composed, so the run
 * is μ-GDP with μ² = Σ μ_t² (Dong–Roth–Su 2022, Cor. 3.3 / Thm 3.2 adaptive) and (ε, δ)-DP
 * exactly when δ(ε; μ) ≤ δ (Balle–Wang 2018 Thm 8): μ = {@link AnalyticGaussian#mu}(ε, δ), split
 * evenly, μ_release = μ/√releases. The paper's zCDP route (ρ = μ²/2, ε = ρ + 2√(ρ ln 1/δ)) is
 * sound too but looser; it is reported in {@link CompletionAccount#epsilonZcdp}.
 */
final class CompletionPlan {
  /**
   * Relative slack on the OJA sensitivities for floating-point error in a(a·v) and in the clip
   * to 4L² (RowClipping's 10⁻⁹ margin, (ξ + 2)·2⁻⁵³ for ξ ≤ 10⁶): 2·(10⁻⁹ + 1.2·10⁻¹⁰) + 10⁻¹⁴
   * &lt; 10⁻⁸.
   */
  static final double FLOAT_SLACK = 1e-8;

  private final int iterations;
  private final int ojaSteps;
  private final EigenSolver solver;
  private final GaussianSketchNoise eigen; // W (FULL) or W·v (OJA)
  private final GaussianSketchNoise lambda; // OJA only; null for FULL
  private final CompletionAccount account;

  private CompletionPlan(int iterations, int ojaSteps, EigenSolver solver,
      GaussianSketchNoise eigen, GaussianSketchNoise lambda, CompletionAccount account) {
    this.iterations = iterations;
    this.ojaSteps = ojaSteps;
    this.solver = solver;
    this.eigen = eigen;
    this.lambda = lambda;
    this.account = account;
  }

  /** Per-user contribution bound of the OJA queries, 4L²: the scale of {@link ExactSum}. */
  static double ojaBound(double clip) {
    return 4 * clip * clip;
  }

  static CompletionPlan calibrate(CompletionParams p, int iterations, int items) {
    return calibrate(p, iterations, items,
        AnalyticGaussian.mu(p.privacy().epsilon(), p.privacy().delta()));
  }

  /**
   * The calibration for a run that spends μ-GDP in total (a share of a larger budget, as the
   * residual component of {@link BiasedCompletion}); {@link CompletionAccount#privacy} stays the
   * (ε, δ) of the whole budget.
   */
  static CompletionPlan calibrate(CompletionParams p, int iterations, int items, double mu) {
    double eps = p.privacy().epsilon();
    double delta = p.privacy().delta();
    double l2 = p.clip() * p.clip();
    int xi = p.maxRatingsPerUser();
    GaussianSketchNoise eigen;
    GaussianSketchNoise lambda = null;
    int releases;
    List<NoiseScale> scales = new ArrayList<>();
    if (p.solver() == EigenSolver.FULL) {
      releases = iterations;
      double muEach = mu / Math.sqrt(releases);
      long changed = Math.min(Gram.packedLength(items), (long) xi * (xi + 1));
      eigen = GaussianSketchNoise.calibrate("W", 4 * Math.sqrt(2) * l2, changed, muEach);
      scales.add(eigen.scale(Gram.packedLength(items)));
    } else {
      releases = Math.multiplyExact(iterations, p.ojaSteps() + 1);
      double muEach = mu / Math.sqrt(releases);
      double bound = ojaBound(p.clip());
      double q = ExactSum.step(bound);
      eigen = GaussianSketchNoise.calibrate("Wv", bound * (1 + FLOAT_SLACK)
          + 2 * q * Math.sqrt(xi), Math.min(items, 2L * xi), muEach);
      lambda = GaussianSketchNoise.calibrate("lambda2", bound, 1, muEach);
      scales.add(eigen.scale(items));
      scales.add(lambda.scale(1));
    }
    double rho = Zcdp.rhoOfGaussian(mu);
    double paperSigma = l2 * Math.sqrt(64 * iterations * Math.log(1 / delta)) / eps;
    CompletionAccount account = new CompletionAccount(p.privacy(), CompletionAccount.RELATION,
        "exact Gaussian-DP: mu(eps, delta) from the analytic Gaussian curve (Balle-Wang 2018), "
            + "split evenly over " + releases + " adaptively composed Gaussian releases "
            + "(Dong-Roth-Su 2022); discrete Gaussian on a power-of-two grid",
        releases, mu, mu / Math.sqrt(releases), rho, Zcdp.epsilon(rho, delta), scales,
        paperSigma);
    return new CompletionPlan(iterations, p.ojaSteps(), p.solver(), eigen, lambda, account);
  }

  /**
   * The noise of the releases made by {@code iterationsRun} iterations, each scale with its
   * number of releases: W once per iteration (FULL), or W·v̂ Γ times and λ̂² once (OJA).
   */
  List<BiasedAccount.Part> parts(int iterationsRun) {
    List<NoiseScale> n = account.noise();
    if (solver == EigenSolver.FULL) {
      return List.of(new BiasedAccount.Part(n.get(0), iterationsRun));
    }
    return List.of(new BiasedAccount.Part(n.get(0), (long) iterationsRun * ojaSteps),
        new BiasedAccount.Part(n.get(1), iterationsRun));
  }

  int iterations() {
    return iterations;
  }

  int ojaSteps() {
    return ojaSteps;
  }

  EigenSolver solver() {
    return solver;
  }

  GaussianSketchNoise eigen() {
    return eigen;
  }

  GaussianSketchNoise lambda() {
    return lambda;
  }

  CompletionAccount account() {
    return account;
  }
}
