package io.dplrf.deploy.serve.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.continual.BltConfig;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.tree.TreeConfig;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class HeapAdviceTest {
  private static final SketchSizes DEFAULTS =
      SketchSizes.of(100_000, 100_000, 10, null, null, SketchSizes.DEFAULT_ALPHA);
  private static final long GIB = 1L << 30;

  private static TreeConfig tree(Mechanism mech, int epochs) {
    return new TreeConfig(mech, DEFAULTS, new PrivacyParams(1, 1e-6), 1, epochs, true);
  }

  /**
   * At the benchmark's sizes (t = 100, v = 400: nodes of 381.5 MiB) the sketches may take 3.35
   * GiB of the launcher's 4 GiB (90%, less 256 MiB): T = 4 (2 prefix nodes kept at most) fits;
   * T = 8 (3 kept) needs 3.35 GiB and 4 MB more, so 1 stays in memory (7 sketches — one a left
   * sibling read back at a close — and the 256 MiB buffers take 2.7 GiB); T = 32 (5 kept) likewise
   * keeps 1. With 8 GiB all fit; priv1 has no estimate.
   */
  @Test
  void priv2Sparse_atTheDefaultSizes_keepsFewerNodesInMemoryForManyEpochsOnly() {
    long node = 8L * (100_000L * 100 + 100_000L * 400);
    assertEquals(OptionalLong.of(9 * node + (64L << 22)),
        HeapAdvice.peakBytes(tree(Mechanism.PRIV2_SPARSE, 8)));
    assertEquals(OptionalLong.of(11 * node), HeapAdvice.peakBytes(tree(Mechanism.PRIV2, 32)));
    assertEquals(Optional.empty(), HeapAdvice.advice(tree(Mechanism.PRIV2_SPARSE, 4), 4 * GIB));
    assertEquals(OptionalInt.of(1),
        HeapAdvice.nodesInMemory(tree(Mechanism.PRIV2_SPARSE, 8), 4 * GIB));
    assertEquals(OptionalInt.of(1),
        HeapAdvice.nodesInMemory(tree(Mechanism.PRIV2_SPARSE, 32), 4 * GIB));
    String a = HeapAdvice.advice(tree(Mechanism.PRIV2_SPARSE, 32), 4 * GIB).orElseThrow();
    assertTrue(a.contains("up to 5 prefix nodes of 381 MiB") && a.contains("3.4 GiB this JVM's 4.0 GiB")
        && a.contains("at most 1 prefix node(s) are kept in memory")
        && a.contains("-Xms6g -Xmx6g") && !a.contains("WARNING") && !a.contains("\n"), a);
    assertEquals(OptionalInt.empty(),
        HeapAdvice.nodesInMemory(tree(Mechanism.PRIV2_SPARSE, 32), 8 * GIB));
    assertEquals(Optional.empty(), HeapAdvice.advice(tree(Mechanism.PRIV2_SPARSE, 32),
        8 * GIB));
    assertEquals(OptionalLong.empty(), HeapAdvice.peakBytes(tree(Mechanism.PRIV1, 32)));
    assertEquals(OptionalInt.empty(), HeapAdvice.nodesInMemory(tree(Mechanism.PRIV1, 32), GIB));
  }

  /** Where even no prefix node in memory leaves too little heap, a WARNING names the heap to set. */
  @Test
  void tooSmallAHeapForAnyNode_isAWarning() {
    assertEquals(OptionalInt.of(0),
        HeapAdvice.nodesInMemory(tree(Mechanism.PRIV2_SPARSE, 32), 2 * GIB));
    String w = HeapAdvice.advice(tree(Mechanism.PRIV2_SPARSE, 32), 2 * GIB).orElseThrow();
    assertTrue(w.startsWith("dplrf: WARNING") && w.contains("even with no prefix node in memory")
        && w.contains("-Xms6g -Xmx6g"), w);
  }

  /**
   * A BLT stream needs all its 2d + 1 state sketches at every close, from the first epoch on: at
   * the benchmark's sizes with T = 1024 (d = 3 buffers) that is 12 sketches of 381.5 MiB and the
   * 256 MiB update buffer, 4.7 GiB: refused in 4 GiB with the heap that fits (6 GiB) and the
   * alternatives named, or, on a machine too small for that heap, with the alternatives only; it
   * fits in 6 GiB, and at m = n = 10⁴ in 4 GiB.
   */
  @Test
  void bltStream_thatDoesNotFit_isRefusedAtStart_withTheHeapThatFits() {
    BltConfig big = new BltConfig(Mechanism.PRIV2_SPARSE, NeighbouringRelation.ENTRYWISE_L1,
        DEFAULTS, new PrivacyParams(1, 1e-6), 1, 1024, true);
    long node = 8L * (100_000L * 100 + 100_000L * 400);
    assertEquals(12 * node + (64L << 22), HeapAdvice.peakBytes(big, 3));
    String r = HeapAdvice.bltRefusal(big, 3, 4 * GIB, 24 * GIB).orElseThrow();
    assertTrue(r.contains("about 4.7 GiB") && r.contains("(12 of 381 MiB)")
        && r.contains("this machine's 24.0 GiB can hold it") && r.contains("-Xms6g -Xmx6g")
        && r.contains("continual = tree") && !r.contains("\n"), r);
    assertEquals(Optional.empty(), HeapAdvice.bltRefusal(big, 3, 6 * GIB, 24 * GIB));
    // a machine whose memory cannot hold that heap beside the page cache: no heap to set
    String small8 = HeapAdvice.bltRefusal(big, 3, 4 * GIB, 7 * GIB).orElseThrow();
    assertTrue(small8.contains("a heap of 6 GiB is more than 80% of this machine's 7.0 GiB")
        && !small8.contains("-Xms") && small8.contains("continual = tree"), small8);
    BltConfig small = new BltConfig(Mechanism.PRIV2_SPARSE, NeighbouringRelation.ENTRYWISE_L1,
        SketchSizes.of(10_000, 10_000, 10, null, null, SketchSizes.DEFAULT_ALPHA),
        new PrivacyParams(1, 1e-6), 1, 1024, true);
    assertEquals(Optional.empty(), HeapAdvice.bltRefusal(small, 3, 4 * GIB, 24 * GIB));
    // disk by epoch T: T prefix releases and two generations of buffers, 1036 sketches: 386 GiB
    assertEquals((1024L + 12) * node, HeapAdvice.diskBytes(big, 3));
    String line = HeapAdvice.footprint(HeapAdvice.peakBytes(big, 3), 12 * GIB,
        java.util.OptionalLong.of(HeapAdvice.diskBytes(big, 3)), 100 * GIB, "blt/");
    assertTrue(line.contains("about 4.7 GiB of heap") && line.contains("about 385.9 GiB in blt/")
        && line.contains("WARNING, more than is free"), line);
  }
}
