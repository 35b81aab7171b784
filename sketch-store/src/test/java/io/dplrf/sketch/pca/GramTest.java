package io.dplrf.sketch.pca;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.matrix.Dense;
import org.junit.jupiter.api.Test;

class GramTest {
  @Test
  void addRow_accumulatesTheOuterProducts() {
    double[][] rows = AnalyzeGaussTest.randomRows(25, 7, 3);
    Gram g = AnalyzeGaussTest.gramOf(rows, 10); // norms ≤ √7 < 10: nothing clipped
    Dense a = g.toDense();
    for (int i = 0; i < 7; i++) {
      for (int j = 0; j < 7; j++) {
        double s = 0;
        double tol = 1e-12;
        for (double[] r : rows) {
          s += r[i] * r[j];
          // Fixed-point rows: each entry moves by < q toward zero, so a product moves by
          // < q(|x_i| + |x_j|) + q².
          tol += g.step() * (Math.abs(r[i]) + Math.abs(r[j])) + g.step() * g.step();
        }
        assertEquals(s, a.get(i, j), tol);
      }
    }
    assertEquals(25, g.rowCount());
    assertEquals(0, g.clippedCount());
  }

  @Test
  void addRow_clipsLongRowsToNormC_andCountsThem() {
    Gram g = new Gram(3, 2);
    double[] row = {3, 4, 0}; // norm 5
    assertTrue(g.addRow(row));
    assertEquals(3.0, row[0], "the caller's row is not modified");
    assertFalse(g.addRow(new double[] {1, 1, 1}));
    assertEquals(1, g.clippedCount());
    assertEquals(2, g.rowCount());
    // trace = ‖x_clipped‖² + 3 = 4(1 − 1e-9)² + 3
    Dense a = g.toDense();
    double trace = a.get(0, 0) + a.get(1, 1) + a.get(2, 2);
    assertTrue(trace <= 7 && trace > 7 - 1e-7, "trace " + trace);
  }

  /** The sensitivity claim of AnalyzeGaussPlan: ‖u(x xᵀ)‖₂ ≤ ‖x‖² ≤ C² for every clipped row. */
  @Test
  void oneRowChangesThePackedUpperTriangleByAtMostCSquared() {
    double clip = 0.7;
    for (double[] r : AnalyzeGaussTest.randomRows(200, 9, 5)) {
      for (int s = 0; s < r.length; s++) {
        r[s] *= 1 + s; // some rows long, some short
      }
      Gram g = new Gram(9, clip);
      g.addRow(r);
      double ss = 0;
      for (double u : g.packedUpper()) {
        ss += u * u;
      }
      assertTrue(Math.sqrt(ss) <= clip * clip, "||u(xx^T)|| = " + Math.sqrt(ss));
    }
  }

  @Test
  void addRow_rejectsWrongLengthAndNonFiniteRows() {
    Gram g = new Gram(3, 1);
    assertThrows(IllegalArgumentException.class, () -> g.addRow(new double[2]));
    assertThrows(IllegalArgumentException.class, () -> g.addRow(new double[] {1, Double.NaN, 0}));
    assertEquals(0, g.rowCount());
  }

  @Test
  void packedIndex_walksTheUpperTriangleRowByRow() {
    int p = 0;
    for (int i = 0; i < 6; i++) {
      for (int j = i; j < 6; j++) {
        assertEquals(p++, Gram.packedIndex(6, i, j));
      }
    }
  }

  /** Rows with varied magnitudes: floating-point running sums of them depend on the order. */
  private static double[][] rows(int n, int d, long seed) {
    java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
    double[][] out = new double[n][d];
    for (double[] row : out) {
      for (int j = 0; j < d; j++) {
        row[j] = r.nextDouble(-1, 1) * Math.pow(10, r.nextInt(-6, 1));
      }
    }
    return out;
  }

  @Test
  void sumsAreExact_theOrderOfRowsChangesNoBit() {
    double[][] rows = rows(500, 7, 3);
    Gram forward = new Gram(7, 1.5);
    Gram backward = new Gram(7, 1.5);
    for (int i = 0; i < rows.length; i++) {
      forward.addRow(rows[i]);
      backward.addRow(rows[rows.length - 1 - i]);
    }
    assertTrue(java.util.Arrays.equals(forward.packedUpper(), backward.packedUpper()));
    for (int p = 0; p < Gram.packedLength(7); p++) {
      assertEquals(forward.exactUnits(p), backward.exactUnits(p));
    }
  }

  @Test
  void neighbours_differByExactlyTheQuantisedRowsOuterProduct() {
    double[][] rows = rows(200, 5, 4);
    Gram without = new Gram(5, 1);
    Gram with = new Gram(5, 1);
    double[] x = {0.3, -0.2, 0.7, 0.0, 0.1};
    for (int i = 0; i < rows.length; i++) {
      without.addRow(rows[i]);
      with.addRow(rows[i]);
      if (i == 100) {
        with.addRow(x);
      }
    }
    double q = with.step();
    long[] a = new long[5];
    double norm2 = 0;
    for (int i = 0; i < 5; i++) {
      a[i] = (long) (x[i] / q);
      norm2 += (a[i] * q) * (a[i] * q);
    }
    assertTrue(norm2 <= 1, "the quantised row keeps ‖x‖ ≤ C");
    int p = 0;
    for (int i = 0; i < 5; i++) {
      for (int j = i; j < 5; j++, p++) {
        assertEquals(java.math.BigInteger.valueOf(a[i] * a[j]),
            with.exactUnits(p).subtract(without.exactUnits(p)), "entry (" + i + ", " + j + ")");
      }
    }
  }

  @Test
  void sumsBeyond64Bits_carryIntoTheHighWord() {
    // Entries near C give products near 2^60 units; 40 rows sum past 2^63 (and negative ones
    // below -2^63), checked against BigInteger arithmetic.
    Gram g = new Gram(2, 1);
    double[] row = {0.7, -0.7};
    java.math.BigInteger a = java.math.BigInteger.valueOf((long) (0.7 / g.step()));
    for (int r = 0; r < 40; r++) {
      g.addRow(row);
    }
    java.math.BigInteger sq = a.multiply(a).multiply(java.math.BigInteger.valueOf(40));
    assertTrue(sq.bitLength() > 63);
    assertEquals(sq, g.exactUnits(0));
    assertEquals(sq.negate(), g.exactUnits(1));
    assertEquals(sq, g.exactUnits(2));
    assertEquals(40 * 0.49, g.packedUpper()[0], 40 * 0.49 * 1e-8);
  }

  @Test
  void roundingToTheGrid_isExactAndMatchesRoundingTheValue() {
    Gram g = new Gram(4, 1);
    for (double[] row : rows(50, 4, 5)) {
      g.addRow(row);
    }
    double[] values = g.packedUpper();
    for (double gamma : new double[] {0x1p-20, 0x1p-45, 0x1p-70}) {
      java.math.BigInteger[] k = g.packedRoundedToGrid(gamma);
      for (int p = 0; p < values.length; p++) {
        assertEquals(io.dplrf.sketch.noise.GridGaussian.roundToGrid(values[p], gamma),
            k[p].doubleValue() * gamma, Math.abs(values[p]) * 1e-15, "gamma " + gamma + ", entry " + p);
      }
    }
  }

  @Test
  void addSparseRow_equalsAddRowOfTheDenseRow_exactly() {
    int d = 9;
    Gram dense = new Gram(d, 1.5);
    Gram sparse = new Gram(d, 1.5);
    int[][] cols = {{0, 3, 8}, {2}, {1, 2, 4, 5, 7}, {}};
    double[][] vals = {{0.3, -1.2, 0.9}, {2.5}, {0.1, -0.2, 0.3, -0.4, 0.5}, {}};
    for (int r = 0; r < cols.length; r++) {
      double[] row = new double[d];
      for (int c = 0; c < cols[r].length; c++) {
        row[cols[r][c]] = vals[r][c];
      }
      assertEquals(dense.addRow(row), sparse.addSparseRow(cols[r], vals[r]), "clipped, row " + r);
    }
    for (int p = 0; p < Gram.packedLength(d); p++) {
      assertEquals(dense.exactUnits(p), sparse.exactUnits(p), "entry " + p);
    }
    assertEquals(dense.clippedCount(), sparse.clippedCount());
  }

  @Test
  void addSparseRow_rejectsUnsortedOrOutOfRangeColumns() {
    Gram g = new Gram(4, 1);
    assertThrows(IllegalArgumentException.class,
        () -> g.addSparseRow(new int[] {2, 1}, new double[] {1, 1}));
    assertThrows(IllegalArgumentException.class,
        () -> g.addSparseRow(new int[] {4}, new double[] {1}));
    assertThrows(IllegalArgumentException.class,
        () -> g.addSparseRow(new int[] {1, 1}, new double[] {1, 1}));
    assertThrows(IllegalArgumentException.class,
        () -> g.addSparseRow(new int[] {1}, new double[] {1, 2}));
  }
}
