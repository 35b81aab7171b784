package io.dplrf.sketch.noise;

import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.randomness.RandomBits;
import java.util.Objects;

/**
 * Laplace noise for real-valued queries under pure DP, exactly: the query is rounded to a
 * power-of-two grid γℤ and γ·DLap(s) is added (the discrete Laplace / geometric mechanism on the
 * integer query value/γ), with b_eff = s·γ ≥ the requested scale b, s ∈ [2^30, 2^31).
 *
 * <p><b>Rounding slack.</b> As in {@link GridGaussian}, per coordinate |r(a) − r(b)| ≤ |a − b| +
 * γ, so for k changed coordinates ‖r(x) − r(x′)‖₁ ≤ ‖x − x′‖₁ + γ·k: calibrate ε against
 * (Δ₁ + {@link #roundingSlackL1}(γ, k))/b_eff.
 *
 * <p>Immutable and thread-safe (the {@link RandomBits} argument is not).
 */
public final class GridLaplace {
  private final PowerOfTwoGrid grid;

  private GridLaplace(PowerOfTwoGrid grid) {
    this.grid = grid;
  }

  /**
   * The grid Laplace with the smallest scale b_eff = s·γ ≥ {@code scale}.
   *
   * @param scale the required Laplace scale b, in [2^−992, 2^960]
   */
  public static GridLaplace atLeast(double scale) {
    return new GridLaplace(PowerOfTwoGrid.fit("scale", scale));
  }

  public double gamma() {
    return grid.gamma();
  }

  /** s: b_eff in grid units. */
  public long scale() {
    return grid.scale();
  }

  /** b_eff = s·γ (exact). */
  public double effectiveScale() {
    return grid.scaled(grid.scale());
  }

  /** γ·X with X ~ DLap(s); a multiple of γ, exactly. */
  public double sample(RandomBits bits) {
    Objects.requireNonNull(bits, "bits");
    return grid.scaled(DiscreteLaplace.sample(bits, grid.scale(), 1));
  }

  public void fill(RandomBits bits, double[] dst, int off, int len) {
    Objects.requireNonNull(bits, "bits");
    Objects.checkFromIndexSize(off, len, dst.length);
    for (int i = off; i < off + len; i++) {
      dst[i] = grid.scaled(DiscreteLaplace.sample(bits, grid.scale(), 1));
    }
  }

  /** Same rounding as {@link GridGaussian#roundToGrid}. */
  public static double roundToGrid(double x, double gamma) {
    return GridGaussian.roundToGrid(x, gamma);
  }

  /**
   * The extra ℓ1 sensitivity γ·k that rounding can add when k coordinates change (exact for k <=
   * 2^53, rounded up beyond).
   */
  public static double roundingSlackL1(double gamma, long changedCoordinates) {
    PowerOfTwoGrid.checkPowerOfTwo(gamma);
    Preconditions.check(changedCoordinates >= 0, "changedCoordinates", ">= 0", changedCoordinates);
    double product = gamma * (double) changedCoordinates;
    return changedCoordinates <= (1L << 53) ? product : Math.nextUp(product);
  }

  /** Equal grids (step and scale) sample the same law from the same bits. */
  @Override
  public boolean equals(Object o) {
    return o instanceof GridLaplace g && g.grid.equals(grid);
  }

  @Override
  public int hashCode() {
    return grid.hashCode();
  }

  @Override
  public String toString() {
    return "GridLaplace[gamma=2^" + grid.exponent() + ", s=" + grid.scale()
        + ", scaleEff=" + effectiveScale() + "]";
  }
}
