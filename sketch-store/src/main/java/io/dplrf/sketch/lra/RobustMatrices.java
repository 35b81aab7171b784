package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.PublicSeed;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.randomness.StableMatrices;

/**
 * The p-stable sketching matrices of ROBUST-LRA / ROBUST-PCA — secret (from the service's key)
 * centrally, public (from a published seed, {@link #generatePublic}) for local-robust — (paper
 * 000, Algorithm 1 line 2, in dplrf's orientation, docs/privacy/robust.md §1): Φ (t×m), Ψ (n×t, kept as Ψᵀ t×n),
 * S (v×m), T (n×v, kept as Tᵀ v×n). Entries are clipped at τ = the sketch dimension (t or v) and
 * scaled by 1/τ (supplement Lemma 19's 1/s), so every entry lies in [−1, 1]. ROBUST-PCA has no Yc
 * and no Ψ.
 *
 * <p>All four are generated once and held in memory ((t + v)(m + n) doubles): every update reads
 * a column of each, and the sensitivity needs every column's ℓ1 norm anyway. The column-norm
 * maxima a = max_i ‖Φ[:,i]‖₁, b = max_j ‖Ψ[j,:]‖₁, c = max_i ‖S[:,i]‖₁, d = max_j ‖T[j,:]‖₁ are
 * the exact sensitivity factors of §3 (rounded up by a relative 2⁻³⁰ against the summation's
 * rounding). Immutable and thread-safe once built.
 */
public final class RobustMatrices {
  /**
   * Relative margin on the computed ℓ1 norms: a sum of r ≤ {@value #MAX_SKETCH_DIM} non-negative
   * doubles errs by at most (r − 1)·2⁻⁵³ < 2⁻³³ relative, below this 2⁻³⁰.
   */
  static final double NORM_MARGIN = 1 + 0x1.0p-30;
  /** Largest sketch dimension t, v (keeps the summation error under the margin). */
  static final int MAX_SKETCH_DIM = 1 << 20;

  final SketchSizes sizes;
  final String instance;
  final double p;
  final boolean pca;
  final double stableClip;
  final CachedColumns phi; // t × m
  final CachedColumns psiT; // t × n (null for PCA)
  final CachedColumns s; // v × m
  final CachedColumns tT; // v × n
  final double a;
  final double b;
  final double c;
  final double d;

  /** Where the entries come from: a secret key (central) or a public seed (local-DP clients). */
  @FunctionalInterface
  private interface Source {
    SketchMatrix stable(String label, int rows, int cols, double p, double clip, double scale);
  }

  private RobustMatrices(Source key, String instance, SketchSizes sz, double p, boolean pca,
      double stableClip) {
    StableMatrices.checkP(p);
    Preconditions.check(stableClip > 0, "stable-clip", "> 0 (infinity: no clipping)", stableClip);
    Preconditions.check(sz.v() <= MAX_SKETCH_DIM, "sketch-rows (v)", "<= 2^20", sz.v());
    this.sizes = sz;
    this.instance = instance;
    this.p = p;
    this.pca = pca;
    this.stableClip = stableClip;
    String base = instance + "/robust-p" + p + "/";
    phi = matrix(key, base + "phi", sz.t(), sz.m(), p, stableClip);
    psiT = pca ? null : matrix(key, base + "psi", sz.t(), sz.n(), p, stableClip);
    s = matrix(key, base + "S", sz.v(), sz.m(), p, stableClip);
    tT = matrix(key, base + "T", sz.v(), sz.n(), p, stableClip);
    a = maxColumnL1(phi);
    b = pca ? 0 : maxColumnL1(psiT);
    c = maxColumnL1(s);
    d = maxColumnL1(tT);
  }

  /**
   * The matrices of one instance.
   *
   * @param p stability index in [1, 2)
   * @param pca ROBUST-PCA (no Ψ) rather than ROBUST-LRA
   */
  public static RobustMatrices generate(
      SecretKey key, String instance, SketchSizes sizes, double p, boolean pca) {
    return generate(key, instance, sizes, p, pca, DEFAULT_STABLE_CLIP);
  }

  /**
   * As above with clip level τ = {@code stableClip}·(sketch dimension) (∞: no clipping; the
   * sensitivity is then the raw largest column norm, docs/privacy/robust.md §2).
   */
  public static RobustMatrices generate(SecretKey key, String instance, SketchSizes sizes,
      double p, boolean pca, double stableClip) {
    java.util.Objects.requireNonNull(key, "key");
    return new RobustMatrices((label, r, c, pp, clip, scale)
        -> StableMatrices.stable(key, label, r, c, pp, clip, scale), instance, sizes, p, pca,
        stableClip);
  }

  /**
   * The same matrices derived from a <b>public</b> seed instead of a secret key, for the local
   * protocol LOCAL-ROBUST-PCA (paper 001, Appendix C, Algorithm 3 line 1: "all these matrices
   * are publicly available"). The sensitivity factors are computed exactly as for secret ones:
   * the argument of robust.md §3 holds for every fixed draw, public or not.
   */
  public static RobustMatrices generatePublic(PublicSeed seed, String instance, SketchSizes sizes,
      double p, boolean pca, double stableClip) {
    java.util.Objects.requireNonNull(seed, "seed");
    return new RobustMatrices((label, r, c, pp, clip, scale)
        -> StableMatrices.stable(seed, label, r, c, pp, clip, scale), instance, sizes, p, pca,
        stableClip);
  }

  /** Default clip level factor: τ = 1·rows, every scaled entry in [−1, 1]. */
  public static final double DEFAULT_STABLE_CLIP = 1;

  private static CachedColumns matrix(Source key, String label, int rows, int cols, double p,
      double stableClip) {
    // τ = stableClip·rows, then ×1/rows: entries in [−stableClip, stableClip] (robust.md §2).
    return new CachedColumns(key.stable(label, rows, cols, p, stableClip * rows, 1.0 / rows));
  }

  private static double maxColumnL1(CachedColumns m) {
    double[] data = m.data();
    int rows = m.rows();
    double max = 0;
    for (int j = 0; j < m.cols(); j++) {
      double sum = 0;
      for (int r = 0; r < rows; r++) {
        sum += Math.abs(data[j * rows + r]);
      }
      max = Math.max(max, sum);
    }
    return max * NORM_MARGIN;
  }

  public SketchSizes sizes() {
    return sizes;
  }

  public String instance() {
    return instance;
  }

  public double p() {
    return p;
  }

  public boolean pca() {
    return pca;
  }

  /** The clip level factor (τ = factor·sketch dimension; ∞ = none). */
  public double stableClip() {
    return stableClip;
  }

  /** max_i ‖Φ[:, i]‖₁ (rounded up): the ℓ1 sensitivity factor of Yr = ΦA. */
  public double phiFactor() {
    return a;
  }

  /** max_j ‖Ψ[j, :]‖₁ (rounded up): the factor of Yc = AΨ; 0 for ROBUST-PCA. */
  public double psiFactor() {
    return b;
  }

  /** max_i ‖S[:, i]‖₁ · max_j ‖T[j, :]‖₁ (rounded up): the factor of Z = SAT. */
  public double stFactor() {
    return Math.nextUp(c * d);
  }

  /** Φ (t×m): column i is what row i of A adds to Yr = ΦA (a local client's own column). */
  public SketchMatrix phi() {
    return phi;
  }

  /** S (v×m), for post-processing (Z_c = S·Yc). */
  public SketchMatrix s() {
    return s;
  }

  /** Tᵀ (v×n), for post-processing (Z_r = Yr·T). */
  public SketchMatrix tTransposed() {
    return tT;
  }

  long sizeInBytes() {
    return CachedColumns.bytes(phi) + (psiT == null ? 0 : CachedColumns.bytes(psiT))
        + CachedColumns.bytes(s) + CachedColumns.bytes(tT);
  }
}
