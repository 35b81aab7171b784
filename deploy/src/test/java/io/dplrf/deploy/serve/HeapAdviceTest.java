package io.dplrf.deploy.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.tree.StreamMechanism;
import io.dplrf.sketch.tree.TreeConfig;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class HeapAdviceTest {
  private static final SketchSizes DEFAULTS =
      SketchSizes.of(100_000, 100_000, 10, null, null, SketchSizes.DEFAULT_ALPHA);
  private static final long GIB = 1L << 30;

  private static TreeConfig tree(StreamMechanism mech, int epochs) {
    return new TreeConfig(mech, DEFAULTS, new PrivacyParams(1, 1e-6), 1, epochs, true);
  }

  /**
   * At the benchmark's sizes (t = 100, v = 400: nodes of 381.5 MiB) the launcher's 4 GiB holds
   * T = 8 (3 prefix nodes kept at most) and not T = 32 (5 kept); priv1 has no estimate.
   */
  @Test
  void priv2Sparse_atTheDefaultSizes_warnsForManyEpochsOnly() {
    long node = 8L * (100_000L * 100 + 100_000L * 400);
    assertEquals(OptionalLong.of(9 * node + (48L << 22)),
        HeapAdvice.peakBytes(tree(StreamMechanism.PRIV2_SPARSE, 8)));
    assertEquals(OptionalLong.of(11 * node), HeapAdvice.peakBytes(tree(StreamMechanism.PRIV2, 32)));
    assertEquals(Optional.empty(), HeapAdvice.warning(tree(StreamMechanism.PRIV2_SPARSE, 8), 4 * GIB));
    String w = HeapAdvice.warning(tree(StreamMechanism.PRIV2_SPARSE, 32), 4 * GIB).orElseThrow();
    assertTrue(w.contains("up to 5 prefix nodes of 381 MiB") && w.contains("4.0 GiB")
        && w.contains("-Xms5g -Xmx5g") && !w.contains("\n"), w);
    assertEquals(Optional.empty(), HeapAdvice.warning(tree(StreamMechanism.PRIV2_SPARSE, 32),
        8 * GIB));
    assertEquals(OptionalLong.empty(), HeapAdvice.peakBytes(tree(StreamMechanism.PRIV1, 32)));
  }
}
