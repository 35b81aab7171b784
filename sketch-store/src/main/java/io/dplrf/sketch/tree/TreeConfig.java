package io.dplrf.sketch.tree;

import static io.dplrf.sketch.params.Preconditions.check;
import static io.dplrf.sketch.params.Preconditions.checkPositive;
import static io.dplrf.sketch.params.Preconditions.checkPositiveFinite;

import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;

/**
 * Parameters of one continual-release stream. The (ε, δ) budget is for the whole stream of T
 * epochs: every release of every prefix and range is covered by it.
 *
 * @param mechanism the node sketches
 * @param sizes sketch shape
 * @param privacy the stream's total budget
 * @param clip the contribution bound C (each update |Δ| ≤ C, enforced by ingest)
 * @param epochs T ≥ 1, fixed for the life of the stream (at most 2^30)
 * @param cacheUpdateColumns hold the sketching-matrix columns that updates read in memory
 * @param p the ℓp exponent of the robust mechanisms, in [1, 2); 1 for the ℓ2 ones (unused)
 */
public record TreeConfig(StreamMechanism mechanism, SketchSizes sizes, PrivacyParams privacy,
    double clip, int epochs, boolean cacheUpdateColumns, double p) {
  /** Largest T: keeps every epoch number and node index in an int. */
  public static final int MAX_EPOCHS = 1 << 30;

  public TreeConfig {
    check(mechanism != null, "mechanism", "non-null", mechanism);
    check(sizes != null, "sizes", "non-null", sizes);
    check(privacy != null, "privacy", "non-null", privacy);
    checkPositiveFinite("clip", clip);
    checkPositive("epochs", epochs);
    check(epochs <= MAX_EPOCHS, "epochs", "<= 2^30", epochs);
    check(p >= 1 && p < 2, "p", "in [1, 2)", p);
    check(mechanism.robust() || p == 1, "p", "1 for the l2 mechanisms", p);
  }

  /** An ℓ2 mechanism's stream (p unused). */
  public TreeConfig(StreamMechanism mechanism, SketchSizes sizes, PrivacyParams privacy,
      double clip, int epochs, boolean cacheUpdateColumns) {
    this(mechanism, sizes, privacy, clip, epochs, cacheUpdateColumns, 1);
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
