package io.dplrf.sketch.lra;


import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.ChiSquare;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import java.util.List;

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
 * <p>Entrywise-ℓ1 neighbours ({@link #calibrateL1}, the service's privacy units: one update, or
 * a key's or a row's updates with Σ|Δ| ≤ C; docs/privacy/l1-units.md). By Lemma 1 there, a linear
 * sketch's sensitivity over the ℓ1 ball is reached at a single entry: ‖DΦ‖_F ≤ C·max_j ‖row j of
 * Φ‖ and ‖SD‖_F ≤ C·max_i ‖column i of S‖, for every draw. The factors are those maxima of the
 * drawn matrices ({@link Priv2Matrices#maxRowNormOfPhi}, {@link Priv2Matrices#maxColumnNormOfS}):
 * exactly 1 for sparse sign embeddings ({@code sparsity} s &gt; 0, every column of norm exactly 1),
 * computed and rounded up for Gaussian ones. No tail bound, so no δ_JL (share 0). Sparse
 * embeddings are NOT private for general Frobenius-bounded differences (a unit spreading C/√r
 * over r entries of one sketch bucket has ‖DΦ‖_F up to √(n/t)·C, but ‖D‖₁ = √r·C:
 * docs/privacy/sparse-embeddings.md §4). Per update they cost O(s) instead of O(t + v).
 *
 * <p>Grid rounding in a tree (l1-units.md §3): a unit can touch up to R = {@code roundedNodes}
 * nodes, each adding γ√k of rounding slack; by Minkowski the tree stays μ-GDP when every node is
 * calibrated for Δ = C·b + γ√(k·⌈R/L⌉), so each noise part counts k·⌈R/L⌉ rounded coordinates.
 * The χ² plans above charge R = L (one update, or one row record, lies in one epoch).
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

  /**
   * The noise of one release of a sketch on this plan, as {@link Priv2Sketch#release} reports
   * it: Y (m×t entries) and Z (v×n entries) with their σ and sensitivity.
   */
  public List<NoiseScale> releaseNoise() {
    return List.of(yNoise.scale((long) sizes.m() * sizes.t()),
        zNoise.scale((long) sizes.v() * sizes.n()));
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
   * The sparse variant under entrywise-ℓ1 neighbours with R = L ({@link #calibrateL1}): one shot
   * ({@code compositions} 1), or a tree whose units each lie in one epoch.
   */
  public static Priv2Plan calibrateSparse(PrivacyParams privacy, double clip, SketchSizes sizes,
      int sparsity, int compositions) {
    return calibrateL1(privacy, clip, sizes, 1, 1, sparsity, compositions, compositions);
  }

  /**
   * A plan for entrywise-ℓ1 neighbours ‖A − A'‖₁ ≤ C on the drawn {@code mats} (l1-units.md
   * §2–4): sensitivities C·b_Φ and C·b_S from the matrices' largest row of Φ and column of S, all of
   * δ to the Gaussian mechanisms, μ² split over 2 sketches × L = {@code compositions} levels, the
   * grid-rounding slack charged for {@code roundedNodes} nodes (1 and 1 one shot; L and the tree's
   * node count for a continual-release tree).
   */
  public static Priv2Plan calibrateL1(PrivacyParams privacy, double clip, Priv2Matrices mats,
      int compositions, long roundedNodes) {
    return calibrateL1(privacy, clip, mats.sizes(), mats.maxRowNormOfPhi(),
        mats.maxColumnNormOfS(), mats.sparsity, compositions, roundedNodes);
  }

  private static Priv2Plan calibrateL1(PrivacyParams privacy, double clip, SketchSizes sizes,
      double phiFactor, double sFactor, int sparsity, int compositions, long roundedNodes) {
    // Entries ±1/√s are exact in binary, and every column's norm exactly 1, iff √s is a power of 2.
    Preconditions.check(sparsity == 0 || Integer.bitCount(sparsity) == 1
        && Integer.numberOfTrailingZeros(sparsity) % 2 == 0, "sparsity", "0 or a power of 4",
        sparsity);
    Preconditions.check(sparsity <= sizes.t(), "sparsity", "<= t = " + sizes.t(), sparsity);
    Preconditions.checkPositive("compositions", compositions);
    Preconditions.check(roundedNodes >= compositions, "roundedNodes", ">= compositions",
        roundedNodes);
    double mu = AnalyticGaussian.mu(privacy.epsilon(), privacy.delta());
    double muEach = mu / Math.sqrt(2.0 * compositions);
    long perLevel = (roundedNodes + compositions - 1) / compositions; // ⌈R/L⌉
    GaussianSketchNoise y = GaussianSketchNoise.calibrate("Y", clip * phiFactor,
        Math.multiplyExact((long) sizes.m() * sizes.t(), perLevel), muEach);
    GaussianSketchNoise z = GaussianSketchNoise.calibrate("Z", clip * sFactor,
        Math.multiplyExact((long) sizes.v() * sizes.n(), perLevel), muEach);
    return new Priv2Plan(privacy, clip, sizes, 0, phiFactor, sFactor, y, z, sparsity);
  }

  /**
   * The neighbouring relation this plan is calibrated for: Frobenius with the χ² bound (a share
   * of δ spent on the sketching matrices), else entrywise ℓ1 (exact factors of the drawn matrices).
   */
  public NeighbouringRelation relation() {
    return jlDeltaShare > 0 ? NeighbouringRelation.FROBENIUS : NeighbouringRelation.ENTRYWISE_L1;
  }
}
