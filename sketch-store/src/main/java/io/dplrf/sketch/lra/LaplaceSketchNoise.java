package io.dplrf.sketch.lra;

import io.dplrf.sketch.noise.GridLaplace;

/**
 * The calibrated Laplace noise of one noisy sketch of the robust mechanisms (pure ε-DP,
 * docs/privacy/robust.md §4): the sketch is released as round_γ(X) + γ·DLap(s), b_eff = s·γ,
 * and (Δ + N·γ·k)/b_eff ≤ ε_share, where Δ is the ℓ1 sensitivity over all nodes one unit can
 * change (L·C times the drawn matrices' column-norm bound), k the sketch's entries (every one can
 * change under an ℓ1-bounded difference) and N the number of nodes whose rounding can change
 * ({@link io.dplrf.sketch.noise.GridLaplace#roundingSlackL1}).
 *
 * @param sketch name in the paper's notation ("Yr", "Yc", "Z")
 * @param l1Sensitivity Δ: the ℓ1 sensitivity of the exact query summed over the tree's nodes
 * @param entries k, the number of entries (all of them may change)
 * @param roundedNodes N, the nodes whose grid rounding is charged (1 one-shot, 2T − 1 in a tree)
 * @param epsilon this sketch's share of ε
 * @param grid the sampler: grid step and integer scale
 */
public record LaplaceSketchNoise(String sketch, double l1Sensitivity, long entries,
    long roundedNodes, double epsilon, GridLaplace grid) {

  /**
   * The smallest grid Laplace meeting (Δ + N·γ·k)/b_eff ≤ ε.
   *
   * @throws IllegalArgumentException if the rounding slack alone takes half of ε (a tree with
   *     too many nodes × entries for the 2⁻³⁰ grid)
   */
  public static LaplaceSketchNoise calibrate(
      String sketch, double l1Sensitivity, long entries, long roundedNodes, double epsilon) {
    if (!(l1Sensitivity > 0) || Double.isInfinite(l1Sensitivity) || !(epsilon > 0)) {
      throw new IllegalArgumentException("cannot calibrate " + sketch + ": l1 sensitivity "
          + l1Sensitivity + ", epsilon " + epsilon);
    }
    double target = l1Sensitivity / epsilon;
    for (int attempt = 0; attempt < 8; attempt++) {
      GridLaplace grid = GridLaplace.atLeast(target);
      double slack = slack(grid, entries, roundedNodes);
      if (slack / grid.effectiveScale() > epsilon / 2) {
        throw new IllegalArgumentException("the grid rounding slack of " + sketch + " over "
            + roundedNodes + " nodes of " + entries + " entries exceeds half its epsilon share; "
            + "use fewer epochs or smaller sketches");
      }
      if ((l1Sensitivity + slack) / grid.effectiveScale() <= epsilon) {
        return new LaplaceSketchNoise(sketch, l1Sensitivity, entries, roundedNodes, epsilon, grid);
      }
      target = (l1Sensitivity + slack) / epsilon;
    }
    throw new IllegalStateException("grid calibration did not settle for " + sketch);
  }

  private static double slack(GridLaplace grid, long entries, long nodes) {
    return Math.nextUp(GridLaplace.roundingSlackL1(grid.gamma(), entries) * (double) nodes);
  }

  /** b_eff, the Laplace scale. */
  public double scale() {
    return grid.effectiveScale();
  }

  /** Δ plus the rounding slack: what b_eff was calibrated to. */
  public double sensitivityWithSlack() {
    return l1Sensitivity + slack(grid, entries, roundedNodes);
  }

  /**
   * The released noise description: σ = √2·b_eff (the Laplace standard deviation), sensitivity
   * = the ℓ1 sensitivity with slack (not an ℓ2 one: the robust mechanisms are ℓ1-calibrated).
   */
  public NoiseScale scale(long releasedEntries) {
    return new NoiseScale(sketch, Math.sqrt(2) * scale(), sensitivityWithSlack(), releasedEntries);
  }
}
