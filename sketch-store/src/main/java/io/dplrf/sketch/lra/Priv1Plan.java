package io.dplrf.sketch.lra;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.ChiSquare;
import io.dplrf.sketch.calibration.CovarianceMechanism;
import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;

/**
 * Every noise scale of PRIVATE-OPTIMAL-LRF (paper 002, Algorithm 1) under Priv1 — neighbours
 * A' = A + C·u vᵀ, unit u, v — recomputed with exact calibration where the paper is loose.
 *
 * <h2>Budget</h2>
 *
 * The total δ is split into a JL share δ_JL (default 10%, three equal parts for Ψ, S, T) and
 * the mechanism's share δ − δ_JL. The three sketches use independent randomness (Φ; N1; N2), so
 * their privacy losses add:
 *
 * <ul>
 *   <li><b>Yc = ÂΦ</b> (no additive noise) is the covariance mechanism analysed exactly in
 *       {@link CovarianceMechanism}: r = C/σmin.
 *   <li><b>Yr = ΨÂ + N1</b>: Ψ is t×m with N(0,1/t) entries and Â' − Â = C·u (v;0)ᵀ, so the
 *       exact sensitivity is C‖Ψu‖, and t‖Ψu‖² ~ χ²_t for every fixed unit u. We bound it by the
 *       χ²_t upper quantile at δ_JL/3; the bad event is charged to δ (for a fixed pair of
 *       neighbours, couple both runs on the same Ψ: P[M(A) ∈ E] ≤ e^ε P[M(A') ∈ E] + δ_mech +
 *       P[Ψ bad]). Discrete noise adds the grid slack over the t·n changed coordinates.
 *   <li><b>Z = SÂTᵀ + N2</b>: sensitivity C‖Su‖‖T(v;0)‖, each factor bounded by its own χ²_v
 *       quantile at δ_JL/3; v² changed coordinates.
 * </ul>
 *
 * Yr and Z together are μ_G-GDP (Dong–Roth–Su Cor. 3.3: μ_G² = μ_Yr² + μ_Z², split equally);
 * {@link CovarianceMechanism#calibrate} finds the largest (r, μ_G) with fixed ratio whose exact
 * composed privacy profile meets (ε, δ − δ_JL).
 *
 * <p>Continual release ({@code compositions} = L, docs/privacy/continual-release.md §4): stacking
 * every node's Yc gives ONE covariance mechanism [A₁;…;A_N]Φ_top + σmin[G₁;…;G_N] on
 * Â_stack = (A_stack σmin·I), and one update changes A_stack by a rank-one matrix of norm
 * ≤ C·√L. So (r, μ_G) come from the same single-mechanism calibration, σmin_node = C·√L/r, and
 * each node's Yr and Z get μ_G/√(2L) (the 2L Gaussian sketches compose to μ_G). Then
 * {@link #covarianceR} = C·√L/σmin, not C/σmin. The JL bounds are on the shared Ψ, S, T and the
 * same u, v in every node: one event, δ_JL charged once. L = 1 is the one-shot plan.
 */
public record Priv1Plan(
    PrivacyParams privacy,
    double clip,
    SketchSizes sizes,
    double jlDeltaShare,
    double ycShare,
    double sigmaMin,
    double covarianceR,
    double achievedMechanismDelta,
    double psiNormBound,
    double sNormBound,
    double tNormBound,
    GaussianSketchNoise yrNoise,
    GaussianSketchNoise zNoise) {

  public static final double DEFAULT_JL_DELTA_SHARE = 0.1;
  public static final double DEFAULT_YC_SHARE = 1.0 / 3;

  public static Priv1Plan calibrate(PrivacyParams privacy, double clip, SketchSizes sizes) {
    return calibrate(privacy, clip, sizes, DEFAULT_JL_DELTA_SHARE, DEFAULT_YC_SHARE);
  }

  public static Priv1Plan calibrate(
      PrivacyParams privacy, double clip, SketchSizes sizes, double jlDeltaShare, double ycShare) {
    return calibrate(privacy, clip, sizes, jlDeltaShare, ycShare, 1);
  }

  /**
   * The plan of one node of a continual-release tree whose every update lands in at most
   * {@code compositions} nodes (the depth L); the whole tree then meets (ε, δ).
   */
  public static Priv1Plan calibrate(PrivacyParams privacy, double clip, SketchSizes sizes,
      double jlDeltaShare, double ycShare, int compositions) {
    Preconditions.checkPositive("compositions", compositions);
    double deltaJl = privacy.delta() * jlDeltaShare;
    double deltaMech = privacy.delta() - deltaJl;
    int t = sizes.t();
    int v = sizes.v();
    // ‖Ψu‖² ~ χ²_t / t for a fixed unit u (Ψ has i.i.d. N(0, 1/t) entries): exact tail.
    double psiBound = Math.sqrt(ChiSquare.upperQuantile(deltaJl / 3, t) / t);
    double sBound = Math.sqrt(ChiSquare.upperQuantile(deltaJl / 3, v) / v);
    double tBound = sBound; // T(v;0) has the same χ²_v / v law as S u.

    CovarianceMechanism.Calibration cal =
        CovarianceMechanism.calibrate(privacy.epsilon(), deltaMech, t, ycShare);
    // μ_G² split over Yr and Z × L nodes; the stacked Yc sees a change of norm C·√L
    // (continual-release.md §4).
    double muEach = cal.muGaussian() / Math.sqrt(2.0 * compositions);
    double stackedClip = clip * Math.sqrt(compositions);
    GaussianSketchNoise yr =
        GaussianSketchNoise.calibrate("Yr", clip * psiBound, (long) t * sizes.n(), muEach);
    GaussianSketchNoise z =
        GaussianSketchNoise.calibrate("Z", clip * sBound * tBound, (long) v * v, muEach);
    return new Priv1Plan(
        privacy, clip, sizes, jlDeltaShare, ycShare, stackedClip / cal.r(), cal.r(),
        cal.achievedDelta(), psiBound, sBound, tBound, yr, z);
  }

  /** The classic setting of the paper (Alg. 1 line 1) for comparison in reports. */
  public static double paperSigmaMin(PrivacyParams p, int t, double alpha, double clip) {
    double l = Math.log(1 / p.delta());
    return clip * 16 * l * Math.sqrt(t * (1 + alpha) / (1 - alpha) * l) / p.epsilon();
  }

  /** μ of the whole mechanism if it were a single Gaussian; for reports. */
  public double equivalentMu() {
    return AnalyticGaussian.mu(privacy.epsilon(), privacy.delta() * (1 - jlDeltaShare));
  }
}
