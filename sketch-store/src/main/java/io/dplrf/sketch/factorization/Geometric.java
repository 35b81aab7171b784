package io.dplrf.sketch.factorization;

/**
 * Finite geometric sums of a ratio x ∈ [0, 1), passed as its distance v = 1 − x to 1 so that
 * ratios within 2^−40 of 1 (buffer decays of streams with T up to 2^30) keep their relative
 * precision. Every BLT figure (docs/privacy/blt-factorization.md §3) is a positive combination of
 * these sums, so their relative error bounds that of the figure.
 *
 * <p>Error bounds, with u = 2^−53 (an ulp is at most 2u relative) and {@code StrictMath}'s fdlibm
 * functions within one ulp: {@link #oneMinusPower} is within 5u relative and {@link #sum} within
 * 6u: the exponent y = n·log1p(−v) carries 3u, which moves 1 − e^y by at most 3u relative because
 * |y|e^y/(1 − e^y) ≤ 1 for y ≤ 0; expm1 adds 2u, the division u. {@link #weightedSum} adds at
 * most 12u per binary digit of n, every step adding positive terms (≤ 372u = 4.2e−14 for
 * n &lt; 2^31). Deterministic on every JVM: only {@code StrictMath} and IEEE arithmetic.
 */
final class Geometric {
  private Geometric() {}

  /** 1 − x^n for x = 1 − v, v ∈ (0, 1], n ≥ 0: −expm1(n·log1p(−v)). */
  static double oneMinusPower(double v, long n) {
    if (n == 0) {
      return 0;
    }
    if (v == 1) {
      return 1;
    }
    return -StrictMath.expm1(n * StrictMath.log1p(-v));
  }

  /** G(x, n) = Σ_{m<n} x^m = (1 − x^n)/(1 − x) for x = 1 − v, v ∈ (0, 1], n ≥ 0. */
  static double sum(double v, long n) {
    return oneMinusPower(v, n) / v;
  }

  /**
   * H(x, n) = Σ_{m<n} (n − m)·x^m = Σ_{t=1..n} G(x, t) for x = 1 − v, v ∈ (0, 1], n ≥ 0.
   *
   * <p>The closed form ((n + 1) − G(x, n + 1))/v cancels when n·v ≪ 1, so H is built over the
   * binary digits of n from H(2k) = H(k)(1 + x^k) + k·G(k), G(2k) = G(k)(1 + x^k),
   * G(k + 1) = 1 + x·G(k), H(k + 1) = H(k) + G(k + 1), with x^k from {@link #oneMinusPower}:
   * sums of positive terms only.
   */
  static double weightedSum(double v, long n) {
    double x = 1 - v;
    double g = 0;
    double h = 0;
    long k = 0;
    for (int bit = 63 - Long.numberOfLeadingZeros(n); bit >= 0; bit--) {
      if (k > 0) {
        double onePlusPower = 2 - oneMinusPower(v, k);
        h = h * onePlusPower + k * g;
        g = g * onePlusPower;
        k *= 2;
      }
      if ((n >>> bit & 1) != 0) {
        g = 1 + x * g;
        h = h + g;
        k += 1;
      }
    }
    return h;
  }
}
