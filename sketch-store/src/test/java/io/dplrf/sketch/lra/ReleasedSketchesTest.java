package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dplrf.sketch.matrix.Dense;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ReleasedSketchesTest {
  private static DenseNoisyMatrix part(double... a) {
    return new DenseNoisyMatrix(new Dense(1, a.length, a),
        List.of(new NoiseScale("N", 2, 1, a.length)));
  }

  /**
   * The parts are made in turn, each only after the previous was added (so none is held longer),
   * into the first part's arrays (no copy); the sum and its noise are those of {@code sum}.
   */
  @Test
  void sumInTurn_makesThePartsOneAtATime_intoTheFirstsArrays() {
    List<String> calls = new ArrayList<>();
    double[][] made = {{1, 2, 3}, {10, 20, 30}, {100, 200, 300}};
    List<Supplier<ReleasedSketches>> parts = new ArrayList<>();
    for (int p = 0; p < made.length; p++) {
      int q = p;
      parts.add(() -> {
        calls.add("make " + q);
        return part(made[q].clone());
      });
    }
    List<Supplier<ReleasedSketches>> logged = new ArrayList<>();
    for (Supplier<ReleasedSketches> s : parts) {
      logged.add(() -> {
        ReleasedSketches r = s.get();
        calls.add("made " + ((DenseNoisyMatrix) r).noisyA().data()[0]);
        return r;
      });
    }
    DenseNoisyMatrix[] first = new DenseNoisyMatrix[1];
    logged.set(0, () -> {
      first[0] = (DenseNoisyMatrix) parts.get(0).get();
      return first[0];
    });
    DenseNoisyMatrix sum = (DenseNoisyMatrix) ReleasedSketches.sumInTurn(logged);
    assertEquals(List.of("make 0", "make 1", "made 10.0", "make 2", "made 100.0"), calls);
    assertArrayEquals(new double[] {111, 222, 333}, sum.noisyA().data());
    assertSame(first[0].noisyA().data(), sum.noisyA().data(), "summed into the first part");
    DenseNoisyMatrix all = (DenseNoisyMatrix) ReleasedSketches.sum(
        List.of(part(made[0]), part(made[1]), part(made[2])));
    assertArrayEquals(all.noisyA().data(), sum.noisyA().data());
    assertEquals(all.noise(), sum.noise());
    assertArrayEquals(new double[] {1, 2, 3}, made[0], "sum(List) copies its first part");
  }

  @Test
  void sumInTurn_refusesNoPartsAndMixedShapes() {
    assertThrows(IllegalArgumentException.class, () -> ReleasedSketches.sumInTurn(List.of()));
    assertThrows(IllegalArgumentException.class, () -> ReleasedSketches.sumInTurn(
        List.of(() -> part(1, 2), () -> part(1, 2, 3))));
  }
}
