package io.dplrf.sketch.factorization;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BltOptimizerTest {
  private static double ratio(int epochs, int buffers) {
    BltParameters p = BltOptimizer.optimize(epochs, buffers);
    assertEquals(buffers, p.buffers());
    return ToeplitzFactorization.blt(p).maxLoss(epochs)
        / ToeplitzFactorization.sqrt().maxLoss(epochs);
  }

  @Test
  void atT1024_threeBuffersAreWithinOnePercentOfTheSqrtFactorization() {
    // The brief's target is ≤ 1.1×; the figures (docs §5) are 1.395, 1.035, 1.0031, 1.0002,
    // 1.00002 for d = 1..5. The bounds leave 0.1% for a different local minimum.
    assertTrue(ratio(1024, 1) <= 1.40);
    assertTrue(ratio(1024, 2) <= 1.04);
    assertTrue(ratio(1024, 3) <= 1.005);
    assertTrue(ratio(1024, 4) <= 1.001);
    assertTrue(ratio(1024, 5) <= 1.001);
  }

  @Test
  void fiveBuffers_stayWithinOnePercentOfTheSqrtFactorization_upToTwoToTheTwenty() {
    for (int epochs : new int[] {16, 64, 1 << 16, 1 << 20}) {
      double r = ratio(epochs, 5);
      // Not below the √-factorization beyond rounding either: observed for every T tried
      // (1..400 and 300 values up to 2^20), not proved; a failure would mean a better optimum.
      assertTrue(r <= 1.01 && r >= 1 - 1e-9, "T=" + epochs + ": " + r);
    }
  }

  @Test
  void moreBuffers_neverLoseMuch() {
    for (int epochs : new int[] {16, 1024, 1 << 20, 1 << 30}) {
      double previous = Double.POSITIVE_INFINITY;
      for (int d = 1; d <= 5; d++) {
        double loss = ToeplitzFactorization.blt(BltOptimizer.optimize(epochs, d)).maxLoss(epochs);
        // Each d's start is its own, so only a loose order is guaranteed: within 1e−6.
        assertTrue(loss <= previous * (1 + 1e-6), "T=" + epochs + " d=" + d);
        previous = loss;
      }
    }
  }

  @Test
  void result_isALocalMinimum() {
    int epochs = 4096;
    double[] p = BltOptimizer.minimize(epochs, BltOptimizer.start(epochs, 4));
    double f = BltOptimizer.objective(epochs, p);
    for (int k = 0; k < p.length; k++) {
      for (double h : new double[] {-1e-3, 1e-3}) {
        double[] q = p.clone();
        q[k] += h;
        assertTrue(BltOptimizer.objective(epochs, q) >= f - 1e-10, "coordinate " + k + " " + h);
      }
    }
  }

  @Test
  void sameInput_givesBitIdenticalParameters_onEveryJvm() {
    BltParameters p = BltOptimizer.optimize(1024, 3);
    assertEquals(p, BltOptimizer.optimize(1024, 3));
    // StrictMath and a fixed order of IEEE operations: these bits do not depend on the JVM or
    // on JIT compilation (checked under -Xint). A change here changes documented figures.
    assertArrayEquals(new double[] {0x1.ff795eb7e1387p-1, 0x1.f505c8ae0d47ap-1,
        0x1.7c8fac18acbdcp-1}, p.theta());
    assertArrayEquals(new double[] {0x1.6c0f9734fcc09p-5, 0x1.edc0956e28d7p-4,
        0x1.3edcf50a70f6fp-2}, p.omega());
  }

  @Test
  void chosenBuffers_areTheFewestWithinOnePercentOfFive() {
    assertEquals(1, BltOptimizer.optimize(1).buffers());
    assertEquals(2, BltOptimizer.optimize(64).buffers());
    assertEquals(3, BltOptimizer.optimize(1024).buffers());
    assertEquals(4, BltOptimizer.optimize(1 << 16).buffers());
    assertEquals(5, BltOptimizer.optimize(1 << 20).buffers());
    for (int epochs : new int[] {64, 1024, 1 << 16}) {
      BltParameters chosen = BltOptimizer.optimize(epochs);
      double five = ToeplitzFactorization.blt(BltOptimizer.optimize(epochs, 5)).maxLoss(epochs);
      double fewer = ToeplitzFactorization.blt(
          BltOptimizer.optimize(epochs, chosen.buffers() - 1)).maxLoss(epochs);
      assertTrue(ToeplitzFactorization.blt(chosen).maxLoss(epochs) <= 1.01 * five);
      assertTrue(fewer > 1.01 * five, "T=" + epochs);
    }
  }

  @Test
  void everyEpochCount_givesValidParameters() {
    // Small T leave most of the 2d decays free (T = 1: every BLT has loss 1); the result must
    // still be a valid parameter set, reached without error, and within 1.2× (d = 1 at T = 40
    // is 1.10×) without beating the √-factorization (as above: observed, not proved).
    for (int epochs = 1; epochs <= 40; epochs++) {
      for (int d = 1; d <= 5; d++) {
        BltParameters p = BltOptimizer.optimize(epochs, d);
        double loss = ToeplitzFactorization.blt(p).maxLoss(epochs);
        double sqrt = ToeplitzFactorization.sqrt().maxLoss(epochs);
        assertTrue(loss >= sqrt * (1 - 1e-9) && loss <= sqrt * 1.2, "T=" + epochs + " d=" + d);
      }
    }
  }

  @Test
  void invalidArguments_areRejected() {
    assertThrows(IllegalArgumentException.class, () -> BltOptimizer.optimize(0, 3));
    assertThrows(IllegalArgumentException.class, () -> BltOptimizer.optimize(64, 0));
    assertThrows(IllegalArgumentException.class, () -> BltOptimizer.optimize(64, 9));
  }
}
