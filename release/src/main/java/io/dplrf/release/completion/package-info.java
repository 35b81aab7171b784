/**
 * Private matrix completion with joint differential privacy (Jain, Thakkar, Thakurta, ICML 2018 —
 * paper 004): private Frank–Wolfe (Algorithm 1) with a dense noisy eigen step or private Oja
 * (Algorithm 2), and its non-private twin as the baseline; and the biased model built on it
 * ({@link io.dplrf.release.completion.BiasedCompletion}: global offset, item biases, each
 * user's own bias, private Frank–Wolfe on the residuals, one (ε, δ) budget).
 *
 * <p>Public: {@link io.dplrf.release.completion.Ratings} (bounded sparse rows),
 * {@link io.dplrf.release.completion.CompletionParams},
 * {@link io.dplrf.release.completion.PrivateFrankWolfe} (the fits),
 * {@link io.dplrf.release.completion.CompletionModel} (the public model and the per-user local
 * component {@code predictUser}), its diagnostics and privacy account.
 *
 * <p>Unlike the rest of the release module this package sees raw data: it <em>is</em> a private
 * algorithm. All its noise is drawn by sketch-store's exact samplers (discrete Gaussian on a
 * power-of-two grid) from keyed streams; sums over users are exact (sketch-store {@code Gram},
 * {@code ExactSum}); privacy reasoning is in docs/privacy/completion.md. The global and local
 * components ({@code GlobalComponent}, {@code LocalUpdate}) and the calibration
 * ({@code CompletionPlan}) are package-private.
 */
package io.dplrf.release.completion;
