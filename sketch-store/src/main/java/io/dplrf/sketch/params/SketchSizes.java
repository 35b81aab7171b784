package io.dplrf.sketch.params;

import static io.dplrf.sketch.params.Preconditions.check;
import static io.dplrf.sketch.params.Preconditions.checkPositive;

/**
 * Shape of a low-rank sketch: an m×n input, target rank k, column-sketch width t and
 * affine-embedding width v (paper 002, Algorithm 1 line 1).
 *
 * <p>Constraints: 1 ≤ k ≤ t ≤ m (the column-space basis U is m×t and must be able to hold
 * rank k) and t ≤ v (S·U is v×t and must have full column rank).
 */
public record SketchSizes(int m, int n, int k, int t, int v) {
  /** Default multiplicative-error target α when the user gives none. */
  public static final double DEFAULT_ALPHA = 0.25;

  /**
   * The constant that stands for O(·)·log(k/δ) in the paper's size formulas. 2.5 was chosen by
   * the accuracy benchmark (docs/benchmarks-accuracy.md): on the 2000×3000 rank-10 matrix at ε = 1 it
   * brings Priv2 from 2.7× (c = 1) to under 2× the dense baseline's error at ≤ 25% of its memory;
   * a wider t mainly shrinks the χ² sensitivity factor of Y = AΦ + N1.
   */
  public static final double SIZE_CONSTANT = 2.5;

  public SketchSizes {
    checkPositive("rows (m)", m);
    checkPositive("cols (n)", n);
    checkPositive("rank (k)", k);
    checkPositive("sketch-cols (t)", t);
    checkPositive("sketch-rows (v)", v);
    check(k <= t, "rank (k)", "<= sketch-cols t = " + t, k);
    check(t <= m, "sketch-cols (t)", "<= rows m = " + m + " (the column basis U is m x t)", t);
    check(t <= v, "sketch-rows (v)", ">= sketch-cols t = " + t + " (S U must have full rank)", v);
  }

  /**
   * Paper 002, Algorithm 1 line 1: η = max(k, 1/α), t = O(η α⁻¹ log(k/δ)),
   * v = O(η α⁻² log(k/δ)). We write the O(·)·log(k/δ) factor as the constant
   * {@link #SIZE_CONSTANT} (the log factor buys a 1−δ success probability for the embedding
   * property, whose failure costs accuracy, not privacy), then clamp t to m and keep v ≥ t.
   * Both sizes are overridable.
   */
  public static SketchSizes defaults(int m, int n, int k, double alpha) {
    check(alpha > 0 && alpha < 1, "alpha", "in the open interval (0, 1)", alpha);
    checkPositive("rank (k)", k);
    double eta = Math.max(k, 1 / alpha);
    int t = (int) Math.min(m, Math.ceil(SIZE_CONSTANT * eta / alpha));
    int v = (int) Math.max(t, Math.ceil(SIZE_CONSTANT * eta / (alpha * alpha)));
    return new SketchSizes(m, n, k, Math.max(t, Math.min(k, m)), v);
  }

  /** Same as {@link #defaults} but with explicit t and/or v (null keeps the default). */
  public static SketchSizes of(int m, int n, int k, Integer t, Integer v, double alpha) {
    SketchSizes d = defaults(m, n, k, alpha);
    int tt = t != null ? t : d.t();
    int vv = v != null ? v : Math.max(d.v(), tt);
    return new SketchSizes(m, n, k, tt, vv);
  }
}
