package io.dplrf.sketch.randomness;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SparseSignMatrixTest {
  private static final SecretKey KEY = SecretKey.forTesting(11);

  @Test
  void everyColumn_hasExactlyOneNonZeroPerBlock_ofMagnitudeOneOverRootS_normExactlyOne() {
    for (int[] shape : new int[][] {{100, 500, 4}, {37, 200, 4}, {400, 300, 16}, {7, 50, 1}}) {
      int rows = shape[0];
      int s = shape[2];
      SparseSignMatrix m = SparseSignMatrix.of(KEY, "shape", rows, shape[1], s);
      double[] col = new double[rows];
      for (int j = 0; j < m.cols(); j++) {
        m.columns(j, j + 1, col);
        double norm2 = 0;
        int nonZeros = 0;
        for (int i = 0; i < rows; i++) {
          norm2 += col[i] * col[i];
          nonZeros += col[i] != 0 ? 1 : 0;
        }
        assertEquals(s, nonZeros, "column " + j);
        // For s a power of 4, 1/√s is a power of two: the norm is exactly 1 in floating point.
        if (Integer.bitCount(s) == 1 && Integer.numberOfTrailingZeros(s) % 2 == 0) {
          assertEquals(1.0, norm2, 0.0, "column " + j);
        } else {
          assertEquals(1.0, norm2, 1e-15);
        }
        for (int b = 0; b < s; b++) {
          int lo = (int) ((long) b * rows / s);
          int hi = (int) ((long) (b + 1) * rows / s);
          int r = m.row(j, b);
          assertTrue(r >= lo && r < hi, "block " + b + " of column " + j + ": row " + r);
          assertEquals(Math.abs(m.entry(j, b)), 1 / Math.sqrt(s), 0.0);
          assertEquals(m.entry(j, b), col[r], 0.0);
        }
      }
    }
  }

  @Test
  void sameKeyAndLabel_sameMatrix_otherLabelOrKey_another() {
    double[] a = SparseSignMatrix.of(KEY, "x", 100, 300, 4).toDense().data();
    assertArrayEquals(a, SparseSignMatrix.of(KEY, "x", 100, 300, 4).toDense().data());
    assertNotEquals(java.util.Arrays.hashCode(a),
        java.util.Arrays.hashCode(SparseSignMatrix.of(KEY, "y", 100, 300, 4).toDense().data()));
    assertNotEquals(java.util.Arrays.hashCode(a), java.util.Arrays.hashCode(
        SparseSignMatrix.of(SecretKey.forTesting(12), "x", 100, 300, 4).toDense().data()));
  }

  @Test
  void rowsAndSignsAreSpreadEvenly() {
    // 40,000 non-zeros over 100 rows in 4 blocks of 25: each row expects 400 hits (binomial,
    // sd ≈ 19.6); every count within 6 sd, and signs balanced within 6 sd of 20,000 (sd 100).
    SparseSignMatrix m = SparseSignMatrix.of(KEY, "spread", 100, 10_000, 4);
    int[] hits = new int[100];
    int negative = 0;
    for (int j = 0; j < m.cols(); j++) {
      for (int b = 0; b < 4; b++) {
        hits[m.row(j, b)]++;
        negative += m.entry(j, b) < 0 ? 1 : 0;
      }
    }
    for (int r = 0; r < 100; r++) {
      assertEquals(400, hits[r], 6 * 19.6, "row " + r);
    }
    assertEquals(20_000, negative, 600);
  }

  @Test
  void addColumn_addsDeltaTimesTheColumn() {
    SparseSignMatrix m = SparseSignMatrix.of(KEY, "add", 50, 20, 4);
    double[] acc = new double[3 + 50];
    m.addColumn(7, 2.5, acc, 3);
    double[] col = m.column(7);
    for (int i = 0; i < 50; i++) {
      assertEquals(2.5 * col[i], acc[3 + i], 0.0);
    }
  }

  @Test
  void byteCode_holdsTheSameMatrixAsIntCode_andIsUsedOnlyWhereEveryBlockFitsIt() {
    // Blocks of 128·s/s = 128 rows fit a byte (offset ≤ 127, then the sign bit); blocks of 129
    // do not, and fall back to ints. s = 4 takes addColumn's four-code path, s = 3 and 5 its loop.
    for (int s : new int[] {3, 4, 5}) {
      for (int rows : new int[] {100, 128 * s, 128 * s + s}) {
        String where = "s " + s + ", rows " + rows;
        SparseSignMatrix held = SparseSignMatrix.of(KEY, "enc", rows, 300, s);
        SparseSignMatrix ints = SparseSignMatrix.ofIntCode(KEY, "enc", rows, 300, s);
        assertArrayEquals(ints.toDense().data(), held.toDense().data(), where);
        double[] a = new double[rows + 5];
        double[] b = new double[rows + 5];
        for (int j = 0; j < 300; j++) {
          held.addColumn(j, j - 149.75, a, 5);
          ints.addColumn(j, j - 149.75, b, 5);
        }
        assertArrayEquals(b, a, where);
        assertEquals(rows <= 128 * s ? 300 * s : 4 * 300 * s, held.sizeInBytes(), where);
      }
    }
  }

  @Test
  void badParameters_areRefused() {
    assertThrows(IllegalArgumentException.class, () -> SparseSignMatrix.of(KEY, "b", 3, 10, 4));
    assertThrows(IllegalArgumentException.class, () -> SparseSignMatrix.of(KEY, "b", 10, 10, 0));
  }
}
