/**
 * The dplrf client library (artifact {@code dplrf-client}): what a producer runs on the user's
 * side so that raw data never leaves it. Today: local-DP PCA (paper 002, Theorem 5, read with
 * Corollary 1) — {@link io.dplrf.client.LocalPcaProtocol} (public parameters: seed, d, t, C, ε,
 * δ), {@link io.dplrf.client.LocalRandomizer} (clip, sketch with the public Φ, add the user's own
 * discrete Gaussian noise), {@link io.dplrf.client.LocalReport} and its wire format
 * {@link io.dplrf.client.LocalReportCodec}, and the server's
 * {@link io.dplrf.client.LocalPcaAggregate}, which sums reports and accepts nothing else. And
 * LOCAL-ROBUST-PCA (paper 001, Appendix C, Algorithm 3; pure ε-LDP, public p-stable matrices):
 * {@link io.dplrf.client.LocalRobustProtocol}, {@link io.dplrf.client.LocalRobustRandomizer},
 * {@link io.dplrf.client.LocalRobustReport} ({@link io.dplrf.client.LocalRobustReportCodec}) and
 * {@link io.dplrf.client.LocalRobustAggregate}, whose sums are ROBUST-PCA's sketches.
 *
 * <p>May depend on the JDK and {@code sketch-store} only: no Kafka, no ojAlgo, no HTTP (enforced
 * by it-tests' LayeringTest). Public sketching matrices come from a
 * {@link io.dplrf.sketch.randomness.PublicSeed}; noise never does.
 */
package io.dplrf.client;
