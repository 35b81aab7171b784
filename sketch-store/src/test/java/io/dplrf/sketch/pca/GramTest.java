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
        for (double[] r : rows) {
          s += r[i] * r[j];
        }
        assertEquals(s, a.get(i, j), 1e-12);
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
}
