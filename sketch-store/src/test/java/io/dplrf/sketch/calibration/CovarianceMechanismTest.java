package io.dplrf.sketch.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class CovarianceMechanismTest {
  private static final double EPS = 1;
  private static final double DELTA = 1e-6;

  /**
   * Monte Carlo check of the quadrature: simulate the loss L (+ G) under P and under Q with a seeded
   * generator and estimate E_P[(1 − e^{ε−L})₊] = E_Q[(e^L − e^ε)₊]. Each comparison allows 5
   * standard errors: two-sided false-alarm rate 5.7e-7 per comparison (≤ 7e-6 for all 12).
   */
  @Test
  void delta_agreesWithMonteCarloUnderPAndQ() {
    long seed = 20180611L;
    Random rng = new Random(seed);
    int t = 5;
    int draws = 1_000_000;
    double r = 0.3;
    for (double theta : new double[] {0, 2.0, Math.PI}) {
      for (double muG : new double[] {0, 0.5}) {
        CovarianceLoss loss = CovarianceLoss.of(t, r, 1, theta);
        double exact = CovarianceMechanism.conservativeAt(EPS, t, r, 1, theta, muG);
        double mu1 = 1 / (1 + 2 * loss.c1);
        double mu2 = 1 / (1 + 2 * loss.c2);
        for (boolean underQ : new boolean[] {false, true}) {
          double sum = 0;
          double sumSq = 0;
          for (int i = 0; i < draws; i++) {
            double x1 = chiSquare(rng, t) * (underQ ? mu1 : 1);
            double x2 = chiSquare(rng, t) * (underQ ? mu2 : 1);
            double g = muG * rng.nextGaussian() + (underQ ? -0.5 : 0.5) * muG * muG;
            double l = loss.k + loss.c1 * x1 + loss.c2 * x2 + g;
            double f = underQ ? Math.max(0, Math.exp(l) - Math.exp(EPS))
                : Math.max(0, -Math.expm1(EPS - l));
            sum += f;
            sumSq += f * f;
          }
          double mean = sum / draws;
          double se = Math.sqrt((sumSq / draws - mean * mean) / draws);
          System.out.printf("MC t=%d r=%.2f theta=%.3f muG=%.1f %s: quadrature %.6e, MC %.6e ± %.1e%n",
              t, r, theta, muG, underQ ? "Q" : "P", exact, mean, se);
          assertEquals(exact, mean, 5 * se,
              "seed=" + seed + " theta=" + theta + " muG=" + muG + " underQ=" + underQ);
        }
      }
    }
  }

  private static double chiSquare(Random rng, int dof) {
    double s = 0;
    for (int i = 0; i < dof; i++) {
      double z = rng.nextGaussian();
      s += z * z;
    }
    return s;
  }

  @Test
  void delta_reducesToAnalyticGaussianAsRVanishes() {
    for (double muG : new double[] {0.2, 0.5, 1}) {
      assertEquals(AnalyticGaussian.delta(EPS, muG), CovarianceMechanism.delta(EPS, 10, 0, muG), 0);
      // The Yc loss has variance ≈ 2tr² = 2e-13 here, which moves δ by O(1e-13) relative.
      double small = CovarianceMechanism.delta(EPS, 10, 1e-7, muG);
      assertEquals(1, small / AnalyticGaussian.delta(EPS, muG), 1e-8, "muG=" + muG);
    }
  }

  @Test
  void delta_increasesInRAndInMuGaussian() {
    int t = 20;
    double[] rs = {0.005, 0.01, 0.02, 0.04, 0.08};
    double[] mus = {0, 0.1, 0.2, 0.4};
    double[][] d = new double[rs.length][mus.length];
    for (int i = 0; i < rs.length; i++) {
      for (int j = 0; j < mus.length; j++) {
        d[i][j] = CovarianceMechanism.delta(EPS, t, rs[i], mus[j]);
        if (i > 0) {
          assertTrue(d[i][j] > d[i - 1][j], "r " + rs[i] + " mu " + mus[j]);
        }
        if (j > 0) {
          assertTrue(d[i][j] > d[i][j - 1], "r " + rs[i] + " mu " + mus[j]);
        }
      }
    }
  }

  /** The supremum over |a| ≤ r, |x| ≤ 1 is attained on the boundary |a| = r, |x| = 1. */
  @Test
  void interiorOfTheFamily_isNeverWorseThanTheBoundary() {
    int t = 10;
    double r = 0.1;
    for (double muG : new double[] {0, 0.3}) {
      double sup = CovarianceMechanism.delta(EPS, t, r, muG);
      for (double rho : new double[] {0.25, 0.5, 0.75, 1}) {
        for (double xi : new double[] {0, 0.25, 0.5, 0.75, 1}) {
          if (rho == 1 && xi == 1) {
            continue;
          }
          for (int k = 0; k <= 12; k++) {
            double theta = Math.PI * k / 12;
            double v = CovarianceMechanism.conservativeAt(EPS, t, rho * r, xi, theta, muG);
            assertTrue(v <= sup * (1 + 1e-9),
                "rho=" + rho + " xi=" + xi + " theta=" + theta + ": " + v + " > " + sup);
          }
        }
      }
    }
  }

  @Test
  void worstAngle_isPi() {
    // a = −x: M has the eigenvalue (1 − r)² (variance shrinks), the other eigenvalues 1.
    for (int t : new int[] {1, 10, 100}) {
      double theta = CovarianceMechanism.worstAngle(EPS, t, 0.02, 1, 0.15);
      System.out.printf("worst angle t=%d: %.9f (pi - %.1e)%n", t, theta, Math.PI - theta);
      assertEquals(Math.PI, theta, 1e-6);
    }
  }

  @Test
  void calibrate_meetsTargetAndOnePercentMoreViolatesIt() {
    for (int t : new int[] {1, 10, 100}) {
      CovarianceMechanism.Calibration c = CovarianceMechanism.calibrate(EPS, DELTA, t, 0.5);
      assertTrue(c.achievedDelta() <= DELTA, c.toString());
      assertTrue(CovarianceMechanism.delta(EPS, t, c.r(), c.muGaussian()) <= DELTA);
      double over = CovarianceMechanism.delta(EPS, t, 1.01 * c.r(), 1.01 * c.muGaussian());
      assertTrue(over > DELTA, "t=" + t + " " + c + " over=" + over);
    }
  }

  @Test
  void calibrate_isFarBelowThePapersSigmaMin() {
    double alpha = 0.25;
    double lnInv = Math.log(1 / DELTA);
    for (int t : new int[] {10, 100, 400}) {
      CovarianceMechanism.Calibration c = CovarianceMechanism.calibrate(EPS, DELTA, t, 0.5);
      double ours = 1 / c.r(); // σmin for contribution bound C = 1
      // Paper 002, Algorithm 1 line 1: σmin = 16 ln(1/δ) √(t(1+α)(1−α)⁻¹ ln(1/δ)) / ε.
      double paper = 16 * lnInv * Math.sqrt(t * (1 + alpha) / (1 - alpha) * lnInv) / EPS;
      System.out.printf("t=%d: sigmaMin ours %.2f (muG %.4f), paper %.1f, ratio paper/ours %.0f%n",
          t, ours, c.muGaussian(), paper, paper / ours);
      assertTrue(ours < paper);
    }
  }
}
