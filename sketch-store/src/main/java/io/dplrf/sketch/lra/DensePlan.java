package io.dplrf.sketch.lra;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.params.PrivacyParams;

/**
 * Input perturbation A + N (the accuracy baseline): the identity query has ℓ2 sensitivity C
 * under ‖A − A'‖_F ≤ C (which contains Priv1), calibrated by the analytic Gaussian mechanism
 * (Balle–Wang 2018 Thm 8) plus the grid slack over all m·n coordinates.
 */
public record DensePlan(PrivacyParams privacy, double clip, int m, int n, GaussianSketchNoise noise) {
  public static DensePlan calibrate(PrivacyParams privacy, double clip, int m, int n) {
    double mu = AnalyticGaussian.mu(privacy.epsilon(), privacy.delta());
    return new DensePlan(
        privacy, clip, m, n, GaussianSketchNoise.calibrate("A+N", clip, (long) m * n, mu));
  }
}
