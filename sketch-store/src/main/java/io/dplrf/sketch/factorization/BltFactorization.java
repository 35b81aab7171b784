package io.dplrf.sketch.factorization;

/**
 * The figures of a BLT encoder C and its decoder B = A·C⁻¹ in closed form
 * (docs/privacy/blt-factorization.md §2–3).
 *
 * <p>Work in distances to 1: u_i = 1 − θ_i for C, û_j = 1 − θ̂_j for C⁻¹. C⁻¹ is the BLT with
 * generating function q(x)/p(x), q(x) = Π(1 − θ_i x), p(x) = Π(1 − θ̂_j x) the numerator of
 * C(x); so θ̂_j are the roots λ of Σ_i ω_i/(θ_i − λ) = 1, i.e. in u-space of
 * Σ_i ω_i/(û − u_i) = 1. With ω &gt; 0 the left side falls from +∞ to −∞ between consecutive poles
 * u_j &lt; u_{j+1}, and from +∞ to Σ ω_i/θ_i &lt; 1 on (u_d, 1): exactly one root in each, found
 * by bisection ({@link #root}). So u_1 &lt; û_1 &lt; u_2 &lt; … &lt; u_d &lt; û_d &lt; 1 (the
 * interlacing behind [3] Theorem 1).
 *
 * <p>Partial fractions of B(x) = q(x)/((1 − x) p(x)) give b_m = b_∞ + Σ_j r_j θ̂_j^m with
 * b_∞ = q(1)/p(1) = Π u_i / Π û_j and r_j = −ω̂_j/û_j, ω̂_j = Π_i(u_i − û_j) / Π_{k≠j}(û_k − û_j)
 * ([1] Lemma 5.2 read for C⁻¹). The interlacing makes every ω̂_j &lt; 0, so r_j &gt; 0 and b_∞ &gt; 0:
 * b is a positive mixture of geometric sequences, and each figure below is a sum of positive
 * terms of {@link Geometric} sums, accurate to about 1e−13 relative at any T ≤ 2^30 (no
 * cancellation to guard, unlike the Taylor-series switches jax_privacy needs for its form of
 * [1] Lemma 5.4, which expands b_m around 1 + Σ ω̂_j/(1 − θ̂_j)·(1 − θ̂_j^m)).
 */
final class BltFactorization extends ToeplitzFactorization {
  private final int d;
  private final double[] theta;
  private final double[] omega;
  private final double[] u;
  private final double[] uHat;
  private final double[] r;
  private final double bInfinity;

  private BltFactorization(double[] theta, double[] omega, double[] u, double[] uHat) {
    this.d = theta.length;
    this.theta = theta;
    this.omega = omega;
    this.u = u;
    this.uHat = uHat;
    this.r = new double[d];
    double b = 1;
    for (int j = 0; j < d; j++) {
      double num = 1;
      double den = 1;
      for (int i = 0; i < d; i++) {
        num *= u[i] - uHat[j];
        if (i != j) {
          den *= uHat[i] - uHat[j];
        }
      }
      r[j] = -(num / den) / uHat[j];
      b *= u[j] / uHat[j];
    }
    this.bInfinity = b;
  }

  static BltFactorization of(BltParameters p) {
    double[] theta = p.theta();
    int d = theta.length;
    double[] u = new double[d];
    for (int i = 0; i < d; i++) {
      u[i] = 1 - theta[i];
    }
    double[] omega = p.omega();
    double[] uHat = new double[d];
    for (int j = 0; j < d; j++) {
      uHat[j] = root(u, omega, u[j], j + 1 < d ? u[j + 1] : 1);
    }
    return new BltFactorization(theta, omega, u, uHat);
  }

  /**
   * The pair with decays 1 − u_i for C and 1 − û_j for C⁻¹, interlaced as
   * u_1 &lt; û_1 &lt; … &lt; u_d &lt; û_d &lt; 1; C's scales by [1] Lemma 5.2:
   * ω_i = Π_j(û_j − u_i) / Π_{k≠i}(u_k − u_i), positive by the interlacing.
   */
  static BltFactorization ofDecays(double[] u, double[] uHat) {
    int d = u.length;
    double[] theta = new double[d];
    double[] omega = new double[d];
    for (int i = 0; i < d; i++) {
      theta[i] = 1 - u[i];
      double num = 1;
      double den = 1;
      for (int k = 0; k < d; k++) {
        num *= uHat[k] - u[i];
        if (k != i) {
          den *= u[k] - u[i];
        }
      }
      omega[i] = num / den;
    }
    return new BltFactorization(theta, omega, u.clone(), uHat.clone());
  }

  /**
   * The root in (lo, hi) of Σ ω_i/(w − u_i) = 1, decreasing in w there: bisection (geometric
   * while hi/lo &gt; 2, so brackets spanning decades shrink in a few steps) down to adjacent
   * doubles; within a few ulps of the bracket's scale, and deterministic.
   */
  static double root(double[] u, double[] omega, double lo, double hi) {
    for (int iteration = 0; iteration < 200; iteration++) {
      double mid = hi > 2 * lo ? StrictMath.sqrt(lo * hi) : lo + (hi - lo) / 2;
      if (mid <= lo || mid >= hi) {
        break;
      }
      if (secular(u, omega, mid) > 0) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return Math.abs(secular(u, omega, lo)) <= Math.abs(secular(u, omega, hi)) ? lo : hi;
  }

  private static double secular(double[] u, double[] omega, double w) {
    double s = -1;
    for (int i = 0; i < u.length; i++) {
      s += omega[i] / (w - u[i]);
    }
    return s;
  }

  BltParameters parameters() {
    return new BltParameters(theta, omega);
  }

  /** Distances 1 − θ̂_j of C⁻¹'s decays, increasing. */
  double[] inverseDecayDistances() {
    return uHat.clone();
  }

  /** C⁻¹'s output scales ω̂_j (all negative). */
  double[] inverseScales() {
    double[] w = new double[d];
    for (int j = 0; j < d; j++) {
      w[j] = -r[j] * uHat[j];
    }
    return w;
  }

  /** b_∞ = lim b_m = 1/C(1). */
  double decoderLimit() {
    return bInfinity;
  }

  @Override
  public double[] encoderCoefficients(int n) {
    double[] c = new double[checkLength(n)];
    for (int k = 0; k < n; k++) {
      double s = k == 0 ? 1 : 0;
      for (int i = 0; k > 0 && i < d; i++) {
        s += omega[i] * power(u[i], k - 1);
      }
      c[k] = s;
    }
    return c;
  }

  @Override
  public double[] decoderCoefficients(int n) {
    double[] b = new double[checkLength(n)];
    for (int m = 0; m < n; m++) {
      double s = bInfinity;
      for (int j = 0; j < d; j++) {
        s += r[j] * power(uHat[j], m);
      }
      b[m] = s;
    }
    return b;
  }

  /** sens² = 1 + Σ_{i,j} ω_i ω_j G(θ_iθ_j, T − 1) ([1] Lemma 5.3). */
  @Override
  public double sensitivitySquared(int epochs) {
    long n = checkEpochs(epochs) - 1;
    double s = 1;
    for (int i = 0; i < d; i++) {
      s += omega[i] * omega[i] * Geometric.sum(productDistance(u[i], u[i]), n);
      for (int j = i + 1; j < d; j++) {
        s += 2 * omega[i] * omega[j] * Geometric.sum(productDistance(u[i], u[j]), n);
      }
    }
    return s;
  }

  /** Σ_{m<t} b_m² = t·b_∞² + 2b_∞ Σ_j r_j G(θ̂_j, t) + Σ_{j,k} r_j r_k G(θ̂_jθ̂_k, t). */
  @Override
  public double prefixVariance(int t) {
    long n = checkPrefix(t);
    double s = n * bInfinity * bInfinity;
    for (int j = 0; j < d; j++) {
      s += 2 * bInfinity * r[j] * Geometric.sum(uHat[j], n);
      s += r[j] * r[j] * Geometric.sum(productDistance(uHat[j], uHat[j]), n);
      for (int k = j + 1; k < d; k++) {
        s += 2 * r[j] * r[k] * Geometric.sum(productDistance(uHat[j], uHat[k]), n);
      }
    }
    return s;
  }

  /**
   * Σ_{m<g} b_m² + Σ_{j<s−1} (b_j − b_{j+g})², where b_j − b_{j+g} = Σ_k r_k (1 − θ̂_k^g) θ̂_k^j
   * is again a positive mixture: the second sum is Σ_{k,l} r_k w_k r_l w_l G(θ̂_kθ̂_l, s − 1) with
   * w_k = 1 − θ̂_k^g.
   */
  @Override
  public double rangeVariance(int first, int last) {
    checkRange(first, last);
    int g = last - first + 1;
    long before = first - 1L;
    double[] w = new double[d];
    for (int k = 0; k < d; k++) {
      w[k] = r[k] * Geometric.oneMinusPower(uHat[k], g);
    }
    double s = prefixVariance(g);
    for (int k = 0; k < d; k++) {
      s += w[k] * w[k] * Geometric.sum(productDistance(uHat[k], uHat[k]), before);
      for (int l = k + 1; l < d; l++) {
        s += 2 * w[k] * w[l] * Geometric.sum(productDistance(uHat[k], uHat[l]), before);
      }
    }
    return s;
  }

  /**
   * (1/T) Σ_{m<T} (T − m) b_m² = (1/T)[b_∞² T(T + 1)/2 + 2b_∞ Σ_j r_j H(θ̂_j, T)
   * + Σ_{j,k} r_j r_k H(θ̂_jθ̂_k, T)], H the weighted sum of {@link Geometric#weightedSum}.
   */
  @Override
  public double meanPrefixVariance(int epochs) {
    long n = checkEpochs(epochs);
    double s = bInfinity * bInfinity * (n * (n + 1.0) / 2);
    for (int j = 0; j < d; j++) {
      s += 2 * bInfinity * r[j] * Geometric.weightedSum(uHat[j], n);
      s += r[j] * r[j] * Geometric.weightedSum(productDistance(uHat[j], uHat[j]), n);
      for (int k = j + 1; k < d; k++) {
        s += 2 * r[j] * r[k] * Geometric.weightedSum(productDistance(uHat[j], uHat[k]), n);
      }
    }
    return s / n;
  }

  /** 1 − (1 − a)(1 − b) = a + b(1 − a): a sum of non-negatives, exact to an ulp or two. */
  private static double productDistance(double a, double b) {
    return a + b * (1 - a);
  }

  /** (1 − v)^n as exp(n·log1p(−v)): relative error ≈ (|n·ln(1 − v)| + 2)u, absolute ≤ u. */
  private static double power(double v, long n) {
    return StrictMath.exp(n * StrictMath.log1p(-v));
  }
}
