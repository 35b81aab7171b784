package io.dplrf.sketch.lra;

import java.util.ArrayList;
import java.util.List;

/**
 * The released, noisy output of one mechanism run or one tree node: everything here is public
 * and safe to post-process. Sums of released sketches of disjoint epoch intervals answer the
 * continual-release queries ({@link #sum}); summing released outputs is post-processing and costs
 * no privacy.
 */
public sealed interface ReleasedSketches permits Priv1Sketches, Priv2Sketches, DenseNoisyMatrix,
    RobustSketches {

  /** The noise of each released part, as released. */
  List<NoiseScale> noise();

  /**
   * The entrywise sum of released sketches of one mechanism instance (same shapes, same shared
   * sketching matrices), e.g. the nodes of a dyadic decomposition.
   *
   * @throws IllegalArgumentException if {@code parts} is empty or mixes mechanisms or shapes
   */
  static ReleasedSketches sum(List<? extends ReleasedSketches> parts) {
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("cannot sum an empty list of released sketches");
    }
    ReleasedSketches first = parts.get(0);
    if (first instanceof Priv1Sketches) {
      return Priv1Sketches.sum(cast(parts, Priv1Sketches.class));
    } else if (first instanceof Priv2Sketches) {
      return Priv2Sketches.sum(cast(parts, Priv2Sketches.class));
    } else if (first instanceof RobustSketches) {
      return RobustSketches.sum(cast(parts, RobustSketches.class));
    }
    return DenseNoisyMatrix.sum(cast(parts, DenseNoisyMatrix.class));
  }

  private static <T extends ReleasedSketches> List<T> cast(
      List<? extends ReleasedSketches> parts, Class<T> type) {
    List<T> out = new ArrayList<>(parts.size());
    for (ReleasedSketches p : parts) {
      if (!type.isInstance(p)) {
        throw new IllegalArgumentException("cannot sum released sketches of different mechanisms: "
            + type.getSimpleName() + " and " + p.getClass().getSimpleName());
      }
      out.add(type.cast(p));
    }
    return out;
  }
}
