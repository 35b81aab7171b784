package io.dplrf.sketch.calibration;

import static io.dplrf.sketch.params.Preconditions.check;

/**
 * The standard normal distribution: Φ, its upper tail Φ(−x) and log-tail with full relative
 * accuracy deep in the tail, and the quantile Φ⁻¹.
 *
 * <p>Φ follows W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp.
 * 23 (1969) 631–637, in the three-range form of ACM TOMS Algorithm 715 (the form R's {@code
 * pnorm} uses): relative error near double precision in each tail. The quantile is Wichura's
 * Algorithm AS 241 (PPND16), Appl. Statist. 37 (1988) 477–484, relative accuracy about 1e-16.
 * Thread-safe, stateless.
 */
public final class Normal {
  private Normal() {}

  /** 1/√(2π). */
  private static final double INV_SQRT_2PI = 0.398942280401432677939946059934;
  /** ½·ln(2π). */
  private static final double LN_SQRT_2PI = 0.918938533204672741780329736406;
  /** Cody's split between the central and the intermediate range: Φ⁻¹(3/4) (TOMS 715). */
  private static final double SPLIT_CENTRAL = 0.67448975;
  /** Cody's split between the intermediate and the asymptotic range: √32 (TOMS 715). */
  private static final double SPLIT_TAIL = 5.656854249492380195206754896838;

  // Cody (1969) / TOMS 715 coefficients, central range |x| ≤ 0.674...
  private static final double[] A = {
    2.2352520354606839287, 161.02823106855587881, 1067.6894854603709582,
    18154.981253343561249, 0.065682337918207449113
  };
  private static final double[] B = {
    47.20258190468824187, 976.09855173777669322, 10260.932208618978205, 45507.789335026729956
  };
  // Intermediate range 0.674 < |x| ≤ √32.
  private static final double[] C = {
    0.39894151208813466764, 8.8831497943883759412, 93.506656132177855979,
    597.27027639480026226, 2494.5375852903726711, 6848.1904505362823326,
    11602.651437647350124, 9842.7148383839780218, 1.0765576773720192317e-8
  };
  private static final double[] D = {
    22.266688044328115691, 235.38790178262499861, 1519.377599407554805,
    6485.558298266760755, 18615.571640885098091, 34900.952721145977266,
    38912.003286093271411, 19685.429676859990727
  };
  // Asymptotic range |x| > √32: Φ(−x) = φ(x)/x · (1 − R(1/x²)).
  private static final double[] P = {
    0.21589853405795699, 0.1274011611602473639, 0.022235277870649807,
    0.001421619193227893466, 2.9112874951168792e-5, 0.02307344176494017303
  };
  private static final double[] Q = {
    1.28426009614491121, 0.468238212480865118, 0.0659881378689285515,
    0.00378239633202758244, 7.29751555083966205e-5
  };

  /** Φ(x) = P[Z ≤ x]. */
  public static double cdf(double x) {
    return upperTail(-x);
  }

  /** Φ(−x) = P[Z > x], with full relative accuracy for large positive x (until underflow near 38.5). */
  public static double upperTail(double x) {
    checkNotNaN(x);
    double y = Math.abs(x);
    if (y <= SPLIT_CENTRAL) {
      return 0.5 - x * central(x * x);
    }
    double tail = expMinusHalfSquare(y) * (y <= SPLIT_TAIL ? intermediate(y) : asymptotic(y));
    return x > 0 ? tail : 1.0 - tail;
  }

  /** ln Φ(−x), finite for every finite x (the asymptotic series does not underflow). */
  public static double logUpperTail(double x) {
    checkNotNaN(x);
    double y = Math.abs(x);
    if (x > SPLIT_TAIL) {
      return -0.5 * x * x + Math.log(asymptotic(x));
    }
    if (x > SPLIT_CENTRAL) {
      return -0.5 * x * x + Math.log(intermediate(x));
    }
    if (y <= SPLIT_CENTRAL) {
      return Math.log(0.5 - x * central(x * x));
    }
    return Math.log1p(-upperTail(y)); // x < −0.674: Φ(−x) = 1 − Φ(x) with Φ(x) < 1/4
  }

  /**
   * Φ⁻¹(p) by Wichura's AS 241 (PPND16). p = 0 and p = 1 give ∓∞.
   *
   * @throws IllegalArgumentException if p is not in [0, 1]
   */
  public static double quantile(double p) {
    check(p >= 0 && p <= 1, "p", "in [0, 1]", p);
    if (p == 0) {
      return Double.NEGATIVE_INFINITY;
    }
    if (p == 1) {
      return Double.POSITIVE_INFINITY;
    }
    double q = p - 0.5;
    if (Math.abs(q) <= 0.425) {
      double r = 0.180625 - q * q;
      return q * (((((((2509.0809287301226727 * r + 33430.575583588128105) * r
          + 67265.770927008700853) * r + 45921.953931549871457) * r
          + 13731.693765509461125) * r + 1971.5909503065514427) * r
          + 133.14166789178437745) * r + 3.387132872796366608)
          / (((((((5226.495278852854561 * r + 28729.085735721942674) * r
          + 39307.89580009271061) * r + 21213.794301586595867) * r
          + 5394.1960214247511077) * r + 687.1870074920579083) * r
          + 42.313330701600911252) * r + 1.0);
    }
    double r = Math.sqrt(-Math.log(q < 0 ? p : 1.0 - p));
    double val;
    if (r <= 5.0) {
      r -= 1.6;
      val = (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r
          + 0.24178072517745061177) * r + 1.27045825245236838258) * r
          + 3.64784832476320460504) * r + 5.7694972214606914055) * r
          + 4.6303378461565452959) * r + 1.42343711074968357734)
          / (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r
          + 0.0151986665636164571966) * r + 0.14810397642748007459) * r
          + 0.68976733498510000455) * r + 1.6763848301838038494) * r
          + 2.05319162663775882187) * r + 1.0);
    } else {
      r -= 5.0;
      val = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r
          + 0.0012426609473880784386) * r + 0.026532189526576123093) * r
          + 0.29656057182850489123) * r + 1.7848265399172913358) * r
          + 5.4637849111641143699) * r + 6.6579046435011037772)
          / (((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r
          + 1.8463183175100546818e-5) * r + 7.868691311456132591e-4) * r
          + 0.0148753612908506148525) * r + 0.13692988092273580531) * r
          + 0.59983220655588793769) * r + 1.0);
    }
    return q < 0 ? -val : val;
  }

  /** ln φ(x) = −x²/2 − ln √(2π). */
  static double logDensity(double x) {
    return -0.5 * x * x - LN_SQRT_2PI;
  }

  /** (Φ(x) − 1/2)/x on the central range, Cody's first rational function in x². */
  private static double central(double xsq) {
    double num = A[4] * xsq;
    double den = xsq;
    for (int i = 0; i < 3; i++) {
      num = (num + A[i]) * xsq;
      den = (den + B[i]) * xsq;
    }
    return (num + A[3]) / (den + B[3]);
  }

  /** Φ(−y)·e^{y²/2} for 0.674 < y ≤ √32. */
  private static double intermediate(double y) {
    double num = C[8] * y;
    double den = y;
    for (int i = 0; i < 7; i++) {
      num = (num + C[i]) * y;
      den = (den + D[i]) * y;
    }
    return (num + C[7]) / (den + D[7]);
  }

  /** Φ(−y)·e^{y²/2} for y > √32 (asymptotic rational in 1/y²). */
  private static double asymptotic(double y) {
    double xsq = 1.0 / (y * y);
    double num = P[5] * xsq;
    double den = xsq;
    for (int i = 0; i < 4; i++) {
      num = (num + P[i]) * xsq;
      den = (den + Q[i]) * xsq;
    }
    double r = xsq * (num + P[4]) / (den + Q[4]);
    return (INV_SQRT_2PI - r) / y;
  }

  /**
   * exp(−y²/2) as Cody computes it (TOMS 715, the "del" trick): split y = ysq + (y − ysq) with ysq
   * a multiple of 1/16, so ysq² is exact and the two factors keep their relative accuracy; a single
   * exp(−y²/2) would lose about y² ulps to the rounding of y².
   */
  private static double expMinusHalfSquare(double y) {
    double ysq = Math.floor(y * 16.0) / 16.0;
    double del = (y - ysq) * (y + ysq);
    return Math.exp(-0.5 * ysq * ysq) * Math.exp(-0.5 * del);
  }

  private static void checkNotNaN(double x) {
    check(!Double.isNaN(x), "x", "a number", x);
  }
}
