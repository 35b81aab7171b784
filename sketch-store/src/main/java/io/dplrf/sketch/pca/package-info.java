/**
 * Row-level private PCA (issue 6): the privacy unit is one row x of A (one user's feature vector),
 * added or removed, with ‖x‖₂ ≤ C after {@link io.dplrf.sketch.pca.RowClipping}. Here live the
 * exact Gram accumulator AᵀA of clipped rows, and the noise plans and noisy releases of the row
 * mechanisms: Analyze Gauss (Dwork, Talwar, Thakurta, Zhang, STOC 2014) and the Priv2 sketch of
 * AᵀA (paper 002, Corollary 1). Eigen-decompositions are post-processing and live in the
 * {@code release} module; nothing here does linear algebra beyond accumulating outer products.
 * May not depend on Kafka, HTTP or ojAlgo.
 */
package io.dplrf.sketch.pca;
