package io.dplrf.release.completion;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LocalUpdateTest {
  @Test
  void projection_scalesRowsLongerThanLToNormL_andLeavesShorterRowsAlone() {
    double[] y = {0, 3, 4, 0}; // Ω-part at offset 1, length 2: norm 5
    assertEquals(0.5, LocalUpdate.projection(y, 1, 2, 2.5), 1e-15);
    assertEquals(1.0, LocalUpdate.projection(y, 1, 2, 5.0));
    assertEquals(1.0, LocalUpdate.projection(y, 1, 2, 7.0));
  }

  /**
   * One step by hand: Y⁰ = 0 on Ω = {0, 2}, Y* = (1, ·, 2), v̂ = (0.6, 0, 0.8), λ̂′ = 2, T = 4,
   * k = 8: A = (−1, −2), û = (−0.6 − 1.6)/2 = −1.1, Y¹ = 0 − (8/4)(−1.1)v̂ = 2.2·v̂ =
   * (1.32, 0, 1.76); ‖P_Ω‖ = 2.2, so L = 1.1 halves it: (0.66, ·, 0.88), coefficient 1.1.
   */
  @Test
  void step_matchesAlgorithm1ByHand_includingTheProjection() {
    int[] items = {0, 2};
    double[] target = {1, 2};
    double[] v = {0.6, 0, 0.8};
    double[] y = new double[2];
    double[] coef = new double[4];
    LocalUpdate.step(items, target, 0, 2, y, v, 2, 4, 8, 1.1, coef, 1);
    assertArrayEquals(new double[] {0.66, 0.88}, y, 1e-12);
    assertArrayEquals(new double[] {1.1, 0, 0, 0}, coef, 1e-12);
    // Step 2 with the same v̂: A = (−0.34, −1.12), û = (−0.204 − 0.896)/2 = −0.55,
    // Y² = 0.75·Y¹ + 2·0.55·v̂ = (0.495 + 0.66, 0.66 + 0.88) = (1.155, 1.54): norm 1.925 > 1.1.
    LocalUpdate.step(items, target, 0, 2, y, v, 2, 4, 8, 1.1, coef, 2);
    double f = 1.1 / 1.925;
    assertArrayEquals(new double[] {1.155 * f, 1.54 * f}, y, 1e-12);
    assertArrayEquals(new double[] {0.825 * f, 1.1 * f, 0, 0}, coef, 1e-12);
  }
}
