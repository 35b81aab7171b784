package io.dplrf.sketch.lra;

import io.dplrf.sketch.noise.GridGaussian;

/**
 * The calibrated additive noise of one noisy sketch: discrete Gaussian noise on a power-of-two
 * grid (Canonne–Kamath–Steinke 2020) whose scale makes the sketch a μ-GDP mechanism for its
 * share μ of the mechanism's budget.
 *
 * <p>The released sketch is {@code roundToGrid(query) + γ·N_Z(0, s²)}. Rounding the query to
 * the grid can move two neighbouring queries apart by at most γ per changed coordinate, so the
 * ℓ2 sensitivity used is Δ = Δ₀ + γ·√k for k changed coordinates
 * ({@link GridGaussian#roundingSlack}); σ_eff = γ·s is chosen with Δ/σ_eff ≤ μ.
 *
 * @param sketch name in the paper's notation
 * @param baseSensitivity Δ₀, the sensitivity of the exact (real-valued) query
 * @param changedCoordinates how many coordinates one neighbouring change can touch
 * @param mu this sketch's GDP parameter (its share of the mechanism's budget)
 * @param grid the sampler: grid step and integer scale
 */
public record GaussianSketchNoise(
    String sketch, double baseSensitivity, long changedCoordinates, double mu, GridGaussian grid) {

  /** Calibrates σ so that (Δ₀ + γ√k)/σ_eff ≤ μ, re-choosing the grid until it is stable. */
  public static GaussianSketchNoise calibrate(
      String sketch, double baseSensitivity, long changedCoordinates, double mu) {
    if (!(baseSensitivity > 0) || !(mu > 0) || Double.isInfinite(baseSensitivity)) {
      throw new IllegalArgumentException(
          "cannot calibrate " + sketch + ": sensitivity " + baseSensitivity + ", mu " + mu);
    }
    double target = baseSensitivity / mu;
    for (int attempt = 0; attempt < 8; attempt++) {
      GridGaussian grid = GridGaussian.atLeast(target);
      double sensitivity =
          baseSensitivity + GridGaussian.roundingSlack(grid.gamma(), changedCoordinates);
      if (sensitivity / grid.effectiveSigma() <= mu) {
        return new GaussianSketchNoise(sketch, baseSensitivity, changedCoordinates, mu, grid);
      }
      target = sensitivity / mu;
    }
    throw new IllegalStateException("grid calibration did not settle for " + sketch);
  }

  /** Δ including the grid-rounding slack. */
  public double sensitivity() {
    return baseSensitivity + GridGaussian.roundingSlack(grid.gamma(), changedCoordinates);
  }

  public double sigma() {
    return grid.effectiveSigma();
  }

  public NoiseScale scale(long entries) {
    return new NoiseScale(sketch, sigma(), sensitivity(), entries);
  }
}
