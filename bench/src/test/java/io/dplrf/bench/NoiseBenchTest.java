package io.dplrf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code dplrf bench noise} prints and computes, at a small size (no timing asserted). */
class NoiseBenchTest {
  /** Two-sided standard normal quantile for false-alarm probability 1e-6. */
  private static final double Z_1E6 = 4.891638475699;

  /**
   * Each sampler's n = 70,000 draws have mean 0 and, at s ≥ 2^30, the normal law's variance σ_eff²
   * and kurtosis to within 1e-15, so Σx²/(n·σ_eff²) has mean 1 and standard deviation √(2/n) (CLT).
   * Each of the four variances must lie within z·√(2/n) of 1, a check that falsely fails with
   * probability 1e-6 (4e-6 for all four); the key and labels are fixed, so every run draws the
   * same samples.
   */
  @Test
  void run_bothSamplersDrawTheLawOfSigmaEff_andEachRoundIsPrintedAsReturned() {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int n = 70_000;
    List<NoiseBench.Round> rs = new NoiseBench(2.0, n, 3)
        .run(2, new PrintStream(buf, true, StandardCharsets.UTF_8));
    String out = buf.toString(StandardCharsets.UTF_8);
    assertEquals(2, rs.size(), out);
    double bound = Z_1E6 * Math.sqrt(2.0 / n);
    for (NoiseBench.Round r : rs) {
      assertEquals(1, r.cksVariance(), bound, "CKS, seed 3\n" + out);
      assertEquals(1, r.blockedVariance(), bound, "blocked, seed 3\n" + out);
    }
    // Two rounds draw from streams of their own labels, so their variances differ.
    assertTrue(rs.get(0).cksVariance() != rs.get(1).cksVariance(), out);
    assertTrue(out.contains("70,000 samples per sampler and round"), out);
    for (int i = 0; i < rs.size(); i++) {
      NoiseBench.Round r = rs.get(i);
      String line = String.format("round %d: CKS %.1f ns/sample (variance %.4f); blocked %.1f"
              + " ns/sample (variance %.4f); %.2fx; key stream alone %.2f ns per 64-bit word",
          i + 1, r.cksNanos(), r.cksVariance(), r.blockedNanos(), r.blockedVariance(),
          r.speedUp(), r.wordNanos());
      assertTrue(out.contains(line), line + " in\n" + out);
    }
    double[] speedUps = rs.stream().mapToDouble(NoiseBench.Round::speedUp).sorted().toArray();
    assertTrue(out.contains(String.format("median speed-up of 2 rounds: %.2fx", speedUps[1])),
        out);
  }

  @Test
  void run_refusesNoRoundsOrNoSamples() {
    PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertThrows(IllegalArgumentException.class, () -> new NoiseBench(1, 10, 1).run(0, sink));
    assertThrows(IllegalArgumentException.class, () -> new NoiseBench(1, 0, 1));
  }
}
