package io.dplrf.sketch.noise;

import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.randomness.RandomBits;
import java.util.Objects;

/**
 * The discrete Laplace distribution on ℤ with rational scale b = t/s:
 * P[X = x] = (e^{1/b} − 1)/(e^{1/b} + 1) · e^{−|x|/b}. Sampled exactly by CKS Algorithm 2.
 *
 * <p>Arithmetic: t and s are at most 2^31 − 1. U < t and the product t·k of Algorithm 1 fit a
 * long unless k > 2^32 (and then {@link ExactBernoulli#ratio(RandomBits, long, long, long)}
 * switches to a product of trials). X = U + t·V overflows only if the geometric count V exceeds
 * 2^32, an event of probability e^{−2^32}; it is computed with {@code Math.*Exact}, so that event
 * would throw {@link ArithmeticException} rather than return a wrong value.
 *
 * <p>Immutable and thread-safe (the {@link RandomBits} argument is not).
 */
public final class DiscreteLaplace {
  static final long MAX_PARAMETER = (1L << 31) - 1;

  private final long t;
  private final long s;

  private DiscreteLaplace(long t, long s) {
    this.t = t;
    this.s = s;
  }

  /**
   * Discrete Laplace with scale numerator/denominator.
   *
   * @param numerator in [1, 2^31 − 1]
   * @param denominator in [1, 2^31 − 1]
   */
  public static DiscreteLaplace withScale(long numerator, long denominator) {
    Preconditions.check(numerator >= 1 && numerator <= MAX_PARAMETER,
        "numerator", "in [1, 2^31 - 1]", numerator);
    Preconditions.check(denominator >= 1 && denominator <= MAX_PARAMETER,
        "denominator", "in [1, 2^31 - 1]", denominator);
    return new DiscreteLaplace(numerator, denominator);
  }

  public long sample(RandomBits bits) {
    return sample(Objects.requireNonNull(bits, "bits"), t, s);
  }

  /**
   * CKS Algorithm 2 with scale t/s. Line by line: U uniform in {0..t−1}; accept U with
   * probability e^{−U/t}; V ~ Geometric(1 − e^{−1}) counted by Bernoulli(e^{−1}) successes;
   * X = U + t·V is then Geometric(1 − e^{−1/t}); Y = ⌊X/s⌋ is Geometric(1 − e^{−s/t}); a random
   * sign, rejecting (negative, 0) so that 0 is not counted twice.
   */
  static long sample(RandomBits bits, long t, long s) {
    while (true) {
      long u = bits.nextLongBelow(t);
      if (!ExactBernoulli.expMinusAtMostOne(bits, u, t)) {
        continue;
      }
      long v = 0;
      while (ExactBernoulli.expMinusOne(bits)) {
        v++;
      }
      long x = Math.addExact(u, Math.multiplyExact(t, v));
      long y = s == 1 ? x : x / s;
      boolean negative = bits.nextBoolean();
      if (negative && y == 0) {
        continue;
      }
      return negative ? -y : y;
    }
  }

  @Override
  public String toString() {
    return "DiscreteLaplace[scale=" + t + "/" + s + "]";
  }
}
