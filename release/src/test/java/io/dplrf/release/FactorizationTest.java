package io.dplrf.release;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dplrf.sketch.lra.DenseNoisyMatrix;
import io.dplrf.sketch.matrix.Dense;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FactorizationTest {
  @Test
  void rowColScore_agreeWithToDense() {
    long seed = 201;
    Random rnd = new Random(seed);
    Factorization f = DenseRelease.factorize(
        new DenseNoisyMatrix(TestMatrices.gaussian(rnd, 23, 31, 1), List.of()), 4).factorization();
    Dense d = f.toDense();
    for (int i = 0; i < 23; i++) {
      double[] ri = f.row(i);
      for (int j = 0; j < 31; j++) {
        double[] cj = f.col(j);
        double dot = 0;
        for (int l = 0; l < 4; l++) {
          dot += ri[l] / f.s()[l] * cj[l]; // U_i Σ · V_j Σ / Σ = U_i Σ V_jᵀ
        }
        assertEquals(d.get(i, j), f.score(i, j), 1e-12, "seed " + seed + " score " + i + "," + j);
        assertEquals(d.get(i, j), dot, 1e-12, "seed " + seed + " row·col " + i + "," + j);
      }
    }
  }

  @Test
  void constructor_rejectsUnsortedNegativeOrMismatchedSingularValues() {
    Dense u = new Dense(3, 2);
    Dense v = new Dense(4, 2);
    assertThrows(IllegalArgumentException.class, () -> new Factorization(u, new double[] {1, 2}, v));
    assertThrows(IllegalArgumentException.class, () -> new Factorization(u, new double[] {1, -1}, v));
    assertThrows(IllegalArgumentException.class,
        () -> new Factorization(u, new double[] {2, Double.NaN}, v));
    assertThrows(IllegalArgumentException.class, () -> new Factorization(u, new double[] {1}, v));
  }

  @Test
  void singularValues_areDefensivelyCopied() {
    double[] s = {2, 1};
    Factorization f = new Factorization(new Dense(3, 2), s, new Dense(4, 2));
    s[0] = 99;
    f.s()[1] = 99;
    assertArrayEquals(new double[] {2, 1}, f.s());
  }
}
