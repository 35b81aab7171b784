/**
 * Keyed, reproducible randomness: the one place that turns the deployment's 32-byte
 * {@link io.dplrf.sketch.randomness.SecretKey} into random bits.
 *
 * <ul>
 *   <li>{@link io.dplrf.sketch.randomness.KeyStream}: per-label AES-256-CTR keystreams, random
 *       access by byte offset. Label {@code L} uses the AES key HMAC-SHA256(master, "dplrf/v1/" +
 *       L), so distinct labels are independent streams and no nonce is ever managed.
 *   <li>{@link io.dplrf.sketch.randomness.RandomBits}: the sequential bit source that exact noise
 *       samplers ({@code io.dplrf.sketch.noise}) consume.
 *   <li>{@link io.dplrf.sketch.randomness.GaussianMatrices}: sketching matrices (Φ, Ψ, S, T) whose
 *       entries are regenerated on demand from (key, label, entry index).
 *   <li>{@link io.dplrf.sketch.randomness.PublicSeed}: a published seed for sketching matrices
 *       that every party of a protocol regenerates (local-DP clients); its streams live in a
 *       separate label namespace and are never used for noise.
 *   <li>{@link io.dplrf.sketch.randomness.SecretKey#ephemeral()}: a fresh in-memory key from
 *       SecureRandom, for one-off private randomness (a local-DP client's own noise).
 * </ul>
 *
 * <p>What may not live here: additive privacy noise (that is {@code io.dplrf.sketch.noise}, which
 * uses exact integer arithmetic; the floating-point Gaussians of this package are fine for
 * sketching matrices, which are not a privacy mechanism by themselves), and any code that prints or
 * persists key bytes other than {@link io.dplrf.sketch.randomness.SecretKey#loadOrCreate}.
 */
package io.dplrf.sketch.randomness;
