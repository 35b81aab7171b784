/**
 * The dplrf client library (artifact {@code dplrf-client}): what a producer runs on the user's
 * side so that raw data never leaves it, and the server's sum of what users send.
 *
 * <p>A {@link io.dplrf.client.LocalProtocol} holds the public parameters; there are two, whose
 * math differs — {@link io.dplrf.client.LocalPcaProtocol} (local-DP PCA, paper 002, Theorem 5
 * read with Corollary 1: Gaussian noise on x xᵀΦ, (ε, δ)) and {@link
 * io.dplrf.client.LocalRobustProtocol} (LOCAL-ROBUST-PCA, paper 001, Appendix C, Algorithm 3:
 * Laplace noise on public p-stable sketches, one user slot per user, pure ε). The rest is
 * written once for both: {@link io.dplrf.client.LocalRandomizer} (clip, sketch with the public
 * matrices, add the user's own noise), {@link io.dplrf.client.LocalReport} (protocol id, optional
 * slot, parts on their noise grids, {@link io.dplrf.client.ReportPart}) and its wire formats
 * {@link io.dplrf.client.LocalReportCodec}, and the server's {@link
 * io.dplrf.client.LocalAggregate}, which sums reports exactly and accepts nothing else.
 *
 * <p>May depend on the JDK and {@code sketch-store} only: no Kafka, no ojAlgo, no HTTP (enforced
 * by it-tests' LayeringTest). Public sketching matrices come from a
 * {@link io.dplrf.sketch.randomness.PublicSeed}; noise never does.
 */
package io.dplrf.client;
