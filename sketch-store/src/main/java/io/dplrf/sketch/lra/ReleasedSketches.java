package io.dplrf.sketch.lra;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

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
    return sum(parts, false, null);
  }

  /**
   * As {@link #sum(List)}, with the parts made one at a time: each is added into the running sum
   * and dropped before the next is made, so that at most the sum and one part (and whatever its
   * supplier needs to make it) are held at once, not all of them. A release at the default sizes
   * is ≈ 400 MB, and a range's dyadic decomposition has up to 2·⌈log₂T⌉ nodes.
   *
   * @param parts each call returns a new release that nothing else holds (a node's {@code
   *     release()}): the first one's arrays become the sum's, and later ones are added into them
   * @throws IllegalArgumentException if {@code parts} is empty or mixes mechanisms or shapes
   */
  static ReleasedSketches sumInTurn(List<? extends Supplier<? extends ReleasedSketches>> parts) {
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("cannot sum an empty list of released sketches");
    }
    ReleasedSketches sum = parts.get(0).get();
    List<List<NoiseScale>> noise = new ArrayList<>(List.of(sum.noise()));
    for (int p = 1; p < parts.size(); p++) {
      ReleasedSketches next = parts.get(p).get();
      noise.add(next.noise());
      // The last addition sets the noise of all parts at once, as sum(List) does (√Σσ², not
      // rounded once per addition).
      sum = sum(List.of(sum, next), true, p == parts.size() - 1 ? NoiseScale.sum(noise) : null);
      next = null; // not held while the next part is made (interpreted frames keep dead locals)
    }
    return sum;
  }

  /**
   * {@code reuseFirst}: the first part is the caller's to overwrite (not copied); {@code noise}:
   * the sum's, or null to compute it from the parts.
   */
  private static ReleasedSketches sum(List<? extends ReleasedSketches> parts, boolean reuseFirst,
      List<NoiseScale> noise) {
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("cannot sum an empty list of released sketches");
    }
    ReleasedSketches first = parts.get(0);
    if (first instanceof Priv1Sketches) {
      return Priv1Sketches.sum(cast(parts, Priv1Sketches.class), reuseFirst, noise);
    } else if (first instanceof Priv2Sketches) {
      return Priv2Sketches.sum(cast(parts, Priv2Sketches.class), reuseFirst, noise);
    } else if (first instanceof RobustSketches) {
      return RobustSketches.sum(cast(parts, RobustSketches.class), reuseFirst, noise);
    }
    return DenseNoisyMatrix.sum(cast(parts, DenseNoisyMatrix.class), reuseFirst, noise);
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
