package io.dplrf.sketch.noise;

import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.randomness.RandomBits;
import java.util.Objects;

/**
 * Gaussian noise for real-valued queries, exactly: the query is rounded to a power-of-two grid
 * γℤ and γ·N_ℤ(0, s²) is added, so that noisy value / γ is an integer query plus discrete Gaussian
 * noise — the setting of Canonne, Kamath, Steinke (NeurIPS 2020) — with σ_eff = s·γ ≥ the
 * requested σ.
 *
 * <p><b>Grid.</b> γ = 2^e is chosen so that s = ⌈σ/γ⌉ ∈ [2^30, 2^31) (K = 30, the largest the
 * exact long arithmetic of {@link DiscreteGaussian} allows). Hence σ ≤ σ_eff < σ + γ ≤
 * σ(1 + 2^−30).
 *
 * <p><b>Rounding slack.</b> Let r(a) = γ·round(a/γ) ({@link #roundToGrid}); |r(a) − a| ≤ γ/2, so
 * for one coordinate |r(a) − r(b)| ≤ |a − b| + γ, and r(a) = r(b) when a = b. For query values x,
 * x′ that differ in k coordinates, r(x) − r(x′) = (x − x′) + e with |e_j| ≤ γ on those k
 * coordinates and e_j = 0 elsewhere, so ‖e‖₂ ≤ γ√k and, by the triangle inequality,
 * ‖r(x) − r(x′)‖₂ ≤ ‖x − x′‖₂ + γ√k. Calibration must therefore use the sensitivity
 * Δ₂ + {@link #roundingSlack}(γ, k), measured in grid units as (Δ₂ + γ√k)/γ against s.
 *
 * <p>Immutable and thread-safe (the {@link RandomBits} argument is not).
 */
public final class GridGaussian {
  /** log2 of the smallest grid scale s; s ∈ [2^K, 2^(K+1)). */
  public static final int K = PowerOfTwoGrid.K;

  private final PowerOfTwoGrid grid;
  private final DiscreteGaussian gaussian;
  /** Built at first use (1–8 ms of tables); deterministic, so a racing second build is equal. */
  private volatile BlockDiscreteGaussian blocked;

  private GridGaussian(PowerOfTwoGrid grid) {
    this.grid = grid;
    this.gaussian = DiscreteGaussian.withScale(grid.scale());
  }

  /**
   * The grid Gaussian with the smallest σ_eff = s·γ ≥ {@code sigma} on the grid described above.
   *
   * @param sigma the required standard deviation, in [2^−992, 2^960]
   */
  public static GridGaussian atLeast(double sigma) {
    return new GridGaussian(PowerOfTwoGrid.fit("sigma", sigma));
  }

  /** The grid step γ, a power of two. */
  public double gamma() {
    return grid.gamma();
  }

  /** s: σ_eff in grid units. */
  public long scale() {
    return grid.scale();
  }

  /** σ_eff = s·γ (exact). */
  public double effectiveSigma() {
    return grid.scaled(grid.scale());
  }

  /** γ·X with X ~ N_ℤ(0, s²); a multiple of γ, exactly. */
  public double sample(RandomBits bits) {
    return grid.scaled(gaussian.sample(bits));
  }

  /** Writes {@code len} independent samples to {@code dst[off .. off + len)}. */
  public void fill(RandomBits bits, double[] dst, int off, int len) {
    Objects.requireNonNull(bits, "bits");
    Objects.checkFromIndexSize(off, len, dst.length);
    for (int i = off; i < off + len; i++) {
      dst[i] = grid.scaled(gaussian.sample(bits));
    }
  }

  /**
   * Adds {@code len} independent samples to {@code dst[off .. off + len)}, in order: the same
   * samples, from the same bits, as {@link #fill} would write there.
   */
  public void addTo(RandomBits bits, double[] dst, int off, int len) {
    Objects.requireNonNull(bits, "bits");
    Objects.checkFromIndexSize(off, len, dst.length);
    for (int i = off; i < off + len; i++) {
      dst[i] += grid.scaled(gaussian.sample(bits));
    }
  }

  /**
   * As {@link #addTo(RandomBits, double[], int, int)} with the given sampler: {@link
   * GaussianSampler#CKS} is exactly that method; {@link GaussianSampler#BLOCKED} draws the same law
   * with {@link BlockDiscreteGaussian}, reading the bits differently.
   */
  public void addTo(GaussianSampler sampler, RandomBits bits, double[] dst, int off, int len) {
    if (sampler == GaussianSampler.CKS) {
      addTo(bits, dst, off, len);
      return;
    }
    Objects.requireNonNull(bits, "bits");
    Objects.checkFromIndexSize(off, len, dst.length);
    BlockDiscreteGaussian g = blocked;
    if (g == null) {
      g = BlockDiscreteGaussian.withScale(grid.scale());
      blocked = g;
    }
    BitReader reader = new BitReader(bits);
    for (int i = off; i < off + len; i++) {
      dst[i] += grid.scaled(g.sample(reader));
    }
  }

  /**
   * x rounded to the nearest multiple of γ, halves away from zero. Exact: x/γ and the result are
   * scalings by a power of two, and the integer/fraction split below is exact for |x/γ| < 2^52
   * (beyond that x is already a multiple of γ).
   *
   * @param x finite
   * @param gamma a positive normal power of two
   */
  public static double roundToGrid(double x, double gamma) {
    Preconditions.check(Double.isFinite(x), "x", "finite", x);
    PowerOfTwoGrid.checkPowerOfTwo(gamma);
    return rounded(x, gamma);
  }

  /**
   * Every entry of {@code data} rounded in place as {@link #roundToGrid(double, double)} rounds it
   * (the same values), with γ checked once: a release rounds 50 M entries.
   *
   * @param data finite entries
   * @param gamma a positive normal power of two
   */
  public static void roundToGrid(double[] data, double gamma) {
    roundToGrid(data, 0, data.length, gamma);
  }

  /**
   * Entries [from, to) of {@code data} rounded in place as {@link #roundToGrid(double[], double)}
   * rounds them: for work done chunk by chunk (the BLT stream's epoch close).
   *
   * @param data finite entries in [from, to)
   * @param gamma a positive normal power of two
   */
  public static void roundToGrid(double[] data, int from, int to, double gamma) {
    PowerOfTwoGrid.checkPowerOfTwo(gamma);
    java.util.Objects.checkFromToIndex(from, to, data.length);
    for (int i = from; i < to; i++) {
      double x = data[i];
      if (!Double.isFinite(x)) {
        throw Preconditions.invalid("x", "finite", x);
      }
      data[i] = rounded(x, gamma);
    }
  }

  /**
   * |x|/γ = q rounded half up, signed: rint(q) is the nearest integer r, ties to even, and a tie
   * sent down (q − r = 0.5, exact since |q − r| ≤ ½ and r is 0 or within a factor 2 of q) goes up
   * instead. Branch-free but for that rare tie: a comparison of q's fraction with ½ mispredicted
   * half the time on sketch values, ≈ 10 ns per entry of a release's 50 M.
   */
  private static double rounded(double x, double gamma) {
    double q = Math.abs(x / gamma);
    if (q >= 0x1.0p52) {
      return x;
    }
    double r = Math.rint(q);
    if (q - r == 0.5) {
      r += 1;
    }
    return Math.copySign(r * gamma, x);
  }

  /**
   * The extra ℓ2 sensitivity γ√k that rounding to the grid can add when k coordinates change (see
   * the class comment), rounded up one ulp so it is never below the real value.
   *
   * @param changedCoordinates k, {@code >= 0}
   */
  public static double roundingSlack(double gamma, long changedCoordinates) {
    PowerOfTwoGrid.checkPowerOfTwo(gamma);
    Preconditions.check(changedCoordinates >= 0, "changedCoordinates", ">= 0", changedCoordinates);
    if (changedCoordinates == 0) {
      return 0;
    }
    return Math.nextUp(gamma * Math.sqrt((double) changedCoordinates));
  }

  /** Two samplers are equal when they have the same grid step and scale (the same law). */
  @Override
  public boolean equals(Object o) {
    return o instanceof GridGaussian g && g.gamma() == gamma() && g.scale() == scale();
  }

  @Override
  public int hashCode() {
    return Double.hashCode(gamma()) * 31 + Long.hashCode(scale());
  }

  @Override
  public String toString() {
    return "GridGaussian[gamma=2^" + grid.exponent() + ", s=" + grid.scale()
        + ", sigmaEff=" + effectiveSigma() + "]";
  }
}
