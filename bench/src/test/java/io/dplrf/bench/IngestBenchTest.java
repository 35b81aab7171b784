package io.dplrf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * What {@code dplrf bench ingest} prints, on a small stream through its embedded broker (no
 * timing asserted): one column per round, every dplrf run applying every update (the benchmark
 * itself throws otherwise), the median ratio over the rounds against both bare consumers, and the
 * close's and the release's cost beside the first window's rate.
 */
class IngestBenchTest {
  @Test
  void run_threeRounds_printsEachRoundTheMedianRatioAndWhatClosesAndReleasesCost()
      throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    new IngestBench(300, 200, 2, 300_000, "priv2-sparse", 64, 5)
        .run(1, 3, new PrintStream(buf, true, StandardCharsets.UTF_8));
    String out = buf.toString(StandardCharsets.UTF_8);
    for (int r = 1; r <= 3; r++) {
      assertTrue(out.contains("round " + r + " dplrf ingest"), out);
    }
    // One uncounted round first, before round 1's bare consumer, and only one.
    assertTrue(out.indexOf("warm-up round 1 (not counted)") >= 0
        && out.indexOf("warm-up round 1") < out.indexOf("round 1 bare consumer"), out);
    assertTrue(!out.contains("warm-up round 2"), out);
    String median = out.lines().filter(l -> l.startsWith("median ratio of 3 rounds"))
        .findFirst().orElseThrow(() -> new AssertionError(out));
    String[] ratios = out.lines().filter(l -> l.startsWith("ratio (target >= 0.8)"))
        .findFirst().orElseThrow().replace("ratio (target >= 0.8)", "").trim().split("\\s+");
    assertEquals(3, ratios.length, out);
    // The printed values, parsed (a locale may print a decimal comma); ratios can exceed 10 here,
    // where the tiny stream leaves the bare consumer waiting on polls.
    double[] sorted = java.util.Arrays.stream(ratios).mapToDouble(IngestBenchTest::number).sorted()
        .toArray();
    assertEquals(sorted[1], number(median.replace("median ratio of 3 rounds", "").trim()), 0.0,
        out);
    // The ratio is dplrf's first-window rate over the bare consumer's, per round.
    String[] bare = cells(out, "bare consumer (updates/s)");
    String[] dplrf = cells(out, "dplrf, no close in window (updates/s)");
    for (int r = 0; r < 3; r++) {
      double d = rate(dplrf[r]);
      double b = rate(bare[r]);
      // The ratio is printed to 3 decimals (+-0.0005) from the unrounded rates, which are printed
      // to the unit (+-0.5 each): the ratio of the printed rates lies within the extremes below.
      double off = Math.max((d + 0.5) / (b - 0.5) - d / b, d / b - (d - 0.5) / (b + 0.5));
      assertEquals(number(ratios[r]), d / b, 0.0005 + off + 1e-9, out);
    }
    assertEquals(3, cells(out, "epoch close: nodes + snapshot (s)").length, out);
    assertEquals(3, cells(out, "release latency (s)").length, out);
    assertEquals(2, out.lines().filter(l -> l.startsWith("  ingest while it runs (updates/s)"))
        .count(), out);
    // Where the windows' core-seconds went beyond the Java threads: the JVM's own (GC, JIT), and
    // the host's idle, I/O-wait and steal time, for dplrf and for the bare consumer.
    assertTrue(out.contains("  CPU s, JVM: GC, JIT (not threads)"), out);
    assertTrue(out.contains("  CPU s, ingest thread"), out);
    assertEquals(2, out.lines().filter(l -> l.startsWith("  host idle|iowait|steal (core s)"))
        .count(), out);
    assertTrue(out.contains("bare consumer: process CPU s"), out);
    // The second baseline, a bare consumer with Kafka's own client defaults, in every round.
    for (int r = 1; r <= 3; r++) {
      assertTrue(out.contains("round " + r + " bare consumer, Kafka's defaults"), out);
    }
    assertEquals(3, cells(out, "  ratio, Kafka's defaults").length, out);
    assertTrue(out.lines().anyMatch(l -> l.startsWith("  median of 3, Kafka's defaults")), out);
  }

  /** The cells of the table row labelled {@code label}. */
  private static String[] cells(String out, String label) {
    return out.lines().filter(l -> l.startsWith(label)).findFirst()
        .orElseThrow(() -> new AssertionError(label + " in\n" + out))
        .substring(label.length()).trim().split("\\s+");
  }

  private static double rate(String printed) {
    return Double.parseDouble(printed.replace(",", "").replace(".", ""));
  }

  private static double number(String printed) {
    return Double.parseDouble(printed.replace(',', '.'));
  }

  @Test
  void run_noRoundsOrNegativeWarmUp_isRefusedBeforeStartingAnything() {
    IngestBench bench = new IngestBench(300, 200, 2, 20_000, "priv2-sparse", 64, 5);
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertThrows(IllegalArgumentException.class, () -> bench.run(0, 0, out));
    assertThrows(IllegalArgumentException.class, () -> bench.run(-1, 2, out));
  }
}
