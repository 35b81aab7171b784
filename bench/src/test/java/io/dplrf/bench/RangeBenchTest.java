package io.dplrf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.params.SketchSizes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RangeBenchTest {
  @Test
  void measuresTheRangeThenThePrefix_atSmallSizes() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    List<RangeBench.Result> rs = new RangeBench(SketchSizes.of(300, 200, 3, null, null,
        SketchSizes.DEFAULT_ALPHA), 8, 500, 2, 7, 1)
        .run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(List.of("range [2, 7]", "prefix [1, 7] (its nodes kept)"),
        rs.stream().map(RangeBench.Result::what).toList());
    for (RangeBench.Result r : rs) {
      assertFalse(r.outOfMemory(), out);
      assertTrue(out.lines().anyMatch(l -> l.startsWith(r.what()) && l.contains(" released in ")),
          r.what() + " in\n" + out);
    }
    assertTrue(out.contains("7 epochs of 500 updates closed"), out);
    assertThrows(IllegalArgumentException.class, () -> new RangeBench(
        SketchSizes.of(300, 200, 3, null, null, SketchSizes.DEFAULT_ALPHA), 8, 500, 3, 9, 1));
  }

  /** A release that runs out of heap is reported, and the benchmark goes on to the next. */
  @Test
  void measure_outOfMemory_isReportedNotThrown() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RangeBench.Result r = RangeBench.measure("range [2, 7]", () -> {
      throw new OutOfMemoryError("Java heap space");
    }, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(r.outOfMemory(), out);
    assertEquals("range [2, 7]", r.what());
    assertTrue(out.startsWith("range [2, 7]") && out.contains(" OutOfMemoryError in "), out);
  }
}
