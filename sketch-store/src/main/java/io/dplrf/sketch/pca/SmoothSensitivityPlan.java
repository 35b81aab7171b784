package io.dplrf.sketch.pca;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.GaussianDilation;
import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.params.PrivacyParams;

/**
 * The data-independent calibration of the smooth-sensitivity output perturbation of paper 003
 * (Gonen &amp; Gilad-Bachrach, Algorithm 1, Corollaries 12 and 13), with constants derived in
 * docs/privacy/smooth-sensitivity.md §5 instead of the paper's Theorem 9. The noise is added to
 * ÛR ∈ ℝ^{d×k}, so it lives in D = d·k coordinates (the paper states the k = 1 case, D = d).
 *
 * <p><b>Split.</b> Both variants spend ε_s = ε/2 on sliding (the mean moves by at most the local
 * sensitivity, measured in noise units) and ε_d = ε/2 on dilation (the scale moves by a factor
 * e^{±β} between neighbours). A fixed, public choice.
 *
 * <ul>
 *   <li>{@link Variant#GAUSSIAN} ((ε, δ)-DP, §5.1): δ_s = δ/2 and δ_d = (δ/2)e^{−ε_s}, so that
 *       δ_s + e^{ε_s}δ_d = δ. Sliding: μ_s = μ(ε_s, δ_s) of the analytic Gaussian ({@link
 *       AnalyticGaussian#mu}); dilation: β = {@link GaussianDilation#maxBeta}(D, ε_d, δ_d).
 *       Noise σ = (U + γ√D)/μ_s per coordinate.
 *   <li>{@link Variant#CAUCHY} (pure ε-DP, §5.2): β = ε_d/D (each coordinate's density ratio
 *       under a scale change e^λ is within e^{±|λ|}); the sliding loss of an ℓ2 shift of size a
 *       (noise units) is ≤ 2D·asinh(a/(2√D)), so a_s = 2√D·sinh(ε_s/(2D)). Noise scale
 *       b = (U + γ√D)/a_s per coordinate.
 * </ul>
 *
 * <p><b>Grid.</b> The noise is exact discrete noise on the fixed grid γ = 2^−60 (a grid chosen
 * from the data-dependent scale would put neighbours' outputs on different lattices); rounding
 * ÛR to the grid adds at most γ√D to the ℓ2 shift (docs/privacy/README.md §2). The scale is
 * floored at 2^−40 (≥ 2^20 grid steps, which makes the discrete laws' normalising constants equal
 * the continuous ones to within e^{−2π·2^20}); max(·, floor) keeps the scale β-smooth.
 *
 * @param variant Gaussian (approximate DP) or Cauchy (pure DP)
 * @param epsilon total ε
 * @param delta total δ; 0 for the pure variant
 * @param clip C, the row-norm bound
 * @param dimension d
 * @param rank k
 * @param epsilonSliding ε_s
 * @param deltaSliding δ_s (0 for pure)
 * @param epsilonDilation ε_d
 * @param deltaDilation δ_d (0 for pure)
 * @param beta β, the smoothness of U(S) = max_j e^{−βj}A^{(j)}(S)
 * @param slidingFactor μ_s (Gaussian) or a_s (Cauchy): noise scale = (U + γ√D)/slidingFactor
 * @param gridStep γ
 * @param scaleFloor the smallest noise scale used
 */
public record SmoothSensitivityPlan(Variant variant, double epsilon, double delta, double clip,
    int dimension, int rank, double epsilonSliding, double deltaSliding, double epsilonDilation,
    double deltaDilation, double beta, double slidingFactor, double gridStep, double scaleFloor) {

  /** The noise family. */
  public enum Variant { GAUSSIAN, CAUCHY }

  /** γ = 2^−60. */
  public static final double GRID_STEP = 0x1.0p-60;
  /** Smallest noise scale, 2^−40 = 2^20 grid steps. */
  public static final double SCALE_FLOOR = 0x1.0p-40;

  public SmoothSensitivityPlan {
    Preconditions.checkPositiveFinite("epsilon", epsilon);
    Preconditions.checkPositiveFinite("clip", clip);
    Preconditions.checkPositive("dimension (d)", dimension);
    Preconditions.check(rank >= 1 && rank <= dimension, "rank (k)", "in 1..d = " + dimension, rank);
    Preconditions.check(variant == Variant.CAUCHY ? delta == 0 : delta > 0 && delta < 1,
        "delta", variant == Variant.CAUCHY ? "0 (pure DP)" : "in the open interval (0, 1)", delta);
    Preconditions.checkPositiveFinite("beta", beta);
    Preconditions.checkPositiveFinite("slidingFactor", slidingFactor);
  }

  /** The (ε, δ)-DP Gaussian variant (paper 003, Corollary 12). */
  public static SmoothSensitivityPlan gaussian(PrivacyParams privacy, double clip, int d, int k) {
    double eps = privacy.epsilon();
    double epsS = eps / 2;
    double epsD = eps - epsS;
    double deltaS = privacy.delta() / 2;
    double logDeltaD = Math.log(privacy.delta() / 2) - epsS; // δ_d underflows for ε_s > ~700
    long dims = noiseDimension(d, k);
    return new SmoothSensitivityPlan(Variant.GAUSSIAN, eps, privacy.delta(), clip, d, k, epsS,
        deltaS, epsD, Math.exp(logDeltaD), GaussianDilation.maxBetaForLogDelta(dims, epsD, logDeltaD),
        AnalyticGaussian.mu(epsS, deltaS), GRID_STEP, SCALE_FLOOR);
  }

  /** The pure ε-DP Cauchy-type variant (paper 003, Corollary 13). */
  public static SmoothSensitivityPlan cauchy(double epsilon, double clip, int d, int k) {
    Preconditions.checkPositiveFinite("epsilon", epsilon);
    double epsS = epsilon / 2;
    double epsD = epsilon - epsS;
    long dims = noiseDimension(d, k);
    double slide = 2 * Math.sqrt((double) dims) * Math.sinh(epsS / (2.0 * dims));
    return new SmoothSensitivityPlan(Variant.CAUCHY, epsilon, 0, clip, d, k, epsS, 0, epsD, 0,
        epsD / dims, slide, GRID_STEP, SCALE_FLOOR);
  }

  private static long noiseDimension(int d, int k) {
    Preconditions.checkPositive("dimension (d)", d);
    Preconditions.check(k >= 1 && k <= d, "rank (k)", "in 1..d = " + d, k);
    return (long) d * k;
  }

  /** D = d·k, the number of noisy coordinates. */
  public long noiseDimension() {
    return (long) dimension * rank;
  }

  /** γ√D, rounded up: what rounding ÛR to the grid can add to the ℓ2 shift. */
  public double roundingSlack() {
    return Math.nextUp(gridStep * Math.sqrt((double) noiseDimension()));
  }

  /**
   * The per-coordinate noise scale (σ, or the Cauchy scale b) for the smooth bound U:
   * max((U + γ√D)/slidingFactor, floor). A non-decreasing function of U that maps any two values
   * within a factor e^β to values within e^β, so it inherits U's smoothness.
   */
  public double noiseScale(double smoothBound) {
    Preconditions.check(smoothBound >= 0 && smoothBound < Double.POSITIVE_INFINITY,
        "smoothBound", ">= 0 and finite", smoothBound);
    return Math.max(Math.nextUp((smoothBound + roundingSlack()) / slidingFactor), scaleFloor);
  }
}
