package io.dplrf.sketch.noise;

import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.randomness.RandomBits;
import java.util.Objects;

/**
 * The discrete Gaussian N_ℤ(0, s²) for an integer scale s: P[X = x] ∝ exp(−x²/(2s²)), x ∈ ℤ.
 * Sampled exactly by rejection from a discrete Laplace proposal, CKS Algorithm 3.
 *
 * <p><b>Choice of t.</b> CKS Algorithm 3 proposes Y ~ DLap(t) and accepts with probability
 * exp(−(|Y| − σ²/t)²/(2σ²)). Their correctness argument holds for every t > 0: the product
 * e^{−|y|/t}·e^{−(|y| − σ²/t)²/(2σ²)} = e^{−y²/(2σ²)}·e^{−σ²/(2t²)}, which is ∝ e^{−y²/(2σ²)}.
 * CKS fix t = ⌊σ⌋ + 1; we take t = σ = s, which (i) turns the acceptance exponent into
 * (|Y| − s)²/(2s²), a ratio of integers whose denominator 2s² fits a long, and (ii) maximises the
 * acceptance rate e^{−σ²/(2t²)}·Σ_y e^{−y²/(2σ²)} / Σ_y e^{−|y|/t} ≈ e^{−1/2}·√(2π)/2 ≈ 0.76 over
 * t (the large-σ approximation of the rate is maximised at t = σ), so about 1.3 proposals per
 * sample.
 *
 * <p><b>Arithmetic.</b> s ≤ 2^31 − 1, so 2s² < 2^63 is a positive long. The numerator (|Y| − s)²
 * can exceed 2^63 (|Y| is unbounded), so it is formed exactly as an unsigned 128-bit value
 * ({@code Math.multiplyHigh} plus the low product) and {@link ExactBernoulli#expMinus} reduces it
 * by repeated 128-bit subtraction. No floating point, no BigInteger.
 *
 * <p>Immutable and thread-safe (the {@link RandomBits} argument is not).
 */
public final class DiscreteGaussian {
  static final long MAX_SCALE = (1L << 31) - 1;

  private final long s;
  private final long twoS2;

  private DiscreteGaussian(long s) {
    this.s = s;
    this.twoS2 = 2 * s * s;
  }

  /**
   * N_ℤ(0, s²).
   *
   * @param s the scale (σ) in grid units, in [1, 2^31 − 1]
   */
  public static DiscreteGaussian withScale(long s) {
    Preconditions.check(s >= 1 && s <= MAX_SCALE, "s", "in [1, 2^31 - 1]", s);
    return new DiscreteGaussian(s);
  }

  public long scale() {
    return s;
  }

  public long sample(RandomBits bits) {
    Objects.requireNonNull(bits, "bits");
    while (true) {
      long y = DiscreteLaplace.sample(bits, s, 1);
      long a = Math.abs(y) - s; // |y| <= Long.MAX_VALUE (addExact in the proposal), so no overflow
      long lo = a * a;
      long hi = Math.multiplyHigh(a, a); // a² < 2^126: the signed high word is the unsigned one
      if (ExactBernoulli.expMinus(bits, hi, lo, twoS2)) {
        return y;
      }
    }
  }

  @Override
  public String toString() {
    return "DiscreteGaussian[s=" + s + "]";
  }
}
