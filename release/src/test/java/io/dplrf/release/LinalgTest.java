package io.dplrf.release;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dplrf.sketch.matrix.Dense;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LinalgTest {
  /** 600 columns: two full blocks of 256 and a partial one. */
  @Test
  void sketchTimes_streamedBlocks_matchNaiveProduct() {
    long seed = 401;
    Random rnd = new Random(seed);
    Dense s = TestMatrices.gaussian(rnd, 7, 600, 1);
    Dense q = TestMatrices.gaussian(rnd, 600, 5, 1);
    Dense expected = TestMatrices.multiply(s, q);
    Dense got = Linalg.toDense(Linalg.sketchTimes(new DenseSketchMatrix(s), Linalg.copyOf(q)));
    for (int x = 0; x < expected.data().length; x++) {
      assertEquals(expected.data()[x], got.data()[x], 1e-10, "seed " + seed + " entry " + x);
    }
  }

  /** 2,500 columns of d: two full output blocks of 1,024 and a partial one. */
  @Test
  void transposeTimes_matchesNaiveProductOfTheTranspose() {
    long seed = 431;
    Random rnd = new Random(seed);
    Dense d = TestMatrices.gaussian(rnd, 9, 2500, 1);
    Dense m = TestMatrices.gaussian(rnd, 9, 6, 1);
    Dense expected = TestMatrices.multiply(Linalg.toDense(Linalg.transposeView(d)), m);
    Dense got = Linalg.toDense(Linalg.transposeTimes(d, Linalg.copyOf(m)));
    assertEquals(2500, got.rows());
    for (int x = 0; x < expected.data().length; x++) {
      assertEquals(expected.data()[x], got.data()[x], 1e-10, "seed " + seed + " entry " + x);
    }
  }

  /** The sparse path of sketchTimes is the product with the same matrix made dense. */
  @Test
  void sketchTimes_ofASparseSignMatrix_matchesItsDenseColumns() {
    long seed = 441;
    var s = io.dplrf.sketch.randomness.SparseSignMatrix.of(
        io.dplrf.sketch.randomness.SecretKey.forTesting(seed), "s", 16, 700, 3);
    double[] colMajor = new double[16 * 700];
    s.columns(0, 700, colMajor);
    Dense dense = new Dense(16, 700);
    for (int i = 0; i < 16; i++) {
      for (int j = 0; j < 700; j++) {
        dense.data()[i * 700 + j] = colMajor[j * 16 + i];
      }
    }
    Dense q = TestMatrices.gaussian(new Random(seed), 700, 5, 1);
    Dense expected = TestMatrices.multiply(dense, q);
    Dense got = Linalg.toDense(Linalg.sketchTimes(s, Linalg.copyOf(q)));
    for (int x = 0; x < expected.data().length; x++) {
      assertEquals(expected.data()[x], got.data()[x], 1e-10, "seed " + seed + " entry " + x);
    }
  }

  /** The re-orthonormalisation of Priv1 step 6 must not change the represented matrix. */
  @Test
  void rebalance_keepsProductAndOrthonormalises() {
    long seed = 411;
    Random rnd = new Random(seed);
    var left = Linalg.orthonormalColumns(Linalg.copyOf(TestMatrices.gaussian(rnd, 30, 4, 1)));
    Dense right = TestMatrices.gaussian(rnd, 25, 4, 1); // not orthonormal
    double[] s = {4, 3, 2, 0.5};
    Factorization f = Linalg.rebalance(left, s, Linalg.copyOf(right));
    Dense expected = Linalg.toDense(
        Linalg.scaleColumns(left, s).multiply(Linalg.copyOf(right).transpose()));
    Dense got = f.toDense();
    for (int x = 0; x < expected.data().length; x++) {
      assertEquals(expected.data()[x], got.data()[x], 1e-10, "seed " + seed + " entry " + x);
    }
    TestMatrices.assertInvariants(f, 4, "seed " + seed);
  }

  /**
   * More than {@link Linalg#PANEL} columns (the block Gram–Schmidt path) and rank 5 only: the
   * basis must still be orthonormal and must span the input.
   */
  @Test
  void orthonormalColumns_rankDeficientManyColumns_isOrthonormalAndSpansInput() {
    long seed = 421;
    Random rnd = new Random(seed);
    Dense y = TestMatrices.rankK(rnd, 300, 150, 5);
    var q = Linalg.orthonormalColumns(Linalg.copyOf(y));
    Dense qd = Linalg.toDense(q);
    assertEquals(150, qd.cols());
    TestMatrices.assertOrthonormalColumns(qd, 1e-10, "seed " + seed + ": Q");
    var yy = Linalg.copyOf(y);
    double residual = yy.subtract(q.multiply(q.transpose().multiply(yy))).norm();
    assertEquals(0.0, residual / TestMatrices.frobenius(y), 1e-12, "seed " + seed);
  }
}
