/**
 * Noisy linear sketches for ℓ2 low-rank approximation (paper 002): Priv1 (Algorithm 1), Priv2,
 * and the dense input-perturbation baseline; and the robust ℓp family of paper 000 (ROBUST-LRA,
 * ROBUST-PCA: p-stable sketches, Laplace noise, entrywise-ℓ1 neighbours). A sketch is created with its noise already in it,
 * is updated by turnstile updates (Δ, i, j), merges by summation and hands the {@code release}
 * module an immutable bundle of released matrices. Nothing here does linear algebra beyond
 * additive updates.
 */
package io.dplrf.sketch.lra;
