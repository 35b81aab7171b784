package io.dplrf.sketch.noise;

import io.dplrf.sketch.params.Preconditions;

/**
 * Which exact sampler turns a bit stream into N_ℤ(0, s²) samples. Both draw exactly the same law,
 * so privacy does not depend on the choice; they read the stream differently, so the same bits
 * give different samples. A stream's noise is re-derived from its labels at every release, so the
 * sampler is fixed when the stream starts and recorded in its snapshots (the code below), and a
 * stream never changes sampler.
 */
public enum GaussianSampler {
  /** {@link DiscreteGaussian}: CKS Algorithm 3; streams of builds before the blocked sampler. */
  CKS(0),
  /** {@link BlockDiscreteGaussian}: blocked alias-table rejection, about 4.5 times faster. */
  BLOCKED(1);

  private final int code;

  GaussianSampler(int code) {
    this.code = code;
  }

  /** The stable code written to snapshots. */
  public int code() {
    return code;
  }

  /** The sampler a snapshot's code names. */
  public static GaussianSampler ofCode(int code) {
    for (GaussianSampler g : values()) {
      if (g.code == code) {
        return g;
      }
    }
    throw Preconditions.invalid("sampler code", "0 (CKS) or 1 (blocked)", code);
  }
}
