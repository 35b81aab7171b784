package io.dplrf.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.release.UtilityReport.FloorTerm;
import io.dplrf.sketch.lra.NoiseScale;
import java.util.List;
import org.junit.jupiter.api.Test;

class UtilityReportTest {
  private static UtilityReport report(List<FloorTerm> terms, double... s) {
    return new UtilityReport("dense", s.length, List.of(new NoiseScale("A+N", 1, 1, 4)), terms, s,
        0, "none", List.of());
  }

  @Test
  void noSignalWarning_exactlyWhenEveryValueIsAtOrBelowTheFloor() {
    List<FloorTerm> floor10 = List.of(new FloorTerm("A+N", 10, "10"));
    UtilityReport noise = report(floor10, 10, 3);
    assertEquals(0, noise.reliableRank());
    String w = noise.noSignalWarning().orElseThrow();
    assertTrue(w.contains("reliable rank 0") && w.contains("noise alone") && w.contains("10"), w);
    assertTrue(report(floor10, 10.5, 3).noSignalWarning().isEmpty(), "one value above the floor");
  }

  @Test
  void noSignalWarning_isEmptyWithoutAFloor() {
    assertTrue(report(List.of(), 0, 0).noSignalWarning().isEmpty(),
        "no floor known: nothing to compare against");
  }
}
