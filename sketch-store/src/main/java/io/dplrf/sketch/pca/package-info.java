/**
 * Row-level private PCA: the privacy unit is one row x of A (one user's feature vector),
 * added or removed, with ‖x‖₂ ≤ C after {@link io.dplrf.sketch.pca.RowClipping}. Here live the
 * exact Gram accumulator AᵀA of clipped rows, and the noise plans and noisy releases of the row
 * mechanisms: Analyze Gauss (Dwork, Talwar, Thakurta, Zhang, STOC 2014), the Priv2 sketch of
 * AᵀA (paper 002, Corollary 1), and the smooth-sensitivity output perturbation of paper 003
 * (Gonen &amp; Gilad-Bachrach, Algorithm 1): {@link io.dplrf.sketch.pca.SubspaceSensitivity} (the
 * local and β-smooth sensitivity bounds that replace the paper's Theorem 5), {@link
 * io.dplrf.sketch.pca.SmoothSensitivityPlan} and {@link io.dplrf.sketch.pca.SmoothSensitivity},
 * derivation in docs/privacy/smooth-sensitivity.md.
 *
 * <p>Eigen-decompositions live in the {@code release} module (ojAlgo); for smooth sensitivity the
 * exact top-k eigenbasis and eigengap are computed there and handed back to {@link
 * io.dplrf.sketch.pca.SmoothSensitivity}, which checks the eigen-residuals before trusting them.
 * The only linear algebra here is accumulating outer products and orthonormalising the k×k
 * Gaussian of {@link io.dplrf.sketch.pca.HaarRotation}. May not depend on Kafka, HTTP or ojAlgo.
 */
package io.dplrf.sketch.pca;
