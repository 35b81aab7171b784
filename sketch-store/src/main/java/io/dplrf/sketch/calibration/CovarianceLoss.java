package io.dplrf.sketch.calibration;

/**
 * The privacy-loss variable of one neighbouring pair of the covariance sketch, and the hockey-stick
 * divergence of its composition with a μ_G-GDP mechanism, by quadrature. Package-private; the
 * derivation is in {@link CovarianceMechanism} and docs/privacy/covariance-mechanism.md.
 *
 * <p>For whitened neighbour covariance M = I + a xᵀ + x aᵀ + a aᵀ with |a| = {@code aNorm}, |x| =
 * {@code xNorm} and angle θ between them, the non-unit eigenvalues are μ_j = 1 + λ_j with λ₊ + λ₋ =
 * |a|² + 2a·x and λ₊λ₋ = −(|a|²|x|² − (a·x)²). Under P = N(0, I)^{⊗t},
 * L = K + c₁X₁ + c₂X₂ with K = (t/2)(ln μ₁ + ln μ₂), c_j = ½(1/μ_j − 1) = −½λ_j/(1+λ_j), and
 * X₁, X₂ independent χ²_t. So c₁ ≤ 0 ≤ c₂.
 *
 * <p>Quadrature. We integrate in y = √X (the χ_t density y^{t−1}e^{−y²/2} is smooth at 0 for every
 * t, unlike the χ²_1 density), with one Gauss–Legendre rule per variable on a window centred on
 * that variable's exponentially tilted law: with λ solving κ'(λ) = ε for the cumulant generating
 * function κ of the total loss, the tilted X_j is χ²_t/(1 − 2λc_j), which is where the integrand of
 * E[δ_G(ε − L)] has its mass (the saddle point of the tail). With μ_G = 0 the expectation over the
 * variable with the larger |c_j| is done in closed form: for X ~ χ²_t and c &gt; −½,
 * E[e^{−cX}·1{X ∈ S}] = (1+2c)^{−t/2}·P[χ²_t/(1+2c) ∈ S], which turns (1 − e^{e₀ − cX})₊ into two
 * incomplete gamma functions; this also removes the kink of (1 − e^{ε−L})₊ from the quadrature.
 */
final class CovarianceLoss {
  private static final double NEGLIGIBLE = 1e-14;

  final int t;
  final double k;
  final double c1;
  final double c2;

  private CovarianceLoss(int t, double k, double c1, double c2) {
    this.t = t;
    this.k = k;
    this.c1 = c1;
    this.c2 = c2;
  }

  /** The loss for |a| = aNorm &lt; 1, |x| = xNorm ≤ 1 and angle θ. */
  static CovarianceLoss of(int t, double aNorm, double xNorm, double theta) {
    double s = aNorm * aNorm + 2 * aNorm * xNorm * Math.cos(theta);
    double sin = Math.sin(theta);
    double prod = -(aNorm * xNorm * sin) * (aNorm * xNorm * sin);
    double disc = Math.sqrt(s * s - 4 * prod);
    double plus;
    double minus;
    // Roots of λ² − sλ + prod, each from the cancellation-free formula.
    if (s >= 0) {
      plus = 0.5 * (s + disc);
      minus = plus > 0 ? prod / plus : 0;
    } else {
      minus = 0.5 * (s - disc);
      plus = prod / minus;
    }
    double k = 0.5 * t * (Math.log1p(plus) + Math.log1p(minus));
    double c1 = -0.5 * plus / (1 + plus);
    double c2 = -0.5 * minus / (1 + minus);
    // At θ = 0 or π one eigenvalue is exactly 1, but sin(π) ≈ 1.2e-16 leaves a c of ~1e-34; a
    // coefficient below 1e-14 of the other changes L by far less than the quadrature tolerance
    // and is set to 0, which lets the quadrature drop that dimension.
    double big = Math.max(Math.abs(c1), Math.abs(c2));
    if (Math.abs(c1) < NEGLIGIBLE * big) {
      c1 = 0;
    }
    if (Math.abs(c2) < NEGLIGIBLE * big) {
      c2 = 0;
    }
    return new CovarianceLoss(t, k, c1, c2);
  }

  /** Derivative of the cumulant generating function of L + G under P, G ~ N(μ²/2, μ²). */
  private double cgfDerivative(double lambda, double mu) {
    return k + t * c1 / (1 - 2 * lambda * c1) + t * c2 / (1 - 2 * lambda * c2)
        + mu * mu * (0.5 + lambda);
  }

  /** The tilt λ ≥ 0 with κ'(λ) = ε (0 if the untilted mean already exceeds ε). */
  private double tilt(double epsilon, double mu) {
    if (cgfDerivative(0, mu) >= epsilon) {
      return 0;
    }
    double cap = c2 > 0 ? 0.5 / c2 : Double.POSITIVE_INFINITY;
    double lo = 0;
    double hi = Math.min(1, 0.5 * cap);
    while (cgfDerivative(hi, mu) < epsilon && hi < 1e12) {
      lo = hi;
      hi = Math.min(2 * hi, 0.5 * (hi + cap));
    }
    for (int i = 0; i < 60; i++) {
      double mid = 0.5 * (lo + hi);
      if (cgfDerivative(mid, mu) < epsilon) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return 0.5 * (lo + hi);
  }

  /**
   * E_P[δ_G(ε − L)] with an n-point rule per variable on windows of half-width {@code halfWidth}
   * (in units of y = √X) around the tilted means.
   */
  double delta(double epsilon, double muG, int n, double halfWidth) {
    if (c1 == 0 && c2 == 0) {
      return AnalyticGaussian.deltaAt(epsilon - k, muG);
    }
    if (muG == 0 && c2 == 0 && k <= epsilon) {
      return 0; // L = K + c₁X₁ ≤ K ≤ ε surely: the pair is (ε, 0)-indistinguishable
    }
    double lambda = tilt(epsilon, muG);
    if (muG == 0) {
      boolean innerIsTwo = Math.abs(c2) >= Math.abs(c1);
      double cOut = innerIsTwo ? c1 : c2;
      double cIn = innerIsTwo ? c2 : c1;
      if (cOut == 0) {
        return closedForm(epsilon - k, cIn);
      }
      double[][] rule = chiRule(n, halfWidth, 1 / (1 - 2 * lambda * cOut));
      double sum = 0;
      for (int i = 0; i < n; i++) {
        double y = rule[0][i];
        sum += rule[1][i] * closedForm(epsilon - k - cOut * y * y, cIn);
      }
      return sum;
    }
    if (c1 == 0 || c2 == 0) {
      double c = c1 == 0 ? c2 : c1;
      double spread = Math.abs(c) * Math.sqrt(2.0 * t) / (1 - 2 * lambda * c); // tilted s.d. of cX
      if (spread > muG) {
        // The χ² term dominates: integrate G ~ N(μ²/2, μ²) by quadrature (its tilted law is
        // N(μ²/2 + λμ², μ²)) and the χ² term in closed form, so the integrand varies on the
        // scale of the wider component.
        GaussLegendre gl = GaussLegendre.of(n);
        double centre = muG * muG * (0.5 + lambda);
        double half = muG * (halfWidth + 2);
        double sum = 0;
        for (int i = 0; i < n; i++) {
          double g = centre + half * gl.nodes[i];
          double z = (g - 0.5 * muG * muG) / muG;
          sum += half * gl.weights[i] * Math.exp(Normal.logDensity(z)) / muG
              * closedForm(epsilon - k - g, c);
        }
        return sum;
      }
    }
    double[][] r1 = c1 == 0 ? POINT : chiRule(n, halfWidth, 1 / (1 - 2 * lambda * c1));
    double[][] r2 = c2 == 0 ? POINT : chiRule(n, halfWidth, 1 / (1 - 2 * lambda * c2));
    double sum = 0;
    for (int i = 0; i < r1[0].length; i++) {
      double e1 = epsilon - k - c1 * r1[0][i] * r1[0][i];
      double inner = 0;
      for (int j = 0; j < r2[0].length; j++) {
        inner += r2[1][j] * AnalyticGaussian.deltaAt(e1 - c2 * r2[0][j] * r2[0][j], muG);
      }
      sum += r1[1][i] * inner;
    }
    return sum;
  }

  /** A one-node rule at y = 0 with weight 1, for a variable whose coefficient is 0. */
  private static final double[][] POINT = {{0}, {1}};

  /**
   * E[(1 − e^{e₀ − cX})₊], X ~ χ²_t, in closed form: with q = e₀/c the set where the bracket is
   * positive is {X &gt; q} (c &gt; 0) or {X &lt; q} (c &lt; 0), and
   * E[e^{−cX} 1{X ∈ S}] = (1+2c)^{−t/2} P[χ²_t/(1+2c) ∈ S] (the χ² tilting identity).
   */
  double closedForm(double e0, double c) {
    double logTilt = e0 - 0.5 * t * Math.log1p(2 * c); // ln(e^{e₀}(1+2c)^{−t/2})
    if (c > 0) {
      double q = e0 / c;
      if (q <= 0) {
        return Math.max(0, -Math.expm1(logTilt));
      }
      return Math.max(0, ChiSquare.upperTail(q, t)
          - Math.exp(logTilt) * ChiSquare.upperTail(q * (1 + 2 * c), t));
    }
    if (e0 >= 0) {
      return 0;
    }
    double q = e0 / c;
    return Math.max(0, ChiSquare.lowerTail(q, t)
        - Math.exp(logTilt) * ChiSquare.lowerTail(q * (1 + 2 * c), t));
  }

  /**
   * Nodes y_i and weights w_i·f(y_i) of an n-point Gauss–Legendre rule for the χ_t density f,
   * on the window √scale·(m ± halfWidth) ∩ [0, ∞), m ≈ E[χ_t] = √(t − ½).
   */
  private double[][] chiRule(int n, double halfWidth, double scale) {
    GaussLegendre gl = GaussLegendre.of(n);
    double m = Math.sqrt(t - 0.5);
    double root = Math.sqrt(scale);
    double lo = root * Math.max(0, m - halfWidth);
    double hi = root * (m + halfWidth);
    double mid = 0.5 * (lo + hi);
    double half = 0.5 * (hi - lo);
    double logNorm = -(0.5 * t - 1) * Math.log(2) - IncompleteGamma.lnGamma(0.5 * t);
    double[][] rule = new double[2][n];
    for (int i = 0; i < n; i++) {
      double y = mid + half * gl.nodes[i];
      rule[0][i] = y;
      rule[1][i] = half * gl.weights[i]
          * Math.exp((t - 1) * Math.log(y) - 0.5 * y * y + logNorm);
    }
    return rule;
  }
}
