package io.dplrf.sketch.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.tree.Dyadic.NodeId;
import java.util.List;
import org.junit.jupiter.api.Test;

class DyadicTest {
  @Test
  void depth_isCeilLog2PlusOne() {
    assertEquals(1, Dyadic.depth(1));
    assertEquals(2, Dyadic.depth(2));
    assertEquals(3, Dyadic.depth(3));
    assertEquals(4, Dyadic.depth(8));
    assertEquals(5, Dyadic.depth(9));
  }

  @Test
  void prefixDecomposition_hasOneNodePerSetBit() {
    assertEquals(List.of(new NodeId(2, 0), new NodeId(1, 2), new NodeId(0, 6)),
        Dyadic.decomposition(1, 7));
    assertEquals(List.of(new NodeId(3, 0)), Dyadic.decomposition(1, 8));
  }

  /** Every range of a 40-epoch tree is covered exactly once by ≤ 2⌈log₂ len⌉ existing nodes. */
  @Test
  void rangeDecomposition_coversEachEpochOnce_withFewNodesThatExist() {
    int epochs = 40;
    for (int s = 1; s <= epochs; s++) {
      for (int e = s; e <= epochs; e++) {
        List<NodeId> d = Dyadic.decomposition(s, e);
        long next = s;
        for (NodeId id : d) {
          assertEquals(next, id.start());
          assertTrue(id.end() <= epochs && id.level() < Dyadic.depth(epochs));
          next = id.end() + 1;
        }
        assertEquals(e + 1L, next);
        int len = e - s + 1;
        assertTrue(d.size() <= Math.max(1, 2 * (Dyadic.depth(len) - 1)), s + ".." + e + ": " + d);
      }
    }
  }

  /** An epoch starts ≤ L nodes, and each epoch lies in exactly one created node per level. */
  @Test
  void everyEpoch_liesInAtMostLNodes() {
    int epochs = 13;
    int[] count = new int[epochs + 1];
    for (int e = 1; e <= epochs; e++) {
      for (NodeId id : Dyadic.startingAt(e, epochs)) {
        for (long x = id.start(); x <= id.end(); x++) {
          count[(int) x]++;
        }
      }
    }
    for (int e = 1; e <= epochs; e++) {
      assertTrue(count[e] >= 1 && count[e] <= Dyadic.depth(epochs), "epoch " + e);
    }
  }
}
