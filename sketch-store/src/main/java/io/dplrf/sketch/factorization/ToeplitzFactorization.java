package io.dplrf.sketch.factorization;

import static io.dplrf.sketch.params.Preconditions.check;

/**
 * A factorization A = B·C of the T×T prefix-sum matrix A (lower-triangular all-ones) into
 * lower-triangular Toeplitz matrices: the encoder C and the decoder B = A·C⁻¹, and the noise
 * figures of the mechanism that releases B(Cx + z) = Ax + Bz (docs/privacy/blt-factorization.md).
 *
 * <p>Units: z has i.i.d. entries of variance (σ·sens)², with sens = {@link #sensitivity}(T) the
 * largest column norm of C. {@link #prefixVariance} and {@link #rangeVariance} are Var((Bz)_t)
 * and Var((Bz)_e − (Bz)_{s−1}) for unit-variance z; {@link #maxLoss} and {@link #meanLoss}
 * multiply them by sens², i.e. they are in units of the one-shot σ² (binary tree: 42 at T = 64,
 * 110 at T = 1024; √-factorization 5.7 and 10.7; /work/shared/tools/prefix_variance.py).
 *
 * <p>Epoch counts are in [1, {@link #MAX_EPOCHS}]. Instances are immutable and thread-safe.
 * Everything here is a function of public parameters (T, d); no method reads data.
 */
public abstract sealed class ToeplitzFactorization permits SqrtFactorization, BltFactorization {
  /** Largest T, the tree's (io.dplrf.sketch.tree.TreeConfig.MAX_EPOCHS). */
  public static final int MAX_EPOCHS = 1 << 30;

  ToeplitzFactorization() {}

  /**
   * The √-factorization C = B = A^{1/2}, c_k = binom(2k, k)/4^k by c_k = c_{k−1}(2k − 1)/(2k)
   * (Fichtenberger, Henzinger, Upadhyay 2023 [4]): the near-optimal Toeplitz reference. Its
   * figures are O(T) sums (about 1 s at T = 2^30); it is a baseline, not a streaming mechanism
   * (applying C needs every past input).
   */
  public static ToeplitzFactorization sqrt() {
    return SqrtFactorization.INSTANCE;
  }

  /**
   * The BLT factorization with encoder C given by {@code parameters}; its decoder B = A·C⁻¹ is
   * found in closed form (C⁻¹ is again a BLT, [3] Theorem 1), and every figure is O(d²) work
   * (O(d² log T) for the mean) at any T ≤ 2^30.
   */
  public static ToeplitzFactorization blt(BltParameters parameters) {
    check(parameters != null, "parameters", "non-null", parameters);
    return BltFactorization.of(parameters);
  }

  /** c_0 … c_{n−1}, the first column of C (c_0 = 1). */
  public abstract double[] encoderCoefficients(int n);

  /** b_0 … b_{n−1}, the first column of B = A·C⁻¹ (b_0 = 1). */
  public abstract double[] decoderCoefficients(int n);

  /** sens² = Σ_{k<T} c_k²: C's largest squared column norm (its first column's). */
  public abstract double sensitivitySquared(int epochs);

  /** sens = √(Σ_{k<T} c_k²). */
  public final double sensitivity(int epochs) {
    return StrictMath.sqrt(sensitivitySquared(epochs));
  }

  /**
   * Var((Bz)_t) = Σ_{k<t} b_k² for unit-variance z: the noise of the prefix release [1, t],
   * t ∈ [0, 2^30], non-decreasing in t.
   */
  public abstract double prefixVariance(int t);

  /**
   * Var((Bz)_last − (Bz)_{first−1}) = Σ_k (B[last, k] − B[first − 1, k])² for unit-variance z: the
   * noise of the range answer [first, last] = prefix_last − prefix_{first−1}, 1 ≤ first ≤ last ≤
   * 2^30. Equals Σ_{m<g} b_m² + Σ_{j<first−1} (b_j − b_{j+g})² with g = last − first + 1.
   */
  public abstract double rangeVariance(int first, int last);

  /** (1/T) Σ_{t=1..T} Σ_{k<t} b_k² = (1/T) Σ_{m<T} (T − m) b_m²: the mean prefix variance. */
  public abstract double meanPrefixVariance(int epochs);

  /** sens²(T) · Σ_{k<T} b_k²: the worst prefix variance over t ≤ T, in one-shot σ² units. */
  public final double maxLoss(int epochs) {
    return sensitivitySquared(epochs) * prefixVariance(epochs);
  }

  /** sens²(T) · {@link #meanPrefixVariance}(T), in one-shot σ² units. */
  public final double meanLoss(int epochs) {
    return sensitivitySquared(epochs) * meanPrefixVariance(epochs);
  }

  static int checkEpochs(int epochs) {
    check(epochs >= 1 && epochs <= MAX_EPOCHS, "epochs", "in [1, 2^30]", epochs);
    return epochs;
  }

  static int checkPrefix(int t) {
    check(t >= 0 && t <= MAX_EPOCHS, "t", "in [0, 2^30]", t);
    return t;
  }

  static void checkRange(int first, int last) {
    check(first >= 1, "first", ">= 1", first);
    check(last >= first && last <= MAX_EPOCHS, "last", "in [first, 2^30]", last);
  }

  static int checkLength(int n) {
    check(n >= 0, "n", ">= 0", n);
    return n;
  }
}
