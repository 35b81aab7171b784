package io.dplrf.sketch.lra;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.ChiSquare;
import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;

/**
 * Noise scales of the Priv2 mechanism (paper 002 §3): Y = AΦ + N1, Z = SA + N2, neighbours
 * ‖A − A'‖_F ≤ C.
 *
 * <p>Sensitivity. For a fixed difference D with ‖D‖_F ≤ C and Φ with i.i.d. N(0,1/t) entries,
 * ‖DΦ‖²_F = Σ_i s_i² χ²_{t,i}/t (s_i the singular values of D) — a mixture whose tail we bound
 * by the Chernoff quantile {@link ChiSquare#chernoffQuantileOfMean}, valid for every mixture
 * weight vector, at failure probability δ_JL/2; likewise ‖SD‖_F with v. The failure is charged
 * to δ by coupling the two runs on the same Φ (resp. S).
 *
 * <p>Calibration. Y and Z have independent noise; together they are μ-GDP with
 * μ² = μ_Y² + μ_Z² (Dong–Roth–Su Cor. 3.3), and μ is the largest value whose exact privacy
 * profile (Balle–Wang 2018 Thm 8) meets (ε, δ − δ_JL). The μ² budget is split equally.
 *
 * <p>Continual release ({@code compositions} = L, docs/privacy/continual-release.md §3): one
 * update lands in at most L tree nodes, each releasing its own Y and Z with independent noise, so
 * the L·2 Gaussian mechanisms compose (DRS Cor. 3.3) to μ if every node gets μ/√L, i.e.
 * σ_node = √L·σ₁. The Chernoff bound holds for the stacked difference [D₁;…;D_L]Φ as well (its
 * weights sum to ≤ L·C²), so the JL event is one event for all nodes and δ_JL is charged once.
 * With L = 1 this is the one-shot plan.
 *
 * <p>Sparse variant ({@code sparsity} s > 0, {@link #calibrateSparse}): Φ and S are sparse sign
 * embeddings whose every column has norm exactly 1 ({@code SparseSignMatrix}). It is calibrated
 * for single-entry neighbours only — D = Δ·e_i e_jᵀ with |Δ| ≤ C, the update privacy unit — for
 * which ‖DΦ‖_F = |Δ|·‖Φ_{j,:}‖ = |Δ| and ‖SD‖_F = |Δ|·‖S_{:,i}‖ = |Δ| exactly, for every draw:
 * no tail bound, no δ_JL (factors 1, share 0). It is NOT private for general Frobenius-bounded
 * differences (a unit spreading C over many entries of one sketch bucket has ‖DΦ‖_F up to
 * √(n/t)·C), so the service refuses it for key and row units (docs/privacy/sparse-embeddings.md).
 * Per update it costs O(s) instead of O(t + v).
 */
public record Priv2Plan(
    PrivacyParams privacy,
    double clip,
    SketchSizes sizes,
    double jlDeltaShare,
    double phiFactor,
    double sFactor,
    GaussianSketchNoise yNoise,
    GaussianSketchNoise zNoise,
    int sparsity) {

  public Priv2Plan {
    Preconditions.check(sparsity >= 0, "sparsity", ">= 0", sparsity);
    Preconditions.check(sparsity == 0 || (jlDeltaShare == 0 && phiFactor == 1 && sFactor == 1),
        "a sparse plan", "exact (no JL share, factors 1)", jlDeltaShare + "/" + phiFactor + "/" + sFactor);
  }

  /** Sparse sign embeddings (single-entry neighbours only) rather than Gaussian ones. */
  public boolean sparse() {
    return sparsity > 0;
  }

  public static Priv2Plan calibrate(PrivacyParams privacy, double clip, SketchSizes sizes) {
    return calibrate(privacy, clip, sizes, Priv1Plan.DEFAULT_JL_DELTA_SHARE);
  }

  public static Priv2Plan calibrate(
      PrivacyParams privacy, double clip, SketchSizes sizes, double jlDeltaShare) {
    return calibrate(privacy, clip, sizes, jlDeltaShare, 1);
  }

  /**
   * The plan of one node of a continual-release tree whose every update lands in at most
   * {@code compositions} nodes (the depth L); the whole tree then meets (ε, δ).
   */
  public static Priv2Plan calibrate(PrivacyParams privacy, double clip, SketchSizes sizes,
      double jlDeltaShare, int compositions) {
    Preconditions.checkPositive("compositions", compositions);
    double deltaJl = privacy.delta() * jlDeltaShare;
    double mu = AnalyticGaussian.mu(privacy.epsilon(), privacy.delta() - deltaJl);
    double phi = Math.sqrt(ChiSquare.chernoffQuantileOfMean(deltaJl / 2, sizes.t()));
    double s = Math.sqrt(ChiSquare.chernoffQuantileOfMean(deltaJl / 2, sizes.v()));
    // μ² split over 2 sketches × L nodes (continual-release.md §3).
    double muEach = mu / Math.sqrt(2.0 * compositions);
    GaussianSketchNoise y =
        GaussianSketchNoise.calibrate("Y", clip * phi, (long) sizes.m() * sizes.t(), muEach);
    GaussianSketchNoise z =
        GaussianSketchNoise.calibrate("Z", clip * s, (long) sizes.v() * sizes.n(), muEach);
    return new Priv2Plan(privacy, clip, sizes, jlDeltaShare, phi, s, y, z, 0);
  }

  /**
   * The sparse variant for a tree of depth {@code compositions} (1 = one shot): Φ and S with
   * {@code sparsity} non-zeros ±1/√s per column; sensitivity exactly C for each of Y and Z under
   * single-entry neighbours; μ² split over 2 sketches × L nodes as above, all of δ to the
   * Gaussian mechanisms.
   */
  public static Priv2Plan calibrateSparse(PrivacyParams privacy, double clip, SketchSizes sizes,
      int sparsity, int compositions) {
    Preconditions.checkPositive("sparsity", sparsity);
    Preconditions.check(sparsity <= sizes.t(), "sparsity", "<= t = " + sizes.t(), sparsity);
    Preconditions.checkPositive("compositions", compositions);
    double mu = AnalyticGaussian.mu(privacy.epsilon(), privacy.delta());
    double muEach = mu / Math.sqrt(2.0 * compositions);
    GaussianSketchNoise y =
        GaussianSketchNoise.calibrate("Y", clip, (long) sizes.m() * sizes.t(), muEach);
    GaussianSketchNoise z =
        GaussianSketchNoise.calibrate("Z", clip, (long) sizes.v() * sizes.n(), muEach);
    return new Priv2Plan(privacy, clip, sizes, 0, 1, 1, y, z, sparsity);
  }
}
