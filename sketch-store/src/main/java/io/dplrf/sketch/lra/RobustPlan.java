package io.dplrf.sketch.lra;

import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.StableMatrices;

/**
 * Noise of ROBUST-LRA (paper 000, Algorithm 1: Yr = ΦA + N1, Yc = AΨ + N2, Z = SAT + N3) and
 * ROBUST-PCA (Algorithm 2, in dplrf's orientation the same sketch without Yc), neighbours
 * ‖A − A′‖₁ ≤ C. Pure ε-DP: δ is not used. Derivation: docs/privacy/robust.md §3–4.
 *
 * <p>Sensitivity, exact for the matrices drawn ({@link RobustMatrices}): by linearity and the
 * triangle inequality an ℓ1 change of mass C moves Yr by ≤ C·a, Yc by ≤ C·b and Z by ≤ C·c·d in
 * ℓ1, a, b, c·d the largest column ℓ1 norms. Each of the P noisy sketches (3, or 2 for PCA) gets
 * ε/P; over a continual-release tree one unit's change sums to ≤ L·C per sketch over all nodes
 * (L = {@code compositions}), so the node scale is L times the one-shot one, and the grid
 * rounding slack is charged for all {@code roundedNodes} nodes.
 *
 * @param stableClip the p-stable entries' clip level factor (τ = factor·sketch dimension)
 * @param yc null for ROBUST-PCA
 */
public record RobustPlan(
    PrivacyParams privacy,
    double clip,
    SketchSizes sizes,
    double p,
    boolean pca,
    int compositions,
    long roundedNodes,
    double phiFactor,
    double psiFactor,
    double stFactor,
    double stableClip,
    LaplaceSketchNoise yr,
    LaplaceSketchNoise yc,
    LaplaceSketchNoise z) {

  public RobustPlan {
    StableMatrices.checkP(p);
    Preconditions.checkPositive("compositions", compositions);
    Preconditions.check(roundedNodes >= compositions, "roundedNodes", ">= compositions", roundedNodes);
    Preconditions.check(pca == (yc == null), "yc noise", pca ? "absent for PCA" : "present", yc);
  }

  /** The neighbouring relation's name in release documents. */
  public static final String RELATION = "entrywise l1";

  /**
   * Default sizes of the robust sketches: t = min(4k, m, n) (Table 2: every width
   * O(k log k log(1/δ)); the noise grows with the width, the p-stable embedding needs only
   * O(k log k) rows) and v = 2t (S, T: Z_c = S·Yc is v×t and should be well conditioned).
   * {@code t}, {@code v} override (null keeps the default; v defaults to max(2t, ...)).
   */
  public static SketchSizes defaultSizes(int m, int n, int k, Integer t, Integer v) {
    Preconditions.checkPositive("rank (k)", k);
    int tt = t != null ? t : Math.max(Math.min(k, Math.min(m, n)), Math.min(4 * k, Math.min(m, n)));
    int vv = v != null ? v : 2 * tt;
    return new SketchSizes(m, n, k, tt, vv);
  }

  /** One-shot plan: L = N = 1. */
  public static RobustPlan calibrate(
      PrivacyParams privacy, double clip, RobustMatrices mats) {
    return calibrate(privacy, clip, mats, 1, 1);
  }

  /**
   * The plan of one node of a tree whose updates land in at most {@code compositions} nodes and
   * which has {@code roundedNodes} nodes in all.
   */
  public static RobustPlan calibrate(PrivacyParams privacy, double clip, RobustMatrices mats,
      int compositions, long roundedNodes) {
    Preconditions.checkPositiveFinite("clip", clip);
    SketchSizes sz = mats.sizes();
    int parts = mats.pca() ? 2 : 3;
    double eps = privacy.epsilon() / parts;
    double lc = compositions * clip;
    LaplaceSketchNoise yr = LaplaceSketchNoise.calibrate(
        "Yr", lc * mats.phiFactor(), (long) sz.t() * sz.n(), roundedNodes, eps);
    LaplaceSketchNoise yc = mats.pca() ? null : LaplaceSketchNoise.calibrate(
        "Yc", lc * mats.psiFactor(), (long) sz.m() * sz.t(), roundedNodes, eps);
    LaplaceSketchNoise z = LaplaceSketchNoise.calibrate(
        "Z", lc * mats.stFactor(), (long) sz.v() * sz.v(), roundedNodes, eps);
    return new RobustPlan(privacy, clip, sz, mats.p(), mats.pca(), compositions, roundedNodes,
        mats.phiFactor(), mats.psiFactor(), mats.stFactor(), mats.stableClip(), yr, yc, z);
  }

  /** True iff {@code mats} are the matrices this plan's sensitivities were computed from. */
  boolean matches(RobustMatrices mats) {
    return mats.sizes().equals(sizes) && mats.p() == p && mats.pca() == pca
        && mats.phiFactor() == phiFactor && mats.psiFactor() == psiFactor
        && mats.stFactor() == stFactor && mats.stableClip() == stableClip;
  }
}
