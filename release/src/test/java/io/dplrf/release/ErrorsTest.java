package io.dplrf.release;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dplrf.sketch.lra.DenseNoisyMatrix;
import io.dplrf.sketch.matrix.Dense;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ErrorsTest {
  /** 600 rows: three row blocks of 256, the last one partial. */
  @Test
  void frobeniusError_matchesNaiveDifference() {
    long seed = 301;
    Random rnd = new Random(seed);
    Dense a = TestMatrices.gaussian(rnd, 600, 40, 1);
    Factorization f =
        DenseRelease.factorize(new DenseNoisyMatrix(a, List.of()), 6).factorization();
    Dense diff = a.copy();
    Dense approx = f.toDense();
    for (int x = 0; x < diff.data().length; x++) {
      diff.data()[x] -= approx.data()[x];
    }
    double expected = TestMatrices.frobenius(diff);
    assertEquals(expected, Errors.frobeniusError(a, f), 1e-10 * expected, "seed " + seed);
  }

  /** The blockwise entrywise ℓp error equals the naive dense Σ|A − M|^p, then ^(1/p). */
  @Test
  void entrywiseAndProjectionError_matchNaiveDifference() {
    Random rnd = new Random(302);
    Dense a = TestMatrices.gaussian(rnd, 600, 30, 1);
    Factorization f =
        DenseRelease.factorize(new DenseNoisyMatrix(a, List.of()), 4).factorization();
    Dense approx = f.toDense();
    // A V Vᵀ with V = f's right factor.
    Dense proj = TestMatrices.multiply(TestMatrices.multiply(a, f.v()), TestMatrices.transpose(f.v()));
    for (double p : new double[] {1, 1.3, 2}) {
      double sum = 0;
      double sumProj = 0;
      for (int x = 0; x < a.data().length; x++) {
        sum += Math.pow(Math.abs(a.data()[x] - approx.data()[x]), p);
        sumProj += Math.pow(Math.abs(a.data()[x] - proj.data()[x]), p);
      }
      double expected = Math.pow(sum, 1 / p);
      assertEquals(expected, Errors.entrywiseError(a, f, p), 1e-10 * expected, "p " + p);
      double expectedProj = Math.pow(sumProj, 1 / p);
      assertEquals(expectedProj, Errors.projectionError(a, f.v(), p), 1e-10 * expectedProj);
    }
  }

  @Test
  void bestRankKError_ofDiagonalMatrix_isTailNorm() {
    Dense a = new Dense(4, 6);
    double[] sv = {5, 3, 2, 1};
    for (int i = 0; i < 4; i++) {
      a.set(i, i + 1, sv[i]); // permuted diagonal: same singular values
    }
    assertEquals(Math.sqrt(4 + 1), Errors.bestRankKError(a, 2), 1e-12);
    assertEquals(0.0, Errors.bestRankKError(a, 4), 1e-12);
    assertEquals(Math.sqrt(25 + 9 + 4 + 1), Errors.bestRankKError(a, 0), 1e-12);
  }
}
