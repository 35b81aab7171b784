package io.dplrf.sketch.stats;

/**
 * Test-only statistics: Pearson's chi-square statistic and its upper-tail probability
 * P[χ²_df ≥ x] = Q(df/2, x/2), the regularized upper incomplete gamma function (series below
 * x < a + 1, Lentz continued fraction above; Numerical Recipes §6.2). Accurate to ~1e-10, ample for
 * comparing p-values with a 1e-6 false-alarm threshold.
 */
public final class ChiSquare {
  private ChiSquare() {}

  /** Two-sided standard normal quantile for total false-alarm probability 1e-6. */
  public static final double Z_1E6_TWO_SIDED = 4.891638475699;

  /** Pearson's statistic Σ (observed − expected)² / expected. */
  public static double statistic(long[] observed, double[] expected) {
    double chi2 = 0;
    for (int i = 0; i < observed.length; i++) {
      double d = observed[i] - expected[i];
      chi2 += d * d / expected[i];
    }
    return chi2;
  }

  /** P[χ²_df ≥ x]. */
  public static double upperTail(double x, int df) {
    double a = df / 2.0;
    double z = x / 2.0;
    if (z <= 0) {
      return 1.0;
    }
    if (z < a + 1) {
      return 1.0 - lowerSeries(a, z);
    }
    return upperContinuedFraction(a, z);
  }

  private static double lowerSeries(double a, double x) {
    double ap = a;
    double sum = 1.0 / a;
    double del = sum;
    for (int n = 0; n < 10_000; n++) {
      ap += 1;
      del *= x / ap;
      sum += del;
      if (Math.abs(del) < Math.abs(sum) * 1e-16) {
        break;
      }
    }
    return sum * Math.exp(-x + a * Math.log(x) - logGamma(a));
  }

  private static double upperContinuedFraction(double a, double x) {
    double tiny = 1e-300;
    double b = x + 1 - a;
    double c = 1 / tiny;
    double d = 1 / b;
    double h = d;
    for (int i = 1; i < 10_000; i++) {
      double an = -i * (i - a);
      b += 2;
      d = an * d + b;
      if (Math.abs(d) < tiny) {
        d = tiny;
      }
      c = b + an / c;
      if (Math.abs(c) < tiny) {
        c = tiny;
      }
      d = 1 / d;
      double del = d * c;
      h *= del;
      if (Math.abs(del - 1) < 1e-16) {
        break;
      }
    }
    return Math.exp(-x + a * Math.log(x) - logGamma(a)) * h;
  }

  /** ln Γ(x), Lanczos approximation (g = 7, n = 9), relative error ~1e-15 for x > 0. */
  public static double logGamma(double x) {
    double[] c = {
      0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
      -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
      1.5056327351493116e-7
    };
    if (x < 0.5) {
      return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
    }
    x -= 1;
    double a = c[0];
    double t = x + 7.5;
    for (int i = 1; i < 9; i++) {
      a += c[i] / (x + i);
    }
    return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
  }

  /**
   * Standard normal CDF by composite Simpson integration of the density (independent of the AS241
   * code under test); absolute error below 1e-9 for any z.
   */
  public static double normalCdf(double z) {
    double a = Math.min(Math.abs(z), 9.0);
    int n = 800;
    double h = a / n;
    double sum = density(0) + density(a);
    for (int i = 1; i < n; i++) {
      sum += density(i * h) * ((i & 1) == 1 ? 4 : 2);
    }
    double half = sum * h / 3;
    return z >= 0 ? 0.5 + half : 0.5 - half;
  }

  private static double density(double x) {
    return Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
  }
}
