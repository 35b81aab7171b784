package io.dplrf.sketch.noise;

import io.dplrf.sketch.params.Preconditions;

/**
 * A grid step γ = 2^e and an integer scale s with s·γ ≥ target, s ∈ [2^K, 2^(K+1)), K = {@value
 * #K}. Shared by {@link GridGaussian} and {@link GridLaplace}.
 *
 * <p>Why K = 30: the exact samplers need 2s² < 2^63 (DiscreteGaussian), i.e. s < 2^31 = 2^(K+1);
 * K = 30 is the largest K that allows, and it makes the overshoot s·γ − target < γ ≤ target·2^−30
 * (relative 9.3e-10) and the grid rounding slack γ√k negligible. The samplers' cost does not grow
 * with s (uniform integers come from one 64-bit word), so the largest K costs nothing in speed.
 */
record PowerOfTwoGrid(int exponent, double gamma, long scale) {
  static final int K = 30;
  static final double MIN_TARGET = 0x1.0p-992; // γ = 2^(e) must be a normal double: e >= -1022
  static final double MAX_TARGET = 0x1.0p960; // keeps γ·(any plausible sample) far from overflow

  static PowerOfTwoGrid fit(String name, double target) {
    Preconditions.check(target >= MIN_TARGET && target <= MAX_TARGET,
        name, "in [2^-992, 2^960]", target);
    // target ∈ [2^m, 2^(m+1)) with m = getExponent; γ = 2^(m−K) puts target/γ in [2^K, 2^(K+1)).
    int e = Math.getExponent(target) - K;
    double gamma = Math.scalb(1.0, e);
    long s = (long) Math.ceil(target / gamma); // target/γ is exact: scaling by a power of two
    if (s == 1L << (K + 1)) {
      // ceil reached the top of the range: the same value on the next coarser grid.
      e++;
      gamma *= 2;
      s = 1L << K;
    }
    return new PowerOfTwoGrid(e, gamma, s);
  }

  /** γ·x, exact: |x| < 2^53 (checked) and γ a power of two. */
  double scaled(long x) {
    if (Math.abs(x) >= (1L << 53)) {
      // Probability below exp(-2^45) for the samplers here; refuse rather than round.
      throw new ArithmeticException("sample " + x + " not exactly representable on the grid");
    }
    return gamma * x;
  }

  static void checkPowerOfTwo(double gamma) {
    Preconditions.check(gamma > 0 && gamma <= Double.MAX_VALUE
            && gamma >= Double.MIN_NORMAL
            && gamma == Math.scalb(1.0, Math.getExponent(gamma)),
        "gamma", "a positive normal power of two", gamma);
  }
}
