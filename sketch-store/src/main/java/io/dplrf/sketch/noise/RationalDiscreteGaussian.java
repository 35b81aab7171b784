package io.dplrf.sketch.noise;

import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.randomness.RandomBits;
import java.math.BigInteger;
import java.util.Objects;

/**
 * The discrete Gaussian N_ℤ(0, σ²), P[X = x] ∝ exp(−x²/(2σ²)), for a rational σ² = num/den of any
 * size: CKS Algorithm 3 exactly as published (t = ⌊σ⌋ + 1, proposal the discrete Laplace DLap(t)
 * by CKS Algorithm 2, acceptance Bernoulli(exp(−(|Y| − σ²/t)²/(2σ²)))), in BigInteger arithmetic.
 *
 * <p>Why a second discrete Gaussian. {@link DiscreteGaussian} needs an integer scale below 2^31,
 * which {@link GridGaussian} reaches by choosing the grid step from σ. A smooth-sensitivity
 * mechanism ({@code io.dplrf.sketch.pca.SmoothSensitivity}) has a data-dependent σ, so its grid
 * step must be fixed in advance (a grid chosen from σ would make neighbouring inputs produce
 * outputs on different lattices); σ in grid units then ranges over many orders of magnitude and is
 * not an integer. Here σ² is any positive rational.
 *
 * <p>Acceptance exponent: with σ² = N/M, (|Y| − σ²/t)²/(2σ²) = (|Y|·M·t − N)²/(2·N·M·t²), a ratio
 * of integers handed to {@link BigExact#expMinus}. Correctness (CKS Thm 7 / Alg. 3): the proposal
 * and acceptance multiply to e^{−|y|/t}·e^{−(|y| − σ²/t)²/(2σ²)} = e^{−y²/(2σ²)}·e^{−σ²/(2t²)} ∝
 * e^{−y²/(2σ²)}. Expected proposals per sample ≤ 1/0.7 for σ ≥ 1 (CKS).
 *
 * <p>Immutable and thread-safe (the {@link RandomBits} argument is not).
 */
public final class RationalDiscreteGaussian {
  private final BigInteger num;
  private final BigInteger den;
  private final BigInteger t;
  private final BigInteger twoNumDenT2;

  private RationalDiscreteGaussian(BigInteger num, BigInteger den) {
    this.num = num;
    this.den = den;
    this.t = BigExact.floorSqrt(num, den).add(BigInteger.ONE);
    this.twoNumDenT2 = num.multiply(den).multiply(t).multiply(t).shiftLeft(1);
  }

  /** N_ℤ(0, num/den). */
  public static RationalDiscreteGaussian withVariance(BigInteger num, BigInteger den) {
    Objects.requireNonNull(num, "num");
    Objects.requireNonNull(den, "den");
    Preconditions.check(num.signum() > 0, "num", "> 0", num);
    Preconditions.check(den.signum() > 0, "den", "> 0", den);
    return new RationalDiscreteGaussian(num, den);
  }

  /** N_ℤ(0, s²) for a positive double s, taken exactly (s² = M²·2^{2e}). */
  public static RationalDiscreteGaussian withScale(double s) {
    BigInteger[] sq = BigExact.squareOf("s", s);
    return new RationalDiscreteGaussian(sq[0], sq[1]);
  }

  public BigInteger sample(RandomBits bits) {
    Objects.requireNonNull(bits, "bits");
    while (true) {
      BigInteger y = discreteLaplace(bits, t);
      BigInteger a = y.abs().multiply(den).multiply(t).subtract(num);
      if (BigExact.expMinus(bits, a.multiply(a), twoNumDenT2)) {
        return y;
      }
    }
  }

  /**
   * DLap(t), P[Y = y] ∝ e^{−|y|/t}: CKS Algorithm 2 with scale t/1. U uniform in {0..t−1},
   * accepted with probability e^{−U/t}; V ~ Geometric(1 − e^{−1}); X = U + t·V is
   * Geometric(1 − e^{−1/t}); a random sign, rejecting (negative, 0).
   */
  static BigInteger discreteLaplace(RandomBits bits, BigInteger t) {
    while (true) {
      BigInteger u = BigExact.uniformBelow(bits, t);
      if (!BigExact.expMinusAtMostOne(bits, u, t)) {
        continue;
      }
      long v = 0;
      while (ExactBernoulli.expMinusOne(bits)) {
        v++;
      }
      BigInteger x = u.add(t.multiply(BigInteger.valueOf(v)));
      boolean negative = bits.nextBoolean();
      if (negative && x.signum() == 0) {
        continue;
      }
      return negative ? x.negate() : x;
    }
  }

  @Override
  public String toString() {
    return "RationalDiscreteGaussian[sigma^2=" + num + "/" + den + "]";
  }
}
