package io.dplrf.deploy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A small {@code dplrf demo} end to end (embedded broker): what a person reads. */
class DemoCommandTest {

  @Test
  void demo_printsAnUninterruptedTable_andAReadableSummary() {
    int epochs = 3;
    CliRun r = CliRun.of("demo", "--rows", "60", "--cols", "50", "--rank", "2", "--epochs",
        "" + epochs, "--max-entry", "6", "--epsilon", "4");
    assertEquals(0, r.code(), r.toString());
    List<String> lines = r.out().lines().toList();
    int header = -1;
    for (int x = 0; x < lines.size(); x++) {
      if (lines.get(x).strip().startsWith("epoch ") && lines.get(x).contains("reliable rank")) {
        header = x;
      }
    }
    assertTrue(header >= 0, r.toString());
    for (int e = 1; e <= epochs; e++) {
      String row = lines.get(header + e);
      assertTrue(row.matches(" *" + e + " +[0-9.e+]+ .*"), "row of epoch " + e + ": " + row);
    }
    assertTrue(lines.get(header + epochs + 1).isBlank(), "the table ends: " + r);
    // Every line of the service (its banner, the last epoch's notice) comes before the table.
    assertTrue(lines.subList(0, header).stream().anyMatch(l -> l.contains("epoch " + epochs
        + " of " + epochs + " closed")), r.toString());
    // The demo runs what serve runs by default, and names it as the settings do.
    assertTrue(r.out().contains("mechanism priv2-sparse,"), r.toString());
    assertTrue(r.out().contains("'best rank-k' is ||A_e - [A_e]_k||_F, the error of the best"
        + " rank-k approximation"), "the column is explained: " + r);
    assertFalse(r.out().contains("IngestStats{"), r.toString());
    assertTrue(r.out().contains("Ingested (exact counts, operator only, not private): "),
        r.toString());
    assertTrue(r.out().matches("(?s).*holding [0-9,]+ updates; [0-9,]+ applied \\(0 of them"
        + " clipped\\), 0 dropped; 0 records dead-lettered\\..*"), r.toString());
  }
}
