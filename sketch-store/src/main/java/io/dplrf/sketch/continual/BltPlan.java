package io.dplrf.sketch.continual;

import static io.dplrf.sketch.params.Preconditions.check;
import static io.dplrf.sketch.params.Preconditions.checkPositiveFinite;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.factorization.BltParameters;
import io.dplrf.sketch.factorization.ToeplitzFactorization;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.lra.Priv2Matrices;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import java.util.List;

/**
 * The noise of a BLT stream, fixed when it starts and kept in its snapshots (never recalibrated):
 * the factorization and the per-epoch noise scales of the encoded sketches
 * (docs/privacy/blt-release.md §2–3). Everything here is public.
 *
 * <p><b>Sensitivity</b> (blt-release.md §2, Lemma 2). One privacy unit (Σ|Δ| ≤ C over the stream)
 * moves the exact encoded stream (Cx)_1..T of Y by at most C·sens(T)·b_Φ in ℓ2 over all epochs,
 * and of Z by C·sens(T)·b_S, where sens(T)² = Σ_{k&lt;T} c_k² is C's largest column norm² ({@link
 * ToeplitzFactorization#sensitivity}; the decoder B's column norm is another figure and must not
 * be used) and b_Φ, b_S are the drawn matrices' largest row of Φ and column of S (exactly 1 for
 * sparse sign embeddings; docs/privacy/l1-units.md §2). Rounding to the noise grid adds γ√(k·T)
 * (Minkowski in ℝ^(kT): every unit can reach every epoch), so each part is calibrated with
 * {@link GaussianSketchNoise} on base sensitivity C·sens·b and k·T rounded coordinates, k_Y = m·t,
 * k_Z = v·n.
 *
 * <p><b>Calibration</b> (blt-release.md §3). The released encoded stream ŷ is one exact discrete
 * Gaussian mechanism; μ = {@link AnalyticGaussian#mu}(ε, δ) (all of δ: no share is charged to the
 * sketching matrices) is split evenly over Y and Z, σ_Y = √2·Δ_Y/μ, σ_Z = √2·Δ_Z/μ; fully adaptive
 * Gaussian-DP composition (Smith and Thakurta 2022) covers producers who see earlier releases
 * (proved for continuous Gaussians; for the discrete Gaussian the step is taken as for the tree,
 * not proved: blt-release.md §3).
 *
 * <p><b>Noise of a release</b> (blt-release.md §3, §6). Per entry, R_t − P_t = (B(e + γN))_t has
 * standard deviation σ·√(Σ_{k&lt;t} b_k²) ({@link #prefixNoise}); a range R_e − R_{s−1},
 * σ·√(Σ_k (B[e,k] − B[s−1,k])²) ({@link #rangeNoise}); plus the decoded grid rounding (Be)_t,
 * |e| ≤ γ/2 ≤ 2⁻³¹σ per entry and epoch, so at most 2⁻³¹σ·Σ_{k&lt;t} b_k ≤ 2⁻³¹σ·t.
 *
 * @param privacy the stream's (ε, δ)
 * @param clip C
 * @param sizes sketch shape
 * @param sparsity non-zeros per column of Φ and S; 0 for Gaussian matrices
 * @param epochs T
 * @param parameters the BLT encoder C (θ, ω), {@code BltOptimizer.optimize(T)} for a new stream
 * @param sensitivity sens(T), C's largest column norm over T epochs (≥ c_0 = 1)
 * @param phiFactor b_Φ
 * @param sFactor b_S
 * @param yNoise σ_Y and γ_Y of every encoded epoch's Y
 * @param zNoise σ_Z and γ_Z of every encoded epoch's Z
 */
public record BltPlan(PrivacyParams privacy, double clip, SketchSizes sizes, int sparsity,
    int epochs, BltParameters parameters, double sensitivity, double phiFactor, double sFactor,
    GaussianSketchNoise yNoise, GaussianSketchNoise zNoise) {
  /**
   * How far a stored sens(T) may lie from the closed form of this build, relatively: the closed
   * forms are within 1e−13 of compensated sums (blt-factorization.md §3), so a stored value further
   * away is not C's column norm.
   */
  static final double SENSITIVITY_TOLERANCE = 1e-12;

  public BltPlan {
    check(privacy != null, "privacy", "non-null", privacy);
    checkPositiveFinite("clip", clip);
    check(sizes != null, "sizes", "non-null", sizes);
    check(epochs >= 1 && epochs <= ToeplitzFactorization.MAX_EPOCHS, "epochs", "in [1, 2^30]",
        epochs);
    check(parameters != null, "parameters", "non-null", parameters);
    check(sensitivity >= 1 && !Double.isInfinite(sensitivity), "sensitivity", ">= 1 and finite",
        sensitivity);
    double closedForm = ToeplitzFactorization.blt(parameters).sensitivity(epochs);
    check(Math.abs(sensitivity - closedForm) <= SENSITIVITY_TOLERANCE * closedForm, "sensitivity",
        "the encoder's largest column norm sens(T) = " + closedForm, sensitivity);
    checkPositiveFinite("phiFactor", phiFactor);
    checkPositiveFinite("sFactor", sFactor);
    check(yNoise != null && yNoise.sketch().equals("Y"), "yNoise", "Y's noise", yNoise);
    check(zNoise != null && zNoise.sketch().equals("Z"), "zNoise", "Z's noise", zNoise);
    check(yNoise.baseSensitivity() == clip * sensitivity * phiFactor, "yNoise.baseSensitivity",
        "C·sens·b_Φ = " + clip * sensitivity * phiFactor, yNoise.baseSensitivity());
    check(zNoise.baseSensitivity() == clip * sensitivity * sFactor, "zNoise.baseSensitivity",
        "C·sens·b_S = " + clip * sensitivity * sFactor, zNoise.baseSensitivity());
    check(yNoise.changedCoordinates() == roundedCoordinates((long) sizes.m() * sizes.t(), epochs),
        "yNoise.changedCoordinates", "m·t·T", yNoise.changedCoordinates());
    check(zNoise.changedCoordinates() == roundedCoordinates((long) sizes.v() * sizes.n(), epochs),
        "zNoise.changedCoordinates", "v·n·T", zNoise.changedCoordinates());
    check(yNoise.mu() == zNoise.mu(), "zNoise.mu", "yNoise.mu = " + yNoise.mu() + " (an even split)",
        zNoise.mu());
    // The sketches' own checks: sparsity 0 or a power of 4 with factors exactly 1.
    new Priv2Plan(privacy, clip, sizes, 0, phiFactor, sFactor, yNoise, zNoise, sparsity);
  }

  /**
   * The plan of a new stream on the drawn {@code mats} (blt-release.md §2–3): sens(T) from the
   * factorization, b_Φ and b_S from the matrices, μ(ε, δ)/√2 for each of Y and Z, the rounding
   * charged over k·T coordinates.
   */
  public static BltPlan calibrate(BltConfig c, BltParameters parameters, Priv2Matrices mats) {
    check(mats.sizes().equals(c.sizes()), "matrices' sizes", "the config's " + c.sizes(),
        mats.sizes());
    // §2, Lemma 2: C's column norm (a lower-triangular Toeplitz matrix's first column is its
    // longest), not B's.
    double sens = ToeplitzFactorization.blt(parameters).sensitivity(c.epochs());
    // §2: the largest row of Φ and column of S (l1-units.md §2, Lemma 1); 1 for sparse.
    double phi = mats.maxRowNormOfPhi();
    double s = mats.maxColumnNormOfS();
    // §3: all of δ to the Gaussian mechanism, μ² split evenly over Y and Z.
    double muEach = AnalyticGaussian.mu(c.privacy().epsilon(), c.privacy().delta()) / Math.sqrt(2);
    SketchSizes z = c.sizes();
    GaussianSketchNoise y = GaussianSketchNoise.calibrate("Y", c.clip() * sens * phi,
        roundedCoordinates((long) z.m() * z.t(), c.epochs()), muEach);
    GaussianSketchNoise zn = GaussianSketchNoise.calibrate("Z", c.clip() * sens * s,
        roundedCoordinates((long) z.v() * z.n(), c.epochs()), muEach);
    return new BltPlan(c.privacy(), c.clip(), c.sizes(), c.sparsity(), c.epochs(), parameters,
        sens, phi, s, y, zn);
  }

  /** §2: the k rounded coordinates of a part in each of the T epochs, every one charged. */
  private static long roundedCoordinates(long perEpoch, int epochs) {
    return Math.multiplyExact(perEpoch, (long) epochs);
  }

  /**
   * The plan of the stream's epoch sketches (its noiseless accumulator and the state it keeps in
   * {@code SketchCodec} files): Priv2 under entrywise-ℓ1 neighbours with this plan's factors and
   * noise, which are the noise of one encoded epoch.
   */
  public Priv2Plan epochPlan() {
    return new Priv2Plan(privacy, clip, sizes, 0, phiFactor, sFactor, yNoise, zNoise, sparsity);
  }

  /** C and B = A·C⁻¹ of {@link #parameters}, with their figures. */
  public ToeplitzFactorization factorization() {
    return ToeplitzFactorization.blt(parameters);
  }

  /** √(μ_Y² + μ_Z²): the whole stream's μ-GDP (blt-release.md §3). */
  public double mu() {
    return Math.hypot(yNoise.mu(), zNoise.mu());
  }

  /**
   * The noise of the prefix release R_t, per part: σ·√(Σ_{k&lt;t} b_k²) per entry (blt-release.md
   * §3), with the encoded stream's sensitivity Δ (grid slack included).
   *
   * @param t in [1, T]
   */
  public List<NoiseScale> prefixNoise(int t) {
    check(t >= 1 && t <= epochs, "t", "in [1, " + epochs + "]", t);
    return scaled(Math.sqrt(factorization().prefixVariance(t)));
  }

  /**
   * The noise of the range answer R_e − R_{s−1}: σ·√(Σ_k (B[e,k] − B[s−1,k])²) per entry
   * (blt-release.md §6), at most √2 times the worst prefix's.
   *
   * @param s in [1, e]
   * @param e in [s, T]
   */
  public List<NoiseScale> rangeNoise(int s, int e) {
    check(s >= 1 && s <= e && e <= epochs, "[s, e]", "within [1, " + epochs + "]",
        "[" + s + ", " + e + "]");
    return scaled(Math.sqrt(factorization().rangeVariance(s, e)));
  }

  private List<NoiseScale> scaled(double factor) {
    return List.of(
        new NoiseScale("Y", yNoise.sigma() * factor, yNoise.sensitivity(),
            (long) sizes.m() * sizes.t()),
        new NoiseScale("Z", zNoise.sigma() * factor, zNoise.sensitivity(),
            (long) sizes.v() * sizes.n()));
  }
}
