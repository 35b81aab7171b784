package io.dplrf.deploy.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code dplrf bench noise} prints and measures, at a small size (no timing asserted). */
class NoiseBenchTest {
  @Test
  void run_timesBothSamplersEachRound() {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    List<NoiseBench.Round> rs = new NoiseBench(2.0, 70_000, 3)
        .run(2, new PrintStream(buf, true, StandardCharsets.UTF_8));
    String out = buf.toString(StandardCharsets.UTF_8);
    assertEquals(2, rs.size(), out);
    for (NoiseBench.Round r : rs) {
      assertTrue(r.cksNanos() > 0 && r.blockedNanos() > 0, out);
    }
    assertTrue(out.contains("70,000 samples per sampler and round"), out);
    assertTrue(out.contains("round 2: CKS "), out);
    assertTrue(out.contains("median speed-up of 2 rounds: "), out);
  }

  @Test
  void run_refusesNoRoundsOrNoSamples() {
    PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertThrows(IllegalArgumentException.class, () -> new NoiseBench(1, 10, 1).run(0, sink));
    assertThrows(IllegalArgumentException.class, () -> new NoiseBench(1, 0, 1));
  }
}
