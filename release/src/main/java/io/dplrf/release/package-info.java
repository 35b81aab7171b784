/**
 * Release step of dplrf: turns released noisy sketches into a rank-k factorization U Σ Vᵀ plus a
 * {@link io.dplrf.release.UtilityReport}. Everything here is post-processing of already-private
 * outputs (paper 002, Algorithm 1 steps 3–6; the Priv2 variant; the dense baseline), so it has
 * no privacy cost and draws no randomness.
 *
 * <p>Public: {@link io.dplrf.release.Priv1Release}, {@link io.dplrf.release.Priv2Release},
 * {@link io.dplrf.release.Pca} (row-level PCA: top-k eigenvectors of a noisy Gram matrix, or the
 * top-k left singular vectors of a local-DP range sketch),
 * {@link io.dplrf.release.DenseRelease}, the result records and {@link io.dplrf.release.Errors}.
 *
 * <p>One exception to "post-processing only": {@link io.dplrf.release.SmoothSensitivityPca} runs
 * the non-private PCA oracle of paper 003's Algorithm 1 (exact eigenvectors and eigengap of the
 * exact Gram matrix, which only ojAlgo here can compute) and hands it straight to sketch-store's
 * {@code SmoothSensitivity}, which adds the noise; nothing else in this module sees raw data. The
 * ojAlgo glue ({@code Linalg}), the Gram-matrix SVD of tall matrices ({@code GramSvd}) and the
 * report formulas ({@code Reports}) are package-private. This is the only module that may import
 * ojAlgo (docs/design.md §1; LayeringTest enforces it); no ojAlgo type appears in the public API.
 * Random sketching matrices S and T are streamed column block by column block and never
 * materialised.
 */
package io.dplrf.release;
