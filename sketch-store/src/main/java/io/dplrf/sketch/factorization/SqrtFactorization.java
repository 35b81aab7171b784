package io.dplrf.sketch.factorization;

/**
 * C = B = A^{1/2}: c_k = binom(2k, k)/4^k, the coefficients of 1/√(1 − x), whose square is
 * 1/(1 − x), the generating function of A. Since B = A·C⁻¹ = A^{1/2} = C, every figure is a sum
 * over c. O(T) per figure.
 *
 * <p>Rounding: the recurrence c_k = c_{k−1}·(2k − 1)/(2k) adds at most 2u relative per step
 * (u = 2^−53), so c_k is within 2k·u, and every figure within 2T·u + T·u (the summation) of its
 * exact value: 1e−12 relative at T = 2^10, 3.5e−7 at T = 2^30.
 */
final class SqrtFactorization extends ToeplitzFactorization {
  static final SqrtFactorization INSTANCE = new SqrtFactorization();

  private SqrtFactorization() {}

  @Override
  public double[] encoderCoefficients(int n) {
    double[] c = new double[checkLength(n)];
    double ck = 1;
    for (int k = 0; k < n; k++) {
      if (k > 0) {
        ck = next(ck, k);
      }
      c[k] = ck;
    }
    return c;
  }

  @Override
  public double[] decoderCoefficients(int n) {
    return encoderCoefficients(n);
  }

  @Override
  public double sensitivitySquared(int epochs) {
    return sumOfSquares(checkEpochs(epochs));
  }

  @Override
  public double prefixVariance(int t) {
    return sumOfSquares(checkPrefix(t));
  }

  @Override
  public double rangeVariance(int first, int last) {
    checkRange(first, last);
    int g = last - first + 1;
    double lead = 1;
    for (int k = 1; k <= g; k++) {
      lead = next(lead, k);
    }
    double s = sumOfSquares(g);
    // (b_j − b_{j+g})² for j < first − 1, walking b_j and b_{j+g} together.
    double lag = 1;
    for (int j = 0; j < first - 1; j++) {
      double diff = lag - lead;
      s += diff * diff;
      lag = next(lag, j + 1);
      lead = next(lead, j + 1 + g);
    }
    return s;
  }

  @Override
  public double meanPrefixVariance(int epochs) {
    checkEpochs(epochs);
    double s = 0;
    double c = 1;
    for (int m = 0; m < epochs; m++) {
      if (m > 0) {
        c = next(c, m);
      }
      s += (double) (epochs - m) * c * c;
    }
    return s / epochs;
  }

  private static double sumOfSquares(int n) {
    double s = 0;
    double c = 1;
    for (int k = 0; k < n; k++) {
      if (k > 0) {
        c = next(c, k);
      }
      s += c * c;
    }
    return s;
  }

  /** c_k from c_{k−1}. */
  private static double next(double previous, int k) {
    return previous * ((2.0 * k - 1) / (2.0 * k));
  }
}
