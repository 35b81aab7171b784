package io.dplrf.sketch.calibration;

import static io.dplrf.sketch.params.Preconditions.check;
import static io.dplrf.sketch.params.Preconditions.checkOpenUnit;
import static io.dplrf.sketch.params.Preconditions.checkPositive;
import static io.dplrf.sketch.params.Preconditions.checkPositiveFinite;

/**
 * Privacy accounting for the noiseless covariance sketch Yc = ÂΦ of paper 002 (Upadhyay 2018,
 * Algorithm 1 step 2), composed with the Gaussian sketches of the same release.
 *
 * <p><b>Model.</b> Â = (A σmin·I_m) is m×(m+n); Φ is a secret (m+n)×t matrix with i.i.d. N(0, 1/t)
 * entries, so the t columns of Yc are i.i.d. N(0, ÂÂᵀ/t). Neighbours (Priv1 scaled by the
 * contribution bound C): Â' = Â + C·u wᵀ with |u| = 1, w = (v; 0), |w| = 1.
 *
 * <p><b>Whitening.</b> Σ = ÂÂᵀ ⪰ σmin²I. With B = Σ^{−1/2}Â (orthonormal rows), a = CΣ^{−1/2}u
 * (|a| ≤ r := C/σmin) and x = Bw (|x| ≤ |w| = 1, since ‖B‖ = 1), the neighbour's whitened
 * covariance is M = (B + awᵀ)(B + awᵀ)ᵀ = I + axᵀ + xaᵀ + aaᵀ = I + (a+x)(a+x)ᵀ − xxᵀ: rank-≤2 off
 * I, eigenvalues μ₁ = 1+λ₊ ≥ 1 ≥ μ₂ = 1+λ₋ &gt; 0, λ₊+λ₋ = |a|² + 2a·x, λ₊λ₋ = −(|a|²|x|² −
 * (a·x)²). The hockey-stick divergence is invariant under the common map Σ^{−1/2}, and Â' has all
 * singular values ≥ σmin as well, so the reverse ordering is another member of the same family:
 * the supremum over {|a| ≤ r, |x| ≤ 1} of H_{e^ε}(N(0,I)^{⊗t} ‖ N(0,M)^{⊗t}) bounds the privacy
 * profile of Yc in both directions. (The family is a superset of the realizable pairs; using it is
 * sound, possibly loose.) If r ≥ 1 the family contains a singular M (a = −x) and δ = 1.
 *
 * <p><b>Loss.</b> Under P: L = (t/2)(ln μ₁ + ln μ₂) + ½(1/μ₁ − 1)X₁ + ½(1/μ₂ − 1)X₂, X_j i.i.d.
 * χ²_t. Composed with independent sketches that are jointly μ_G-GDP (privacy loss N(μ_G²/2, μ_G²)
 * under P, dominating in both orderings), δ(ε) = sup E[δ_G(ε − L)] with δ_G the μ_G-GDP profile,
 * valid for every real argument (Dong–Roth–Su Cor. 2.13; for e &lt; 0 by the symmetry of GDP).
 *
 * <p><b>Supremum.</b> Taken on the boundary |a| = r, |x| = 1, over the angle θ ∈ [0, π] (a
 * coarse scan plus golden-section refinement). That the interior gives nothing larger is checked
 * numerically by the tests (it is not proved here). Thread-safe, stateless.
 */
public final class CovarianceMechanism {
  private CovarianceMechanism() {}

  /**
   * The result of {@link #calibrate}: Yc is private with σmin = C/r, and the Gaussian sketches must
   * together be {@code muGaussian}-GDP; the composition is (ε, achievedDelta)-DP.
   */
  public record Calibration(double r, double muGaussian, double achievedDelta) {}

  /**
   * Gauss–Legendre points per variable at the base resolution (used for the θ search), and window
   * half-width in y = √χ² units around the tilted mean (the χ_t standard deviation is ≤ 0.76, so
   * 6.5 units is ≥ 8.5 s.d.; measured truncation error ≤ 1e-12 relative down to t = 1).
   */
  static final int BASE_NODES = 32;
  static final double BASE_HALF_WIDTH = 6.5;
  /** Each refinement doubles the points and widens the window by this much. */
  static final double HALF_WIDTH_STEP = 1.0;
  /** Refinements stop once two successive resolutions agree to this relative difference... */
  static final double REFINE_RELATIVE_TOLERANCE = 1e-8;
  /** ...or at this many points per variable. */
  static final int MAX_NODES = 256;
  /** Angles in the initial scan of [0, π]. */
  static final int THETA_SCAN = 16;
  /** Golden-section stop: bracket width in radians. */
  static final double THETA_TOLERANCE = 1e-6;
  /** calibrate stops bisecting κ at this relative width. */
  static final double KAPPA_RELATIVE_TOLERANCE = 1e-8;

  /**
   * δ(ε) of Yc with contribution-to-σmin ratio r = C/σmin and t sketch columns, composed with a
   * μ_G-GDP mechanism. The worst angle is searched at the base resolution; the value there is
   * then refined by {@link #conservativeAt} (finest value plus the last observed difference).
   *
   * @param epsilon ε &gt; 0
   * @param t number of columns of Φ (≥ 1)
   * @param r C/σmin ≥ 0
   * @param muGaussian μ_G ≥ 0 of the other sketches (0: Yc alone)
   */
  public static double delta(double epsilon, int t, double r, double muGaussian) {
    checkPositiveFinite("epsilon", epsilon);
    checkPositive("t", t);
    AnalyticGaussian.checkNonNegativeFinite("r", r);
    AnalyticGaussian.checkNonNegativeFinite("muGaussian", muGaussian);
    if (r == 0) {
      return AnalyticGaussian.deltaAt(epsilon, muGaussian);
    }
    if (r >= 1) {
      return 1.0;
    }
    double theta = worstAngle(epsilon, t, r, 1, muGaussian);
    return conservativeAt(epsilon, t, r, 1, theta, muGaussian);
  }

  /** The angle θ maximising the base-resolution δ for |a| = aNorm, |x| = xNorm. */
  static double worstAngle(double epsilon, int t, double aNorm, double xNorm, double muG) {
    double[] values = new double[THETA_SCAN + 1];
    int best = 0;
    for (int i = 0; i <= THETA_SCAN; i++) {
      values[i] = baseAt(epsilon, t, aNorm, xNorm, Math.PI * i / THETA_SCAN, muG);
      if (values[i] > values[best]) {
        best = i;
      }
    }
    double lo = Math.PI * Math.max(0, best - 1) / THETA_SCAN;
    double hi = Math.PI * Math.min(THETA_SCAN, best + 1) / THETA_SCAN;
    final double g = 0.5 * (Math.sqrt(5) - 1);
    double x1 = hi - g * (hi - lo);
    double x2 = lo + g * (hi - lo);
    double f1 = baseAt(epsilon, t, aNorm, xNorm, x1, muG);
    double f2 = baseAt(epsilon, t, aNorm, xNorm, x2, muG);
    while (hi - lo > THETA_TOLERANCE) {
      if (f1 >= f2) {
        hi = x2;
        x2 = x1;
        f2 = f1;
        x1 = hi - g * (hi - lo);
        f1 = baseAt(epsilon, t, aNorm, xNorm, x1, muG);
      } else {
        lo = x1;
        x1 = x2;
        f1 = f2;
        x2 = lo + g * (hi - lo);
        f2 = baseAt(epsilon, t, aNorm, xNorm, x2, muG);
      }
    }
    double theta = f1 >= f2 ? x1 : x2;
    double fTheta = Math.max(f1, f2);
    // The golden bracket never contains its own endpoints; keep the scan point if it is better.
    return values[best] > fTheta ? Math.PI * best / THETA_SCAN : theta;
  }

  static double baseAt(double epsilon, int t, double aNorm, double xNorm, double theta,
      double muG) {
    return CovarianceLoss.of(t, aNorm, xNorm, theta)
        .delta(epsilon, muG, BASE_NODES, BASE_HALF_WIDTH);
  }

  /**
   * Conservative quadrature at one angle: doubles the resolution (points per variable ×2, window
   * +{@value #HALF_WIDTH_STEP}) from the base until two successive values agree to {@value
   * #REFINE_RELATIVE_TOLERANCE} relative or {@value #MAX_NODES} points, and returns the finer
   * value plus the observed difference, capped at 1. The added difference is an error estimate,
   * not a proof: it is reliable when the sequence has entered its (spectral) convergence, which the
   * tolerance checks.
   */
  static double conservativeAt(double epsilon, int t, double aNorm, double xNorm, double theta,
      double muG) {
    CovarianceLoss loss = CovarianceLoss.of(t, aNorm, xNorm, theta);
    int n = BASE_NODES;
    double width = BASE_HALF_WIDTH;
    double coarse = loss.delta(epsilon, muG, n, width);
    while (true) {
      n *= 2;
      width += HALF_WIDTH_STEP;
      double fine = loss.delta(epsilon, muG, n, width);
      double diff = Math.abs(fine - coarse);
      if (diff <= REFINE_RELATIVE_TOLERANCE * fine || n >= MAX_NODES) {
        return Math.min(1.0, fine + diff);
      }
      coarse = fine;
    }
  }

  /**
   * Splits an (ε, δ) budget between Yc and the Gaussian sketches and returns the largest r.
   *
   * <p>Start from μ_tot = {@link AnalyticGaussian#mu}(ε, δ) and give Yc the share {@code ycShare}
   * of μ_tot² through the approximation μ_c² ≈ 2tr² (the per-column privacy-loss variance at θ = 0
   * is ≈ 2r²): r₀ = √(ycShare/(2t))·μ_tot, μ_G0 = √(1 − ycShare)·μ_tot. Then bisect for the largest
   * κ with {@link #delta}(ε, t, κr₀, κμ_G0) ≤ δ, returning the lower (private) end of the bracket.
   * The approximation only chooses the direction; the guarantee comes from {@link #delta}.
   */
  public static Calibration calibrate(double epsilon, double delta, int t, double ycShare) {
    checkPositiveFinite("epsilon", epsilon);
    checkOpenUnit("delta", delta);
    checkPositive("t", t);
    checkOpenUnit("ycShare", ycShare);
    double muTotal = AnalyticGaussian.mu(epsilon, delta);
    double r0 = Math.sqrt(ycShare / (2.0 * t)) * muTotal;
    double mu0 = Math.sqrt(1 - ycShare) * muTotal;
    double lo = 0;
    double loDelta = 0;
    double hi = 1;
    double hiDelta = delta(epsilon, t, r0, mu0);
    while (hiDelta <= delta) {
      lo = hi;
      loDelta = hiDelta;
      hi *= 2;
      hiDelta = delta(epsilon, t, hi * r0, hi * mu0);
    }
    for (int i = 0; i < 200 && hi - lo > KAPPA_RELATIVE_TOLERANCE * hi; i++) {
      double mid = 0.5 * (lo + hi);
      double d = delta(epsilon, t, mid * r0, mid * mu0);
      if (d <= delta) {
        lo = mid;
        loDelta = d;
      } else {
        hi = mid;
      }
    }
    check(lo > 0, "delta", "achievable (no positive scale met it)", delta);
    return new Calibration(lo * r0, lo * mu0, loDelta);
  }
}
