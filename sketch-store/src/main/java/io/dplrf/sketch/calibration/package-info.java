/**
 * Privacy calibration numerics: special functions (normal, χ², incomplete gamma), the analytic
 * Gaussian mechanism and Gaussian DP composition, the Laplace scale, and the privacy accountant of
 * the noiseless covariance sketch Yc = ÂΦ of paper 002 (Upadhyay 2018, Algorithm 1), and the
 * dilation bound of smooth-sensitivity Gaussian noise ({@link
 * io.dplrf.sketch.calibration.GaussianDilation}: how far a data-dependent scale may move).
 *
 * <p>Everything here is deterministic, pure and thread-safe: it turns (ε, δ) budgets into noise
 * scales and never touches data or randomness. What may not live here: sampling of noise (that is
 * the {@code randomness} package), and anything that reads a matrix.
 */
package io.dplrf.sketch.calibration;
