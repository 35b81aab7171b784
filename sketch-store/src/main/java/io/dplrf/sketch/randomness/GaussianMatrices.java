package io.dplrf.sketch.randomness;

import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.params.Preconditions;
import java.util.Objects;

/**
 * Keyed Gaussian sketching matrices (Φ, Ψ, S, T of the paper): entries i.i.d. N(0, stdDev²),
 * regenerated on demand, never stored.
 *
 * <p>Entry (i, j) of a rows×cols matrix has index e = j·rows + i (column-major) and is a pure
 * function of (key, label, e): the 8 bytes [8e, 8e + 8) of {@code KeyStream.of(key, label)}, read
 * as a big-endian 64-bit word w, give k = w >>> 11 (53 uniform bits) and the uniform
 * u = (k + ½)·2^-53 in the open interval (0, 1); the entry is stdDev·Φ^{-1}(u) with Φ^{-1} from
 * Wichura's AS 241 (PPND16). For u > ½ it is evaluated as −Φ^{-1}(1 − u), where 1 − u is exactly
 * representable, so the distribution is exactly symmetric and no 54-bit value is rounded.
 *
 * <p>These matrices are sketching matrices, not privacy noise: floating point is fine here, and
 * their secrecy only matters to the extent the mechanism's analysis assumes it.
 */
public final class GaussianMatrices {
  private GaussianMatrices() {}

  /**
   * A rows×cols matrix with i.i.d. N(0, stdDev²) entries keyed by (key, label).
   *
   * @param rows {@code > 0}
   * @param cols {@code > 0}
   * @param stdDev {@code > 0} and finite
   */
  public static SketchMatrix gaussian(
      SecretKey key, String label, int rows, int cols, double stdDev) {
    Objects.requireNonNull(key, "key");
    Preconditions.checkPositive("rows", rows);
    Preconditions.checkPositive("cols", cols);
    Preconditions.checkPositiveFinite("stdDev", stdDev);
    return new KeyedGaussianMatrix(KeyStream.of(key, label), rows, cols, stdDev);
  }

  /**
   * A rows×cols matrix with i.i.d. N(0, stdDev²) entries derived from a <b>public</b> seed
   * ({@link KeyStream#ofPublic}): the same entry layout as {@link #gaussian(SecretKey, String,
   * int, int, double)}, for sketching matrices that every party of a protocol must regenerate
   * (local-DP clients). Not secret.
   */
  public static SketchMatrix gaussian(
      PublicSeed seed, String label, int rows, int cols, double stdDev) {
    Objects.requireNonNull(seed, "seed");
    Preconditions.checkPositive("rows", rows);
    Preconditions.checkPositive("cols", cols);
    Preconditions.checkPositiveFinite("stdDev", stdDev);
    return new KeyedGaussianMatrix(KeyStream.ofPublic(seed, label), rows, cols, stdDev);
  }

  /** The standard normal value of one 64-bit stream word (see the class comment). */
  static double standardNormal(long word) {
    long k = word >>> 11;
    if (k < (1L << 52)) {
      double u = (2 * k + 1) * 0x1.0p-54; // (k + 1/2)·2^-53 < 1/2, exact
      return -InverseNormal.upperQuantileOfTail(u);
    }
    long mirrored = (1L << 53) - 1 - k;
    double oneMinusU = (2 * mirrored + 1) * 0x1.0p-54; // 1 - u, exact
    return InverseNormal.upperQuantileOfTail(oneMinusU);
  }
}
