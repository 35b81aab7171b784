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
 */
public record TreeConfig(StreamMechanism mechanism, SketchSizes sizes, PrivacyParams privacy,
    double clip, int epochs, boolean cacheUpdateColumns) {
  /** Largest T: keeps every epoch number and node index in an int. */
  public static final int MAX_EPOCHS = 1 << 30;

  public TreeConfig {
    check(mechanism != null, "mechanism", "non-null", mechanism);
    check(sizes != null, "sizes", "non-null", sizes);
    check(privacy != null, "privacy", "non-null", privacy);
    checkPositiveFinite("clip", clip);
    checkPositive("epochs", epochs);
    check(epochs <= MAX_EPOCHS, "epochs", "<= 2^30", epochs);
  }

  /** The tree depth L = ⌈log₂T⌉ + 1: the number of levels, and the most nodes an update reaches. */
  public int depth() {
    return Dyadic.depth(epochs);
  }
}
