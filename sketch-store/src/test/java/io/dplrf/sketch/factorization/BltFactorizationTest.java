package io.dplrf.sketch.factorization;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class BltFactorizationTest {
  private static final double U = 0x1p-53;

  /** A generic set, one with a decay 1e−7 from 1, and an optimum for T = 1024 (17 digits). */
  private static final List<BltParameters> SETS = List.of(
      new BltParameters(new double[] {0.99, 0.9, 0.5}, new double[] {0.05, 0.1, 0.2}),
      new BltParameters(new double[] {1 - 1e-7, 0.9995, 0.97, 0.6},
          new double[] {0.002, 0.01, 0.05, 0.15}),
      new BltParameters(
          new double[] {0.9993883191713988, 0.9927763048842464, 0.9635478339845439,
              0.837474056398553, 0.4253157440526607},
          new double[] {0.032446967844455735, 0.04761933319861685, 0.0920918161741582,
              0.167534532433749, 0.15990722576922367}));

  /** An optimum for T = 2^20 with five buffers: decays up to 1 − 1.2e−6. */
  private static final BltParameters LONG = new BltParameters(
      new double[] {0.9999988229059321, 0.9999689577236092, 0.9994094707386545,
          0.9888859202523865, 0.8092612051422516},
      new double[] {0.00154102630888622, 0.005224502075712997, 0.02261589487264431,
          0.09709218000592852, 0.32916747353923764});

  @Test
  void encoderCoefficients_followTheDefinition() {
    for (BltParameters p : SETS) {
      double[] theta = p.theta();
      double[] omega = p.omega();
      double[] c = ToeplitzFactorization.blt(p).encoderCoefficients(300);
      assertEquals(1, c[0], 0);
      double[] power = new double[theta.length];
      java.util.Arrays.fill(power, 1);
      for (int k = 1; k < c.length; k++) {
        double s = 0;
        for (int i = 0; i < theta.length; i++) {
          s += omega[i] * power[i];
          power[i] *= theta[i];
        }
        // The running product is within k·u, exp(k·log1p) within (|k ln θ| + 4)u ≤ (k + 4)u.
        assertEquals(s, c[k], (2 * k + 8) * U * s, "k=" + k);
        assertTrue(c[k] > 0 && c[k] <= c[k - 1] && (k > 1 || c[1] < 1), "decreasing at " + k);
      }
    }
  }

  @Test
  void decoderTimesEncoder_isThePrefixSumMatrix() {
    int n = 200;
    for (BltParameters p : SETS) {
      ToeplitzFactorization f = ToeplitzFactorization.blt(p);
      double[] c = f.encoderCoefficients(n);
      double[] b = f.decoderCoefficients(n);
      double[][] product = Dense.multiply(Dense.toeplitz(b), Dense.toeplitz(c));
      // Entry (i, j) is Σ_m b_m c_{i−j−m} with b_m ≤ 1: rounding ≤ n·u·Σ c = n·u·C(1), C(1) ≤ n.
      double tolerance = 2 * n * U * sum(c);
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
          assertEquals(j <= i ? 1 : 0, product[i][j], tolerance, p + " (" + i + ", " + j + ")");
        }
      }
    }
  }

  @Test
  void decoderCoefficients_arePrefixSumsOfTheForwardSubstitutedInverse() {
    int n = 400;
    for (BltParameters p : SETS) {
      ToeplitzFactorization f = ToeplitzFactorization.blt(p);
      double[] c = f.encoderCoefficients(n);
      double[] dense = Dense.prefixSums(Dense.inverse(c));
      double[] b = f.decoderCoefficients(n);
      // Forward substitution: each entry rounds by ≤ k·u·Σc·max|ĉ| (|ĉ| ≤ 1), propagated through
      // C⁻¹ with ℓ1 gain < 2; the prefix sum adds n·u.
      double tolerance = 4 * n * U * sum(c);
      for (int k = 0; k < n; k++) {
        assertEquals(dense[k], b[k], tolerance, "k=" + k);
        assertTrue(b[k] > 0 && (k == 0 || b[k] <= b[k - 1]), "positive, decreasing at " + k);
      }
      assertEquals(1, b[0], 4 * U);
    }
  }

  @Test
  void closedForms_equalTheirSums_forEveryPrefix() {
    int n = 3000;
    for (BltParameters p : SETS) {
      ToeplitzFactorization f = ToeplitzFactorization.blt(p);
      double[] c = f.encoderCoefficients(n);
      double[] b = f.decoderCoefficients(n);
      double sensitivity = 0;
      double prefix = 0;
      double weighted = 0;
      for (int t = 1; t <= n; t++) {
        sensitivity += c[t - 1] * c[t - 1];
        prefix += b[t - 1] * b[t - 1];
        weighted += prefix;
        // Closed forms within a few hundred u; the running sums within t·u.
        double tolerance = (t + 400) * U;
        assertRelative(sensitivity, f.sensitivitySquared(t), tolerance, "sens² T=" + t);
        assertRelative(prefix, f.prefixVariance(t), tolerance, "prefix t=" + t);
        if (t % 97 == 1 || t == n) {
          assertRelative(weighted / t, f.meanPrefixVariance(t), tolerance, "mean T=" + t);
          assertRelative(sensitivity * prefix, f.maxLoss(t), 2 * tolerance, "max loss T=" + t);
          assertRelative(sensitivity * weighted / t, f.meanLoss(t), 2 * tolerance, "mean loss");
        }
      }
      assertEquals(0, f.prefixVariance(0), 0);
    }
  }

  @Test
  void closedForms_equalCompensatedSums_atTwoToTheTwenty() {
    int n = 1 << 20;
    ToeplitzFactorization f = ToeplitzFactorization.blt(LONG);
    double[] c = f.encoderCoefficients(n);
    double[] b = f.decoderCoefficients(n);
    Compensated sensitivity = new Compensated();
    Compensated prefix = new Compensated();
    Compensated weighted = new Compensated();
    for (int k = 0; k < n; k++) {
      sensitivity.add(c[k] * c[k]);
      prefix.add(b[k] * b[k]);
      weighted.add((double) (n - k) * b[k] * b[k]);
    }
    // Each coefficient is within ~10u (a positive mixture of exp(m·log1p(−u)) terms); the
    // compensated sums within 2u; the closed forms within a few hundred u.
    assertRelative(sensitivity.value(), f.sensitivitySquared(n), 1e-13, "sens²");
    assertRelative(prefix.value(), f.prefixVariance(n), 1e-13, "prefix");
    assertRelative(weighted.value() / n, f.meanPrefixVariance(n), 1e-13, "mean");
  }

  @Test
  void rangeVariance_isTheDifferenceOfTwoRowsOfB() {
    int n = 48;
    for (BltParameters p : SETS) {
      ToeplitzFactorization f = ToeplitzFactorization.blt(p);
      double[] b = f.decoderCoefficients(n);
      for (int first = 1; first <= n; first++) {
        for (int last = first; last <= n; last++) {
          double dense = Dense.rangeVariance(b, first, last);
          double range = f.rangeVariance(first, last);
          assertRelative(dense, range, (4 * n + 400) * U, "[" + first + ", " + last + "]");
          // 0 < b_{j+g} ≤ b_j, so P(g) ≤ range ≤ P(g) + P(first − 1) ≤ 2·P(T) (docs §3).
          int g = last - first + 1;
          assertTrue(range >= f.prefixVariance(g)
              && range <= f.prefixVariance(g) + f.prefixVariance(first - 1), "bounds");
        }
      }
      assertEquals(f.prefixVariance(17), f.rangeVariance(1, 17), 0);
    }
  }

  @Test
  void inverse_interlacesAndHasNegativeScales() {
    for (BltParameters p : SETS) {
      BltFactorization f = BltFactorization.of(p);
      double[] theta = p.theta();
      double[] uHat = f.inverseDecayDistances();
      double[] omegaHat = f.inverseScales();
      double c1 = 1;
      for (int i = 0; i < theta.length; i++) {
        double u = 1 - theta[i];
        assertTrue(u < uHat[i] && uHat[i] < (i + 1 < theta.length ? 1 - theta[i + 1] : 1),
            "interlacing at " + i);
        assertTrue(omegaHat[i] < 0, "negative scale at " + i);
        c1 += p.omega()[i] / u;
      }
      // b_∞ = 1/C(1) and b_0 = b_∞ + Σ r_j = 1.
      assertRelative(1 / c1, f.decoderLimit(), 1e-13, "b_inf");
      double b0 = f.decoderLimit();
      for (int j = 0; j < uHat.length; j++) {
        b0 += -omegaHat[j] / uHat[j];
      }
      assertEquals(1, b0, 1e-13);
    }
  }

  @Test
  void rootsOfTheParameters_recoverTheDecayPair() {
    double[] u = {1e-6, 3e-5, 2e-3, 0.04, 0.3};
    double[] uHat = {4e-6, 2e-4, 9e-3, 0.12, 0.7};
    BltFactorization pair = BltFactorization.ofDecays(u, uHat);
    BltFactorization solved = BltFactorization.of(pair.parameters());
    double[] found = solved.inverseDecayDistances();
    for (int j = 0; j < u.length; j++) {
      // θ = 1 − u rounds by ≤ u·2^−53 absolute, moving a root by about as much.
      assertRelative(uHat[j], found[j], 1e-9, "root " + j);
    }
    assertRelative(pair.maxLoss(1 << 20), solved.maxLoss(1 << 20), 1e-9, "loss");
  }

  @Test
  void figures_atTheLargestT_areFiniteAndOrdered() {
    ToeplitzFactorization f = ToeplitzFactorization.blt(SETS.get(1));
    int max = ToeplitzFactorization.MAX_EPOCHS;
    double previous = 0;
    for (int t = 1; t > 0 && t <= max; t *= 2) {
      double v = f.prefixVariance(t);
      assertTrue(Double.isFinite(v) && v > previous, "t=" + t);
      previous = v;
    }
    assertTrue(f.meanLoss(max) < f.maxLoss(max) && Double.isFinite(f.meanLoss(max)));
  }

  @Test
  void outOfRangeArguments_areRejectedWithHouseMessage() {
    ToeplitzFactorization f = ToeplitzFactorization.blt(SETS.get(0));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> f.sensitivitySquared(0));
    assertEquals("epochs must be in [1, 2^30]. Provided value: 0", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> f.maxLoss((1 << 30) + 1));
    assertThrows(IllegalArgumentException.class, () -> f.prefixVariance(-1));
    assertThrows(IllegalArgumentException.class, () -> f.rangeVariance(0, 3));
    assertThrows(IllegalArgumentException.class, () -> f.rangeVariance(4, 3));
    assertThrows(IllegalArgumentException.class, () -> f.decoderCoefficients(-1));
    assertThrows(IllegalArgumentException.class, () -> ToeplitzFactorization.blt(null));
  }

  private static double sum(double[] a) {
    double s = 0;
    for (double x : a) {
      s += x;
    }
    return s;
  }

  static void assertRelative(double expected, double actual, double bound, String what) {
    double error = Math.abs(actual - expected) / Math.abs(expected);
    assertTrue(error <= bound, what + ": " + actual + " vs " + expected + ", relative error "
        + error + " > " + bound);
  }

  /** Neumaier's compensated sum: within 2u of the exact sum of the terms. */
  static final class Compensated {
    private double sum;
    private double compensation;

    void add(double x) {
      double t = sum + x;
      compensation += Math.abs(sum) >= Math.abs(x) ? (sum - t) + x : (x - t) + sum;
      sum = t;
    }

    double value() {
      return sum + compensation;
    }
  }
}
