/**
 * Continual release of the Priv2 sketches through a buffered linear Toeplitz (BLT) factorization
 * (docs/privacy/blt-release.md): {@link io.dplrf.sketch.continual.BltStream} takes turnstile
 * updates into one noiseless accumulator per epoch and, at each close, encodes the epoch with C's
 * d buffers, adds the epoch's exact discrete Gaussian noise, and decodes it into the noisy prefix
 * R_t; ranges are differences of stored prefixes. Its noise is fixed by {@link
 * io.dplrf.sketch.continual.BltPlan} (sens(T) of C, the matrices' factors, σ_Y, σ_Z) for the
 * settings of {@link io.dplrf.sketch.continual.BltConfig}. The binary tree ({@code
 * io.dplrf.sketch.tree}) stays the structure for priv1, the robust mechanisms and Frobenius
 * neighbours.
 *
 * <p>What may not live here: Kafka, HTTP, the factorization math (C, B, their figures, the choice
 * of parameters: {@code io.dplrf.sketch.factorization}), sampling code (the noise is drawn by
 * {@code GridGaussian} from {@code KeyStream}s, on {@code NoiseWorkers} threads), and any way to
 * draw an epoch's noise a second time with other values. The state arrays' binary format is
 * {@code SketchCodec}'s; the snapshot's is {@code BltCodec}'s.
 */
package io.dplrf.sketch.continual;
