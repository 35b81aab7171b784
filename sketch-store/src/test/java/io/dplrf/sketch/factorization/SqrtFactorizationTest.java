package io.dplrf.sketch.factorization;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import org.junit.jupiter.api.Test;

class SqrtFactorizationTest {
  private static final double U = 0x1p-53;
  private final ToeplitzFactorization sqrt = ToeplitzFactorization.sqrt();

  @Test
  void coefficients_areCentralBinomialsOverFourToTheK_within2kUlps() {
    double[] c = sqrt.encoderCoefficients(300);
    for (int k = 0; k < c.length; k++) {
      BigDecimal exact = new BigDecimal(binomial(2 * k, k))
          .divide(new BigDecimal(BigInteger.valueOf(4).pow(k)), MathContext.DECIMAL128);
      assertEquals(exact.doubleValue(), c[k], 2 * (k + 1) * U * exact.doubleValue(), "k=" + k);
    }
  }

  @Test
  void squareOfC_isThePrefixSumMatrix() {
    // (C·C)[i, j] = Σ_{m ≤ i−j} c_m c_{i−j−m} = 1 on and below the diagonal: the convolution of
    // c with itself is all ones. Each term is within (2k + 1)u, the sum within k·u more.
    int n = 256;
    double[] c = sqrt.encoderCoefficients(n);
    for (int k = 0; k < n; k++) {
      double s = 0;
      for (int m = 0; m <= k; m++) {
        s += c[m] * c[k - m];
      }
      assertEquals(1, s, (4.0 * k + 2) * U, "k=" + k);
    }
  }

  @Test
  void figures_matchPrefixVariancePy() {
    // /work/shared/tools/prefix_variance.py prints 3.8, 5.7, 10.7 (worst) and 3.2, 5.0, 9.7
    // (mean); exact values from rational arithmetic (Python fractions), bound 3T·u relative.
    int[] epochs = {16, 64, 1024};
    double[] worst = {3.77866497242353515, 5.70659528450667483, 10.7096106664699040};
    double[] mean = {3.22854213102074277, 4.97145716792363857, 9.67079326530942376};
    for (int i = 0; i < epochs.length; i++) {
      int t = epochs[i];
      assertEquals(worst[i], sqrt.maxLoss(t), 3 * t * U * worst[i], "max T=" + t);
      assertEquals(mean[i], sqrt.meanLoss(t), 3 * t * U * mean[i], "mean T=" + t);
    }
    assertEquals(5.7, Math.round(sqrt.maxLoss(64) * 10) / 10.0, 0);
    assertEquals(10.7, Math.round(sqrt.maxLoss(1024) * 10) / 10.0, 0);
  }

  @Test
  void decoderIsTheEncoder_andPrefixVarianceIsTheRowNorm() {
    double[] b = sqrt.decoderCoefficients(100);
    assertEquals(java.util.Arrays.toString(sqrt.encoderCoefficients(100)),
        java.util.Arrays.toString(b));
    double s = 0;
    for (int t = 0; t <= 100; t++) {
      assertEquals(s, sqrt.prefixVariance(t), 0, "t=" + t);
      if (t < 100) {
        s += b[t] * b[t];
      }
    }
  }

  @Test
  void rangeVariance_isTheDifferenceOfTwoRowsOfB() {
    int n = 40;
    double[] b = sqrt.decoderCoefficients(n);
    for (int first = 1; first <= n; first++) {
      for (int last = first; last <= n; last++) {
        double dense = Dense.rangeVariance(b, first, last);
        assertEquals(dense, sqrt.rangeVariance(first, last), 1e-14 * dense,
            "[" + first + ", " + last + "]");
      }
    }
  }

  private static BigInteger binomial(int n, int k) {
    BigInteger r = BigInteger.ONE;
    for (int i = 0; i < k; i++) {
      r = r.multiply(BigInteger.valueOf(n - i)).divide(BigInteger.valueOf(i + 1));
    }
    return r;
  }
}
