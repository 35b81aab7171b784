package io.dplrf.sketch.pca;

import io.dplrf.sketch.lra.Priv2Matrices;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.lra.Priv2Sketch;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;

/**
 * The Priv2 sketches applied to the d×d matrix AᵀA (paper 002, Corollary 1: "using AᵀA as the
 * input matrix" for rows of bounded norm).
 *
 * <p>Privacy without new analysis. Under {@link io.dplrf.sketch.params.NeighbouringRelation#ONE_ROW}
 * the input AᵀA changes by ±x xᵀ with ‖x xᵀ‖_F = ‖x‖₂² ≤ C², i.e. the two Gram matrices are
 * Priv2 neighbours (‖G − G'‖_F ≤ C') with C' = C². {@link Priv2Plan} is private for every
 * difference of Frobenius norm ≤ C' — its sketching-matrix bound is the Chernoff bound of a
 * χ² mixture that holds for every D with ‖D‖_F ≤ C' (docs/privacy/README.md §4) — so calibrating
 * it with clip C² is the whole argument.
 *
 * <p>Space. The sketches are Y = GΦ + N1 (d×t) and Z = SG + N2 (v×d), Õ(d k/α²) as the corollary
 * says; this one-shot path, however, first accumulates the exact G in a {@link Gram} (d²
 * doubles) and feeds its entries as d² updates, which gives the same sketch as feeding every
 * x xᵀ (the sketch is linear) at a fraction of the cost.
 */
public final class AtaSketch {
  private AtaSketch() {}

  /** Priv2's plan for the d×d matrix AᵀA with the row bound C: clip C² (class comment). */
  public static Priv2Plan plan(PrivacyParams privacy, double clip, SketchSizes sizes) {
    if (sizes.m() != sizes.n()) {
      throw new IllegalArgumentException(
          "AᵀA is square: sketch sizes must have m = n = d, got " + sizes.m() + "x" + sizes.n());
    }
    io.dplrf.sketch.params.Preconditions.checkPositiveFinite("clip", clip);
    return Priv2Plan.calibrate(privacy, clip * clip, sizes);
  }

  /**
   * A Priv2 sketch of {@code gram} with its noise in: sketching matrices from
   * {@code instance}, noise from the node label {@code instance + "/node"}. Use a fresh instance
   * label per run.
   */
  public static Priv2Sketch sketch(Priv2Plan plan, Gram gram, SecretKey key, String instance) {
    if (plan.sizes().m() != gram.dimension() || plan.clip() != gram.clip() * gram.clip()) {
      throw new IllegalArgumentException("Gram matrix (d = " + gram.dimension() + ", C = "
          + gram.clip() + ") does not match the plan");
    }
    Priv2Sketch sk = Priv2Sketch.create(
        plan, Priv2Matrices.generate(key, instance, plan.sizes(), false), key, instance + "/node");
    Dense g = gram.toDense();
    int d = gram.dimension();
    for (int i = 0; i < d; i++) {
      for (int j = 0; j < d; j++) {
        double v = g.get(i, j);
        if (v != 0) {
          sk.update(i, j, v);
        }
      }
    }
    return sk;
  }
}
