package io.dplrf.sketch.lra;

/**
 * The noise of one noisy sketch, as released with every factorization: the per-entry standard
 * deviation of the added noise, the ℓ2 sensitivity it was calibrated to (already including the
 * grid-rounding slack of discrete noise), and the number of noisy entries.
 *
 * @param sketch the sketch's name in the paper's notation ("Yr", "Z", "Y", "A+N", ...)
 * @param sigma per-entry noise standard deviation (0 for a sketch without additive noise)
 * @param sensitivity ℓ2 sensitivity of the sketch under the mechanism's neighbouring relation
 * @param entries number of entries that carry noise
 */
public record NoiseScale(String sketch, double sigma, double sensitivity, long entries) {}
