package io.dplrf.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.lra.Priv2Sketches;
import io.dplrf.sketch.matrix.Dense;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Priv2ReleaseTest {
  private static final int K = 5;

  /** Same target and input as the Priv1 test: t = 16k, v = 32k, ratio ≤ 1.2. */
  @ParameterizedTest
  @ValueSource(longs = {11, 12, 13})
  void factorize_noiseFreeSketches_withinFactor1point2OfBestRankK(long seed) {
    Random rnd = new Random(seed);
    Dense a = Priv1ReleaseTest.signalPlusNoise(rnd);
    Release r = Priv2Release.factorize(TestMatrices.priv2(rnd, a, 16 * K, 32 * K), K);
    double err = Errors.frobeniusError(a, r.factorization());
    double best = Errors.bestRankKError(a, K);
    double ratio = err / best;
    System.out.printf("Priv2 seed=%d: ||A-Ã||_F=%.4f best=%.4f ratio=%.4f%n", seed, err, best, ratio);
    assertTrue(ratio <= 1.2, "seed " + seed + ": ratio " + ratio + " > 1.2");
    TestMatrices.assertInvariants(r.factorization(), K, "seed " + seed);
  }

  @ParameterizedTest
  @ValueSource(longs = {21, 22})
  void factorize_exactRankKMatrix_isRecoveredToRoundingError(long seed) {
    Random rnd = new Random(seed);
    Dense a = TestMatrices.rankK(rnd, 120, 150, 4);
    Release r = Priv2Release.factorize(TestMatrices.priv2(rnd, a, 16, 32), 4);
    double rel = Errors.frobeniusError(a, r.factorization()) / TestMatrices.frobenius(a);
    assertTrue(rel < 1e-8, "seed " + seed + ": relative error " + rel);
    TestMatrices.assertInvariants(r.factorization(), 4, "seed " + seed);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 7, 16})
  void factorize_anyValidK_outputSatisfiesSvdInvariants(int k) {
    long seed = 61 + k;
    Random rnd = new Random(seed);
    Dense a = TestMatrices.gaussian(rnd, 70, 90, 1);
    Release r = Priv2Release.factorize(TestMatrices.priv2(rnd, a, 16, 40), k);
    TestMatrices.assertInvariants(r.factorization(), k, "seed " + seed + ", k=" + k);
  }

  @Test
  void factorize_kAboveT_isRejectedWithClearMessage() {
    Random rnd = new Random(71);
    Priv2Sketches sk = TestMatrices.priv2(rnd, TestMatrices.rankK(rnd, 40, 50, 2), 8, 16);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Priv2Release.factorize(sk, 9));
    assertEquals("k must be in [1, min(t, m, n)] = [1, 8]. Provided value: 9", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Priv2Release.factorize(sk, -1));
  }

  @Test
  void report_noiseFreeSketches_haveZeroFloorAndEveryValueAbove() {
    Random rnd = new Random(81);
    Dense a = TestMatrices.rankK(rnd, 50, 60, 3);
    UtilityReport rep = Priv2Release.factorize(TestMatrices.priv2(rnd, a, 12, 24), 3).report();
    assertEquals(0.0, rep.noiseFloor());
    assertEquals(3, rep.reliableRank());
    assertTrue(rep.notes().isEmpty(), rep.notes().toString());
  }
}
