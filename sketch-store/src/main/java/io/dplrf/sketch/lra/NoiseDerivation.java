package io.dplrf.sketch.lra;

import io.dplrf.sketch.noise.GaussianSampler;
import java.util.Objects;

/**
 * How a sketch turns its key and node label into noise ({@link NoisyLinearSketch}, "Noise
 * derivation"): the entries per keyed chunk of each part (0: one stream per part) and the exact
 * sampler that reads each stream. Every derivation draws the same law, so privacy does not depend
 * on it; but a node's noise is re-derived at each release, so a stream fixes its derivation when
 * it starts, records it in every snapshot and never changes it — otherwise a restored node would
 * publish a second, differently drawn noisy view.
 *
 * @param chunk entries per keyed chunk, {@code >= 0}; 0 = one stream per part
 * @param sampler the exact discrete Gaussian sampler
 */
public record NoiseDerivation(int chunk, GaussianSampler sampler) {
  /** Sketch format 1, tree formats 1–2: one stream per part, CKS sampler. */
  public static final NoiseDerivation ONE_STREAM = new NoiseDerivation(0, GaussianSampler.CKS);
  /** Sketch format 2, tree format 3: chunks of 2^16 entries, CKS sampler. */
  public static final NoiseDerivation CHUNKED_CKS =
      new NoiseDerivation(NoisyLinearSketch.NOISE_CHUNK, GaussianSampler.CKS);
  /** New streams (sketch format 3, tree format 4): chunks of 2^16, the blocked sampler. */
  public static final NoiseDerivation CURRENT =
      new NoiseDerivation(NoisyLinearSketch.NOISE_CHUNK, GaussianSampler.BLOCKED);

  public NoiseDerivation {
    if (chunk < 0) {
      throw new IllegalArgumentException("noise chunk must be >= 0, got " + chunk);
    }
    Objects.requireNonNull(sampler, "sampler");
  }
}
