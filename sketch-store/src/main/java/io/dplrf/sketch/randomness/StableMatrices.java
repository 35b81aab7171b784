package io.dplrf.sketch.randomness;

import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.params.Preconditions;
import java.util.Objects;

/**
 * Keyed symmetric p-stable sketching matrices for p ∈ [1, 2) (paper 000, Definition 5 and
 * Algorithm 1 line 2): Cauchy for p = 1, Chambers–Mallows–Stuck (JASA 1976) for other p,
 * clipped to |X| ≤ clip and multiplied by {@code scale}; regenerated on demand, never stored.
 *
 * <p>Entry (i, j) of a rows×cols matrix has index e = j·rows + i (column-major) and is a pure
 * function of (key, label, e): the 16-byte block e of {@code KeyStream.of(key, label)} gives two
 * big-endian 64-bit words; their top 53 bits k₁, k₂ give u₁ = (k₁ + ½)·2⁻⁵³ and
 * u₂ = (k₂ + ½)·2⁻⁵³ in (0, 1). With V = π(u₁ − ½) ∈ (−π/2, π/2) and W = −ln u₂ ~ Exp(1),
 *
 * <pre>
 *   X = sin(pV) / cos(V)^{1/p} · (cos((1 − p)V) / W)^{(1 − p)/p}
 * </pre>
 *
 * is standard symmetric p-stable (characteristic function e^{−|θ|^p}); for p = 1 it is tan V,
 * the standard Cauchy (W is then unused). The entry is scale·max(−clip, min(clip, X)).
 *
 * <p>Like {@link GaussianMatrices}, these are sketching matrices, not privacy noise: floating
 * point is fine; the mechanisms that use them take their sensitivity from the entries actually
 * drawn (docs/privacy/robust.md §3).
 */
public final class StableMatrices {
  private StableMatrices() {}

  /**
   * A rows×cols matrix of clipped, scaled p-stable entries keyed by (key, label).
   *
   * @param p stability index in [1, 2)
   * @param clip the clip level τ > 0 (in units of the standard variable; ∞ for none)
   * @param scale the factor applied after clipping, > 0 and finite
   */
  public static SketchMatrix stable(
      SecretKey key, String label, int rows, int cols, double p, double clip, double scale) {
    Objects.requireNonNull(key, "key");
    checkArguments(rows, cols, p, clip, scale);
    return new KeyedStableMatrix(KeyStream.of(key, label), rows, cols, p, clip, scale);
  }

  /**
   * As {@link #stable(SecretKey, String, int, int, double, double, double)}, derived from a
   * <b>public</b> seed ({@link KeyStream#ofPublic}): the same entry layout, for the public
   * p-stable matrices of a local-DP protocol that every client regenerates. Not secret.
   */
  public static SketchMatrix stable(
      PublicSeed seed, String label, int rows, int cols, double p, double clip, double scale) {
    Objects.requireNonNull(seed, "seed");
    checkArguments(rows, cols, p, clip, scale);
    return new KeyedStableMatrix(KeyStream.ofPublic(seed, label), rows, cols, p, clip, scale);
  }

  private static void checkArguments(int rows, int cols, double p, double clip, double scale) {
    Preconditions.checkPositive("rows", rows);
    Preconditions.checkPositive("cols", cols);
    checkP(p);
    Preconditions.check(clip > 0, "clip", "> 0", clip);
    Preconditions.checkPositiveFinite("scale", scale);
  }

  /** Checks p ∈ [1, 2): the range of the robust mechanisms (paper 000, Definition 2). */
  public static double checkP(double p) {
    Preconditions.check(p >= 1 && p < 2, "p", "in [1, 2)", p);
    return p;
  }

  /** The standard symmetric p-stable value of two 64-bit stream words (class comment). */
  static double standardStable(double p, long w1, long w2) {
    double v = Math.PI * (uniform(w1) - 0.5);
    if (p == 1) {
      return Math.tan(v);
    }
    double w = -Math.log(uniform(w2));
    return Math.sin(p * v) / Math.pow(Math.cos(v), 1 / p)
        * Math.pow(Math.cos((1 - p) * v) / w, (1 - p) / p);
  }

  /** (k + ½)·2⁻⁵³ for the top 53 bits k of {@code word}: in (0, 1), never 0 or 1. */
  static double uniform(long word) {
    return ((word >>> 11) + 0.5) * 0x1.0p-53;
  }
}
