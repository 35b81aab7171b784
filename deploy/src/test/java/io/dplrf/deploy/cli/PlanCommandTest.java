package io.dplrf.deploy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanCommandTest {
  record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Cli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** MovieLens-small's shape (610 users x 9724 movies) at epsilon = 1, T = 16. */
  private static String[] movieLens(String... extra) {
    List<String> a = new ArrayList<>(List.of("plan", "--rows", "610", "--cols", "9724", "--rank",
        "10", "--epsilon", "1", "--delta", "1e-6", "--epochs", "16"));
    a.addAll(Arrays.asList(extra));
    return a.toArray(String[]::new);
  }

  /**
   * MovieLens-small's true sigma_1 is 534; the floor at these settings is above 1,000 at every
   * epoch, so the user learns before any data that the releases would be noise.
   */
  @Test
  void movieLensAtEpsilonOne_floorAboveSigma1_warnsReliableRankZero() {
    Run r = run(movieLens("--sigma1", "534", "--continual", "tree"));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("noise floor") && r.out().contains("highest floor"), r.out());
    for (String epoch : List.of("1", "2", "3", "4", "7", "8", "15", "16")) {
      assertTrue(r.out().lines().anyMatch(l -> l.strip().startsWith(epoch + " ")),
          "a row for epoch " + epoch + ":\n" + r.out());
    }
    assertEquals(1, r.err().strip().lines().count(), r.err());
    assertTrue(r.err().contains("reliable rank 0") && r.err().contains("noise alone"), r.err());
  }

  @Test
  void strongSignal_standsAboveTheFloor_withoutWarning() {
    Run r = run(movieLens("--sigma1", "1e6", "--continual", "factorization"));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("stands above the floor"), r.out());
    assertTrue(r.out().contains("factorization (BLT)"), r.out());
    assertEquals("", r.err());
  }

  @Test
  void badContinualOrSetting_isOneLineAndExitTwo() {
    for (String[] args : List.of(movieLens("--continual", "sqrt"), movieLens("--epsilom", "1"),
        movieLens("--mechanism", "robust-lra"))) {
      Run r = run(args);
      assertEquals(2, r.code(), String.join(" ", args) + ": " + r.err());
      assertEquals(1, r.err().strip().lines().count(), r.err());
      assertFalse(r.err().contains("Exception"), r.err());
    }
  }

  @Test
  void localOrCompletionMode_isRefusedForWhatItIs_notForAMissingRank() {
    for (String mode : List.of("local", "completion")) {
      Run r = run("plan", "--mode", mode, "--epsilon", "1", "--delta", "1e-6");
      assertEquals(2, r.code(), r.err());
      assertTrue(r.err().startsWith("dplrf plan: plan covers modes updates and rows, whose noise"
          + " the service calibrates; in mode " + mode + " "), r.err());
      assertEquals(1, r.err().strip().lines().count(), r.err());
    }
  }

  @Test
  void help_describesTheCommand() {
    Run r = run("plan", "--help");
    assertEquals(0, r.code());
    assertTrue(r.out().contains("--continual") && r.out().contains("--sigma1"), r.out());
    assertTrue(run("help").out().contains("plan"));
  }
}
