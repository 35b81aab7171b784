package io.dplrf.deploy.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.params.SketchSizes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code dplrf bench update} prints and measures, at a small size (no timing asserted). */
class UpdateBenchTest {
  @Test
  void run_smallSketch_timesBothPathsEachRound() {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    // 3 buffers' worth and a partial one: capacity max(2^12, (3000·40 + 2000·120) / 8) = 2^15
    List<UpdateBench.Round> rs = new UpdateBench(new SketchSizes(3000, 2000, 4, 40, 120),
        3 * (1 << 15) + 1000, 7).run(3, new PrintStream(buf, true, StandardCharsets.UTF_8));
    String out = buf.toString(StandardCharsets.UTF_8);
    assertEquals(3, rs.size(), out);
    for (UpdateBench.Round r : rs) {
      assertTrue(r.baselineSeconds() > 0 && r.bandedSeconds() > 0, out);
      assertTrue(r.baselineCpu() >= 0 && r.bandedCpu() >= 0, out);
    }
    assertTrue(out.contains("99,304 random updates per path and round"), out);
    assertTrue(out.contains("round 3: one at a time "), out);
    assertTrue(out.contains("median speed-up of 3 rounds: "), out);
  }

  @Test
  void run_refusesNoRoundsOrNoUpdates() {
    SketchSizes sizes = new SketchSizes(300, 200, 2, 8, 16);
    PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertThrows(IllegalArgumentException.class, () -> new UpdateBench(sizes, 10, 1).run(0, sink));
    assertThrows(IllegalArgumentException.class, () -> new UpdateBench(sizes, 0, 1));
  }
}
