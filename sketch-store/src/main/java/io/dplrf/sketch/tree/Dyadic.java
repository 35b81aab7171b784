package io.dplrf.sketch.tree;

import java.util.ArrayList;
import java.util.List;

/**
 * Dyadic intervals of epochs (1-based). Node (level ℓ, index k) covers epochs
 * [k·2^ℓ + 1, (k+1)·2^ℓ]. A tree over T epochs has the nodes with end ≤ T (a node reaching past
 * T would never close, so it is never created and never released); an epoch lies in at most one
 * node per level, hence in at most L = ⌈log₂T⌉ + 1 nodes.
 */
final class Dyadic {
  private Dyadic() {}

  record NodeId(int level, int index) {
    long start() {
      return ((long) index << level) + 1;
    }

    long end() {
      return (long) (index + 1) << level;
    }

    String label(String instance) {
      return instance + "/node/" + level + "/" + index;
    }
  }

  static int depth(int epochs) {
    int ceilLog2 = epochs == 1 ? 0 : 32 - Integer.numberOfLeadingZeros(epochs - 1);
    return ceilLog2 + 1;
  }

  /**
   * The canonical decomposition of [s, e] into disjoint dyadic nodes, left to right: at each
   * position take the largest aligned node that fits. At most 2⌈log₂(e − s + 1)⌉ nodes; for a
   * prefix [1, e] one node per set bit of e.
   */
  static List<NodeId> decomposition(int s, int e) {
    List<NodeId> out = new ArrayList<>();
    long p = s;
    while (p <= e) {
      long offset = p - 1;
      int level = offset == 0 ? 62 : Long.numberOfTrailingZeros(offset);
      while (offset + (1L << level) > e) {
        level--;
      }
      out.add(new NodeId(level, (int) (offset >> level)));
      p += 1L << level;
    }
    return out;
  }

  /** The nodes of a T-epoch tree whose interval starts at epoch e, lowest level first. */
  static List<NodeId> startingAt(int e, int epochs) {
    List<NodeId> out = new ArrayList<>();
    long offset = e - 1;
    for (int level = 0; level < depth(epochs); level++) {
      if (offset % (1L << level) == 0 && offset + (1L << level) <= epochs) {
        out.add(new NodeId(level, (int) (offset >> level)));
      }
    }
    return out;
  }
}
