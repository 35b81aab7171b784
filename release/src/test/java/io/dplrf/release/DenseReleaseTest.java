package io.dplrf.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.lra.DenseNoisyMatrix;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.matrix.Dense;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DenseReleaseTest {
  private static DenseNoisyMatrix noisy(Dense a, double sigma) {
    return new DenseNoisyMatrix(a, List.of(new NoiseScale("A+N", sigma, 1, a.data().length)));
  }

  /** Both orientations (m < n goes through Aᵀ), several k. */
  @ParameterizedTest
  @ValueSource(ints = {1, 4, 30})
  void factorize_outputSatisfiesSvdInvariants_bothOrientations(int k) {
    Random rnd = new Random(100 + k);
    TestMatrices.assertInvariants(
        DenseRelease.factorize(noisy(TestMatrices.gaussian(rnd, 40, 70, 1), 1), k).factorization(),
        k, "wide, seed " + (100 + k));
    TestMatrices.assertInvariants(
        DenseRelease.factorize(noisy(TestMatrices.gaussian(rnd, 70, 40, 1), 1), k).factorization(),
        k, "tall, seed " + (100 + k));
  }

  @Test
  void factorize_exactRankKMatrix_isRecoveredToRoundingError() {
    Random rnd = new Random(111);
    Dense a = TestMatrices.rankK(rnd, 80, 60, 3);
    ReportedFactorization r = DenseRelease.factorize(noisy(a, 0), 3);
    double rel = Errors.frobeniusError(a, r.factorization()) / TestMatrices.frobenius(a);
    assertTrue(rel < 1e-10, "seed 111: relative error " + rel);
  }

  @Test
  void factorize_kAboveMinDimension_isRejectedWithClearMessage() {
    Dense a = new Dense(5, 7);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DenseRelease.factorize(noisy(a, 1), 6));
    assertEquals("k must be in [1, min(m, n)] = [1, 5]. Provided value: 6", e.getMessage());
  }

  /**
   * Pure N(0,1) noise on 300×400: σ_max concentrates at √300 + √400 ≈ 37.3 minus ≈ 0.3 (the
   * Tracy–Widom mean, scale ≈ 0.24); exceeding the floor needs a TW₁ deviation > 5, probability
   * < 1e-4 — the false-alarm rate of this test. A planted rank-5 signal with σ_l ≈ √(mn) ≈ 346
   * stands far above.
   */
  @Test
  void report_pureNoiseIsBelowFloor_plantedSignalIsAbove() {
    Random rnd = new Random(121);
    Dense noise = TestMatrices.gaussian(rnd, 300, 400, 1);
    UtilityReport pure = DenseRelease.factorize(noisy(noise, 1), 5).report();
    assertEquals(Math.sqrt(300) + Math.sqrt(400), pure.noiseFloor(), 1e-12);
    assertEquals(0, pure.reliableRank(), "seed 121: " + pure.toJsonFields());

    Dense signal = TestMatrices.rankK(rnd, 300, 400, 5);
    Dense b = signal.copy();
    b.addInPlace(noise);
    UtilityReport planted = DenseRelease.factorize(noisy(b, 1), 8).report();
    assertEquals(5, planted.reliableRank(), "seed 121: " + planted.toJsonFields());
  }

  /**
   * The heuristic predicted additive error √k·σ(√m+√n) against the measured one for an exact
   * rank-k A: measured ≈ σ√(k(m+n)) (≈ 59 here) and predicted ≈ 83; the check is that the
   * prediction is an upper estimate within a factor 3.
   */
  @Test
  void report_predictedAdditiveError_isWithinFactor3AboveMeasured() {
    Random rnd = new Random(131);
    Dense a = TestMatrices.rankK(rnd, 300, 400, 5);
    Dense b = a.copy();
    b.addInPlace(TestMatrices.gaussian(rnd, 300, 400, 1));
    ReportedFactorization r = DenseRelease.factorize(noisy(b, 1), 5);
    double measured = Errors.frobeniusError(a, r.factorization()); // ‖A − [A]_k‖ = 0
    double predicted = r.report().predictedAdditiveError();
    System.out.printf("Dense: measured additive error %.2f, predicted %.2f%n", measured, predicted);
    assertTrue(measured <= predicted && predicted <= 3 * measured,
        "seed 131: measured " + measured + ", predicted " + predicted);
  }
}
