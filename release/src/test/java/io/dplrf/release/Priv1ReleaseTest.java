package io.dplrf.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.lra.Priv1Sketches;
import io.dplrf.sketch.matrix.Dense;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Priv1ReleaseTest {
  private static final int M = 300;
  private static final int N = 400;
  private static final int K = 5;

  /** Rank-k signal (σ_l ≈ √(mn) ≈ 350) plus N(0, 0.1²) noise (‖N‖₂ ≈ 0.1(√m+√n) ≈ 3.7). */
  static Dense signalPlusNoise(Random rnd) {
    Dense a = TestMatrices.rankK(rnd, M, N, K);
    a.addInPlace(TestMatrices.gaussian(rnd, M, N, 0.1));
    return a;
  }

  /**
   * The target: without noise, Algorithm 1 with t = 16k, v = 32k reaches
   * ‖A − Ã‖_F ≤ 1.2·‖A − [A]_k‖_F (paper 002 Thm 1 gives (1+ε) with t, v = O(k/ε)-ish sizes;
   * 1.2 is the acceptance figure). σmin = 1e-3 adds ≤ σmin√m ≈ 0.017 against a tail of
   * ≈ 34.
   */
  @ParameterizedTest
  @ValueSource(longs = {11, 12, 13})
  void factorize_noiseFreeSketches_withinFactor1point2OfBestRankK(long seed) {
    Random rnd = new Random(seed);
    Dense a = signalPlusNoise(rnd);
    Priv1Sketches sk = TestMatrices.priv1(rnd, a, 1e-3, 16 * K, 32 * K, 0);
    ReportedFactorization r = Priv1Release.factorize(sk, K);
    double err = Errors.frobeniusError(a, r.factorization());
    double best = Errors.bestRankKError(a, K);
    double ratio = err / best;
    System.out.printf("Priv1 seed=%d: ||A-Ã||_F=%.4f best=%.4f ratio=%.4f%n", seed, err, best, ratio);
    assertTrue(ratio <= 1.2, "seed " + seed + ": ratio " + ratio + " > 1.2");
    TestMatrices.assertInvariants(r.factorization(), K, "seed " + seed);
  }

  /**
   * Exact rank-k A and σmin = 0 (so Â = (A 0) is exactly rank k): every sketch is exact and the
   * sketched problem is solved exactly, so only rounding remains.
   */
  @ParameterizedTest
  @ValueSource(longs = {21, 22})
  void factorize_exactRankKMatrix_isRecoveredToRoundingError(long seed) {
    Random rnd = new Random(seed);
    Dense a = TestMatrices.rankK(rnd, 120, 150, 4);
    Priv1Sketches sk = TestMatrices.priv1(rnd, a, 0, 16, 32, 0);
    ReportedFactorization r = Priv1Release.factorize(sk, 4);
    double rel = Errors.frobeniusError(a, r.factorization()) / TestMatrices.frobenius(a);
    assertTrue(rel < 1e-8, "seed " + seed + ": relative error " + rel);
    TestMatrices.assertInvariants(r.factorization(), 4, "seed " + seed);
  }

  /** Invariants hold also when Z carries noise and k is far from the signal's rank. */
  @ParameterizedTest
  @ValueSource(ints = {1, 3, 10, 16})
  void factorize_noisyZ_outputSatisfiesSvdInvariants(int k) {
    long seed = 31 + k;
    Random rnd = new Random(seed);
    Dense a = TestMatrices.rankK(rnd, 60, 90, 3);
    Priv1Sketches sk = TestMatrices.priv1(rnd, a, 1e-2, 16, 40, 5.0);
    ReportedFactorization r = Priv1Release.factorize(sk, k);
    TestMatrices.assertInvariants(r.factorization(), k, "seed " + seed + ", k=" + k);
    assertEquals(60, r.factorization().rows());
    assertEquals(90, r.factorization().cols());
  }

  @Test
  void factorize_kAboveT_isRejectedWithClearMessage() {
    Random rnd = new Random(41);
    Priv1Sketches sk = TestMatrices.priv1(rnd, TestMatrices.rankK(rnd, 40, 50, 2), 1e-3, 8, 16, 0);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Priv1Release.factorize(sk, 9));
    assertEquals("k must be in [1, min(t, m, n)] = [1, 8]. Provided value: 9", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Priv1Release.factorize(sk, 0));
  }

  @Test
  void report_noisyZ_hasZFloorFromProjectedNoiseAndStrongSignalStandsAbove() {
    Random rnd = new Random(51);
    Dense a = TestMatrices.rankK(rnd, 100, 140, 3); // σ_l ≈ √(100·140) ≈ 118
    ReportedFactorization r = Priv1Release.factorize(TestMatrices.priv1(rnd, a, 1e-3, 24, 48, 0.5), 3);
    UtilityReport rep = r.report();
    assertEquals("priv1", rep.mechanism());
    assertEquals(2, rep.floorTerms().size(), rep.toString());
    // Z floor ≈ 0.5·2√24 / (smin(SU)·smin(VTᵀ)) with smin ≈ 1 − √(24/48) ≈ 0.3: a few tens at most.
    assertTrue(rep.noiseFloor() > 0.5 * 2 * Math.sqrt(24) && rep.noiseFloor() < 100,
        rep.toJsonFields().toString());
    assertEquals(3, rep.reliableRank(), rep.toJsonFields().toString());
  }
}
