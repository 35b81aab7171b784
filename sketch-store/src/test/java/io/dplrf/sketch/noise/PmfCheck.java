package io.dplrf.sketch.noise;

import io.dplrf.sketch.stats.ChiSquare;
import java.util.function.LongSupplier;
import java.util.function.LongToDoubleFunction;

/**
 * Chi-square goodness of fit of an integer sampler against an exact symmetric pmf given up to
 * normalisation. Bins: each integer in [−B, B] with the two end bins absorbing the tails, B the
 * largest x whose expected count is at least 20 (so the chi-square approximation holds).
 */
final class PmfCheck {
  private PmfCheck() {}

  /** Returns the p-value P[χ²_df ≥ observed statistic]. */
  static double pValue(LongSupplier sampler, LongToDoubleFunction unnormalisedPmf, int n, long support) {
    double total = 0;
    for (long x = -support; x <= support; x++) {
      total += unnormalisedPmf.applyAsDouble(x);
    }
    int b = 0;
    while (n * unnormalisedPmf.applyAsDouble(b + 1) / total >= 20) {
      b++;
    }
    int bins = 2 * b + 1;
    double[] expected = new double[bins];
    for (long x = -support; x <= support; x++) {
      int i = (int) (Math.max(-b, Math.min(b, x)) + b);
      expected[i] += n * unnormalisedPmf.applyAsDouble(x) / total;
    }
    long[] observed = new long[bins];
    for (int k = 0; k < n; k++) {
      long x = sampler.getAsLong();
      observed[(int) (Math.max(-b, Math.min(b, x)) + b)]++;
    }
    return ChiSquare.upperTail(ChiSquare.statistic(observed, expected), bins - 1);
  }
}
