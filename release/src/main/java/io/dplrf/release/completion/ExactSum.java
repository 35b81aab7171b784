package io.dplrf.release.completion;

import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.pca.RowClipping;
import io.dplrf.sketch.randomness.RandomBits;
import java.math.BigInteger;

/**
 * An exact sum of per-user contributions for the OJA queries (W·v and Σ(A_i·v)²), released with
 * grid Gaussian noise. As for {@code Gram} (sketch-store): a floating-point running sum would
 * make neighbouring sums differ by one user's contribution plus rounding errors that depend on
 * every other user, which no sensitivity bound covers. So each contribution is clipped to norm
 * ≤ B (a no-op in exact arithmetic: B is its proved bound), put on the fixed-point grid
 * q = 2^(⌊log₂B⌋ − 30) by rounding toward zero (|units| &lt; 2³¹), and summed exactly in longs
 * (fewer than 2³¹ users, so |sum| &lt; 2⁶²). Neighbouring sums then differ by exactly the
 * difference of one user's quantised contributions. Not thread-safe.
 */
final class ExactSum {
  private final long[] units;
  private final double bound;
  private final double q;

  ExactSum(int length, double bound) {
    this.units = new long[length];
    this.bound = bound;
    this.q = step(bound);
  }

  /** q = 2^(⌊log₂B⌋ − 30). */
  static double step(double bound) {
    return Math.scalb(1.0, Math.getExponent(bound) - 30);
  }

  /** Adds the sparse vector with entries {@code values[0..len)} at {@code idx[off..off+len)}. */
  void add(int[] idx, int off, double[] values, int len) {
    double[] x = java.util.Arrays.copyOf(values, len);
    RowClipping.clipInPlace(x, bound);
    for (int c = 0; c < len; c++) {
      units[idx[off + c]] += (long) (x[c] / q); // exact scaling; the cast rounds toward zero
    }
  }

  /**
   * Adds a scalar contribution to coordinate 0, clamped to [0, B]: after clamping and rounding
   * toward zero two users' contributions differ by at most B exactly.
   */
  void addNonNegative(double x) {
    double c = Math.max(0, Math.min(bound, x));
    units[0] += (long) (c / q);
  }

  /** The exact sum (NOT private: for the non-private baseline and tests). */
  double[] exact() {
    double[] out = new double[units.length];
    for (int j = 0; j < out.length; j++) {
      out[j] = units[j] * q; // exact: |units| < 2^62 needs no rounding beyond the double itself
    }
    return out;
  }

  /**
   * round_γ(sum) + γ·N_ℤ(0, s²) per coordinate (docs/privacy/README.md §2): the rounding is done
   * on the exact integers, so only the rounding slack of {@link GaussianSketchNoise} enters.
   */
  double[] release(GaussianSketchNoise noise, RandomBits bits) {
    GridGaussian grid = noise.grid();
    double gamma = grid.gamma();
    int shift = Math.getExponent(gamma) - Math.getExponent(q); // (units·q)/γ = units·2^-shift
    double[] out = new double[units.length];
    for (int j = 0; j < out.length; j++) {
      BigInteger k = roundShift(BigInteger.valueOf(units[j]), shift);
      long z = (long) (grid.sample(bits) / gamma); // exact: γ times an integer below 2^53
      out[j] = k.add(BigInteger.valueOf(z)).doubleValue() * gamma;
    }
    return out;
  }

  /** units·2^−shift rounded to the nearest integer, halves away from zero. */
  static BigInteger roundShift(BigInteger units, int shift) {
    if (shift <= 0) {
      return units.shiftLeft(-shift);
    }
    BigInteger mag = units.abs();
    BigInteger k = mag.shiftRight(shift);
    if (mag.testBit(shift - 1)) {
      k = k.add(BigInteger.ONE);
    }
    return units.signum() < 0 ? k.negate() : k;
  }
}
