package io.dplrf.sketch.continual;

import static io.dplrf.sketch.params.Preconditions.check;
import static io.dplrf.sketch.params.Preconditions.checkPositiveFinite;

import io.dplrf.sketch.factorization.ToeplitzFactorization;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;

/**
 * Parameters of one BLT continual-release stream (docs/privacy/blt-release.md). The (ε, δ) budget
 * is for the whole stream of T epochs: every prefix release, and every range answered from them,
 * is covered by it.
 *
 * @param mechanism {@link Mechanism#PRIV2_SPARSE} or {@link Mechanism#PRIV2} (Gaussian noise;
 *     priv1 and the robust mechanisms keep the tree)
 * @param relation {@link NeighbouringRelation#ONE_ENTRY} (a unit is one update) or {@link
 *     NeighbouringRelation#ENTRYWISE_L1} (a key's or a row's updates, Σ|Δ| ≤ C over the stream).
 *     Both are calibrated alike: one update changes every later encoded epoch (every c_k &gt; 0),
 *     so the grid rounding is charged over all T epochs for every unit (blt-release.md §2); the
 *     relation is what the stream claims. {@link NeighbouringRelation#FROBENIUS} is refused: its
 *     sensitivity needs the χ² bound of a random Φ with a share of δ, which blt-release.md does
 *     not derive for a factorized stream (§1, scope); such streams keep the tree
 * @param sizes sketch shape; priv2-sparse needs t ≥ {@link Mechanism#SPARSITY}
 * @param privacy the stream's total budget
 * @param clip the contribution bound C (each update |Δ| ≤ C, a unit's Σ|Δ| ≤ C; enforced by ingest)
 * @param epochs T, fixed for the life of the stream, in [1, 2^30], with k·T ≤ 2^53 for the k
 *     entries of either part ({@link #MAX_ROUNDED_COORDINATES}); the stream refuses epoch T + 1
 * @param cacheUpdateColumns hold the sketching-matrix columns that updates read in memory (dense
 *     priv2; sparse matrices are always held)
 */
public record BltConfig(Mechanism mechanism, NeighbouringRelation relation, SketchSizes sizes,
    PrivacyParams privacy, double clip, int epochs, boolean cacheUpdateColumns) {

  public BltConfig {
    check(mechanism == Mechanism.PRIV2 || mechanism == Mechanism.PRIV2_SPARSE, "mechanism",
        "priv2 or priv2-sparse", mechanism);
    check(relation == NeighbouringRelation.ONE_ENTRY
        || relation == NeighbouringRelation.ENTRYWISE_L1, "relation", "one-entry or entrywise-l1"
            + " (the BLT calibration covers units bounded in l1; frobenius streams use the tree)",
        relation);
    check(sizes != null, "sizes", "non-null", sizes);
    check(privacy != null, "privacy", "non-null", privacy);
    checkPositiveFinite("clip", clip);
    check(epochs >= 1 && epochs <= ToeplitzFactorization.MAX_EPOCHS, "epochs", "in [1, 2^30]",
        epochs);
    check(mechanism != Mechanism.PRIV2_SPARSE || sizes.t() >= Mechanism.SPARSITY,
        "sketch-cols (t)", ">= the sparsity " + Mechanism.SPARSITY + " of priv2-sparse", sizes.t());
    long most = Math.max((long) sizes.m() * sizes.t(), (long) sizes.v() * sizes.n());
    check(most <= MAX_ROUNDED_COORDINATES / epochs, "sketch entries per part times epochs",
        "<= 2^53 (the rounded coordinates k·T of a part, which SketchCodec stores exactly as a"
            + " float64)", most + " x " + epochs);
  }

  /**
   * Largest k·T, the coordinates over which a part's grid rounding is charged (blt-release.md §2):
   * the epoch plan's {@code changedCoordinates}, a float64 in {@code SketchCodec} files, exact up
   * to 2^53. At m = n = 10⁵, t = 100, v = 400 that allows T up to 2^27.
   */
  public static final long MAX_ROUNDED_COORDINATES = 1L << 53;

  /** The non-zeros per column of the sketching matrices: {@link Mechanism#SPARSITY}, 0 if dense. */
  public int sparsity() {
    return mechanism == Mechanism.PRIV2_SPARSE ? Mechanism.SPARSITY : 0;
  }
}
