package io.dplrf.sketch.lra;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.ChiSquare;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;

/**
 * Noise scales of the Priv2 mechanism (paper 002 §3): Y = AΦ + N1, Z = SA + N2, neighbours
 * ‖A − A'‖_F ≤ C.
 *
 * <p>Sensitivity. For a fixed difference D with ‖D‖_F ≤ C and Φ with i.i.d. N(0,1/t) entries,
 * ‖DΦ‖²_F = Σ_i s_i² χ²_{t,i}/t (s_i the singular values of D) — a mixture whose tail we bound
 * by the Chernoff quantile {@link ChiSquare#chernoffQuantileOfMean}, valid for every mixture
 * weight vector, at failure probability δ_JL/2; likewise ‖SD‖_F with v. The failure is charged
 * to δ by coupling the two runs on the same Φ (resp. S).
 *
 * <p>Calibration. Y and Z have independent noise; together they are μ-GDP with
 * μ² = μ_Y² + μ_Z² (Dong–Roth–Su Cor. 3.3), and μ is the largest value whose exact privacy
 * profile (Balle–Wang 2018 Thm 8) meets (ε, δ − δ_JL). The μ² budget is split equally.
 */
public record Priv2Plan(
    PrivacyParams privacy,
    double clip,
    SketchSizes sizes,
    double jlDeltaShare,
    double phiFactor,
    double sFactor,
    GaussianSketchNoise yNoise,
    GaussianSketchNoise zNoise) {

  public static Priv2Plan calibrate(PrivacyParams privacy, double clip, SketchSizes sizes) {
    return calibrate(privacy, clip, sizes, Priv1Plan.DEFAULT_JL_DELTA_SHARE);
  }

  public static Priv2Plan calibrate(
      PrivacyParams privacy, double clip, SketchSizes sizes, double jlDeltaShare) {
    double deltaJl = privacy.delta() * jlDeltaShare;
    double mu = AnalyticGaussian.mu(privacy.epsilon(), privacy.delta() - deltaJl);
    double phi = Math.sqrt(ChiSquare.chernoffQuantileOfMean(deltaJl / 2, sizes.t()));
    double s = Math.sqrt(ChiSquare.chernoffQuantileOfMean(deltaJl / 2, sizes.v()));
    double muEach = mu / Math.sqrt(2);
    GaussianSketchNoise y =
        GaussianSketchNoise.calibrate("Y", clip * phi, (long) sizes.m() * sizes.t(), muEach);
    GaussianSketchNoise z =
        GaussianSketchNoise.calibrate("Z", clip * s, (long) sizes.v() * sizes.n(), muEach);
    return new Priv2Plan(privacy, clip, sizes, jlDeltaShare, phi, s, y, z);
  }
}
