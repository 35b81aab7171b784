package io.dplrf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.params.SketchSizes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** What {@code dplrf bench update} prints and measures, at a small size (no timing asserted). */
class UpdateBenchTest {
  /**
   * Both paths build the same sketch bit for bit, over full buffers applied in the background and
   * a partial one applied at the end; each round's line says so.
   */
  @Test
  void run_smallSketch_bothPathsComputeTheSameSketchEachRound() {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    // 3 buffers' worth and a partial one: capacity max(2^12, (3000·40 + 2000·120) / 8) = 2^15
    List<UpdateBench.Round> rs = new UpdateBench(new SketchSizes(3000, 2000, 4, 40, 120),
        3 * (1 << 15) + 1000, 7).run(3, new PrintStream(buf, true, StandardCharsets.UTF_8));
    String out = buf.toString(StandardCharsets.UTF_8);
    assertEquals(3, rs.size(), out);
    for (UpdateBench.Round r : rs) {
      assertTrue(r.sameSums(), out);
    }
    assertTrue(out.contains("99,304 random updates per path and round"), out);
    assertEquals(3, out.lines().filter(l -> l.matches("round [123]: one at a time .*")
        && l.endsWith("; same Y and Z, bit for bit")).count(), out);
    double[] speedUps = rs.stream().mapToDouble(UpdateBench.Round::speedUp).sorted().toArray();
    assertTrue(out.contains(String.format("median speed-up of 3 rounds: %.2fx", speedUps[1])),
        out);
  }

  /** The digest sees every entry at its position, also through a transpose. */
  @Test
  void digest_ofATransposeEqualsTheArrays_andChangesWithAnyEntryOrItsPlace() {
    SplittableRandom r = new SplittableRandom(11);
    int rows = 3;
    int cols = 5;
    double[] a = new double[rows * cols];
    double[] aT = new double[rows * cols];
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        a[i * cols + j] = r.nextDouble(-1, 1);
        aT[j * rows + i] = a[i * cols + j];
      }
    }
    long d = UpdateBench.digest(a);
    assertEquals(d, UpdateBench.digestTransposed(aT, rows, cols));
    assertNotEquals(d, UpdateBench.digest(aT), "the transpose, read as released");
    double[] ulp = a.clone();
    ulp[7] = Math.nextUp(ulp[7]);
    assertNotEquals(d, UpdateBench.digest(ulp));
    double[] swapped = a.clone();
    swapped[0] = a[1];
    swapped[1] = a[0];
    assertNotEquals(d, UpdateBench.digest(swapped));
    double[] negativeZero = new double[rows * cols];
    negativeZero[4] = -0.0;
    assertNotEquals(UpdateBench.digest(new double[rows * cols]),
        UpdateBench.digest(negativeZero));
  }

  @Test
  void run_refusesNoRoundsOrNoUpdates() {
    SketchSizes sizes = new SketchSizes(300, 200, 2, 8, 16);
    PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertThrows(IllegalArgumentException.class, () -> new UpdateBench(sizes, 10, 1).run(0, sink));
    assertThrows(IllegalArgumentException.class, () -> new UpdateBench(sizes, 0, 1));
  }
}
