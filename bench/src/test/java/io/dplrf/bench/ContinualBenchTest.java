package io.dplrf.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ContinualBenchTest {
  /**
   * At T = 16 the tree's worst prefix ([1, 15], four nodes of variance L = 5 one-shot σ² each)
   * has variance 20 against the BLT factorization's ≈ 3.9 (prefix_variance.py): measured on
   * 30·t entries of Y each, the factorization's worst stays below half the tree's with a margin
   * of many standard deviations (the mean of N squared Gaussians has relative standard deviation
   * √(2/N)). The measured variance follows the stated one within 25% (N ≥ 300: √(2/300) = 8%, three
   * standard deviations, over 16 epochs).
   */
  @Test
  void theFactorizationsWorstPrefixVariance_isBelowTheTrees_andFollowsTheStatedNoise()
      throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    List<ContinualBench.Result> rs = new ContinualBench(30, 20, 2, 1, 1, 1e-6, 1)
        .run(new int[] {16}, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(List.of("tree", "factorization"),
        rs.stream().map(ContinualBench.Result::structure).toList(), out);
    ContinualBench.Result tree = rs.get(0);
    ContinualBench.Result blt = rs.get(1);
    assertTrue(blt.worstVariance() < 0.5 * tree.worstVariance(), out);
    for (ContinualBench.Result r : rs) {
      assertTrue(r.largestMeasuredOverStated() > 0.75 && r.largestMeasuredOverStated() < 1.25,
          r + "\n" + out);
    }
    assertEquals(15, tree.worstEpoch(), "popcount(15) = 4 nodes: " + out);
    // in one-shot σ² units: the tree's worst is L·4 = 20, the factorization's about 3.9 — the
    // same tolerance as the measured/stated ratio
    assertTrue(tree.worstInOneShotUnits() > 0.75 * 20 && tree.worstInOneShotUnits() < 1.25 * 20,
        out);
    assertTrue(out.contains("factorization / sqrt-factorization"), out);
  }

  @Test
  void checkpoints_areEveryEpochUpTo64_thenTheTreesWorstAndBestPrefixes() {
    assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6}, ContinualBench.checkpoints(6));
    assertArrayEquals(new int[] {1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 99, 100},
        ContinualBench.checkpoints(100));
  }
}
