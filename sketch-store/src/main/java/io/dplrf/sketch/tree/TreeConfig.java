package io.dplrf.sketch.tree;

import io.dplrf.sketch.params.Mechanism;
import static io.dplrf.sketch.params.Preconditions.check;
import static io.dplrf.sketch.params.Preconditions.checkPositive;
import static io.dplrf.sketch.params.Preconditions.checkPositiveFinite;

import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;

/**
 * Parameters of one continual-release stream. The (ε, δ) budget is for the whole stream of T
 * epochs: every release of every prefix and range is covered by it.
 *
 * @param mechanism the node sketches
 * @param relation the neighbouring relation the nodes are calibrated for
 *     (docs/privacy/l1-units.md): {@code priv2} and {@code priv2-sparse} under {@link
 *     NeighbouringRelation#ONE_ENTRY} (a unit is one update, in one epoch: the grid rounding is
 *     charged over the L nodes it lands in) or {@link NeighbouringRelation#ENTRYWISE_L1} (a key's
 *     or a row's updates, Σ|Δ| ≤ C over the stream: charged over every node), both with the drawn
 *     matrices' exact factors; {@code priv2} also under {@link NeighbouringRelation#FROBENIUS}
 *     (χ² factors: rows mode's AᵀA, one row record per unit); {@code robust-lra} and {@code
 *     robust-pca} under ENTRYWISE_L1; {@code priv1} under RANK_ONE (one update)
 * @param sizes sketch shape
 * @param privacy the stream's total budget
 * @param clip the contribution bound C (each update |Δ| ≤ C, enforced by ingest)
 * @param epochs T ≥ 1, fixed for the life of the stream (at most 2^30)
 * @param cacheUpdateColumns hold the sketching-matrix columns that updates read in memory
 * @param p the ℓp exponent of the robust mechanisms, in [1, 2); 1 for the ℓ2 ones (unused)
 */
public record TreeConfig(Mechanism mechanism, NeighbouringRelation relation,
    SketchSizes sizes, PrivacyParams privacy, double clip, int epochs, boolean cacheUpdateColumns,
    double p) {
  /** Largest T: keeps every epoch number and node index in an int. */
  public static final int MAX_EPOCHS = 1 << 30;

  public TreeConfig {
    check(mechanism != null && mechanism.streams(), "mechanism",
        "one of " + Mechanism.names(Mechanism.of(Mechanism.Use.LOW_RANK_STREAM)), mechanism);
    check(sizes != null, "sizes", "non-null", sizes);
    check(privacy != null, "privacy", "non-null", privacy);
    checkPositiveFinite("clip", clip);
    checkPositive("epochs", epochs);
    check(epochs <= MAX_EPOCHS, "epochs", "<= 2^30", epochs);
    check(p >= 1 && p < 2, "p", "in [1, 2)", p);
    check(mechanism.robust() || p == 1, "p", "1 for the l2 mechanisms", p);
    boolean l1 = relation == NeighbouringRelation.ONE_ENTRY
        || relation == NeighbouringRelation.ENTRYWISE_L1;
    check(relation == defaultRelation(mechanism)
        || (mechanism == Mechanism.PRIV2 || mechanism == Mechanism.PRIV2_SPARSE) && l1,
        "relation", "one " + mechanism.cliName() + " can be calibrated for", relation);
  }

  /** A stream under the mechanism's own relation ({@link #defaultRelation}). */
  public TreeConfig(Mechanism mechanism, SketchSizes sizes, PrivacyParams privacy,
      double clip, int epochs, boolean cacheUpdateColumns, double p) {
    this(mechanism, defaultRelation(mechanism), sizes, privacy, clip, epochs, cacheUpdateColumns,
        p);
  }

  /**
   * The relation a mechanism's tree is calibrated for unless said otherwise: FROBENIUS for
   * {@code priv2} (the χ² plan), ONE_ENTRY for {@code priv2-sparse}, RANK_ONE for {@code priv1},
   * ENTRYWISE_L1 for the robust ones.
   */
  public static NeighbouringRelation defaultRelation(Mechanism mechanism) {
    return switch (mechanism) {
      case PRIV2_SPARSE -> NeighbouringRelation.ONE_ENTRY;
      default -> mechanism.relation();
    };
  }

  /** An ℓ2 mechanism's stream (p unused). */
  public TreeConfig(Mechanism mechanism, SketchSizes sizes, PrivacyParams privacy,
      double clip, int epochs, boolean cacheUpdateColumns) {
    this(mechanism, sizes, privacy, clip, epochs, cacheUpdateColumns, 1);
  }

  /**
   * How many nodes one privacy unit's updates can touch, over which the grid rounding is charged
   * (l1-units.md §3): the L nodes of one epoch for one update (ONE_ENTRY, and the one-epoch units
   * of RANK_ONE and FROBENIUS), every node for ENTRYWISE_L1.
   */
  public long roundedNodes() {
    return relation == NeighbouringRelation.ENTRYWISE_L1 ? nodeCount() : depth();
  }

  /** The number of nodes of the tree, bounded by 2T − 1 (each level ℓ has ⌊T/2^ℓ⌋). */
  public long nodeCount() {
    long count = 0;
    for (int level = 0; level < depth(); level++) {
      count += epochs >> level;
    }
    return count;
  }

  /** The tree depth L = ⌈log₂T⌉ + 1: the number of levels, and the most nodes an update reaches. */
  public int depth() {
    return Dyadic.depth(epochs);
  }
}
