package io.dplrf.sketch.pca;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.params.PrivacyParams;

/**
 * Noise scale of Analyze Gauss (Dwork, Talwar, Thakurta, Zhang, "Analyze Gauss: Optimal Bounds
 * for Privacy-Preserving Principal Component Analysis", STOC 2014, Algorithm 1): release
 * AᵀA + E with E symmetric, its upper triangle (diagonal included) i.i.d. Gaussian.
 *
 * <p>Sensitivity (neighbours {@link io.dplrf.sketch.params.NeighbouringRelation#ONE_ROW}). The
 * query is the packed upper triangle u(AᵀA) ∈ ℝ^{d(d+1)/2}. Adding or removing a row x with
 * ‖x‖₂ ≤ C changes it by u(x xᵀ), and ‖u(x xᵀ)‖₂² = Σ_{i≤j} x_i² x_j² ≤ Σ_{i,j} x_i² x_j²
 * = ‖x xᵀ‖_F² = ‖x‖₂⁴, so Δ₂ ≤ C² (DTTZ 2014 use the same bound for unit rows). All
 * d(d+1)/2 coordinates may change, which sets the grid-rounding slack γ·√(d(d+1)/2)
 * (docs/privacy/README.md §2).
 *
 * <p>Calibration. One Gaussian mechanism, so σ = Δ/μ(ε, δ) with μ from the exact analytic
 * Gaussian profile (Balle–Wang 2018 Thm 8, {@link AnalyticGaussian#mu}) — tighter than DTTZ's
 * textbook σ = Δ·√(2 ln(1.25/δ))/ε. The noise is the exact discrete Gaussian on a power-of-two
 * grid (Canonne–Kamath–Steinke 2020), as for every other additive noise in dplrf.
 *
 * @param privacy (ε, δ) of the release
 * @param clip C, the row-norm bound
 * @param dimension d, the number of columns of A (public)
 * @param noise the calibrated noise of the d(d+1)/2 upper-triangle entries ("E")
 */
public record AnalyzeGaussPlan(
    PrivacyParams privacy, double clip, int dimension, GaussianSketchNoise noise) {

  public static AnalyzeGaussPlan calibrate(PrivacyParams privacy, double clip, int dimension) {
    Preconditions.checkPositiveFinite("clip", clip);
    Preconditions.checkPositive("dimension (d)", dimension);
    double mu = AnalyticGaussian.mu(privacy.epsilon(), privacy.delta());
    GaussianSketchNoise e = GaussianSketchNoise.calibrate(
        "E", clip * clip, Gram.packedLength(dimension), mu);
    return new AnalyzeGaussPlan(privacy, clip, dimension, e);
  }
}
