package io.dplrf.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.lra.RobustPlan;
import io.dplrf.sketch.lra.RobustSketch;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ROBUST-LRA (Remark 1 factorization) and ROBUST-PCA (orthonormal basis) post-processing, on
 * sketches made by the real sketch-store mechanism (noiseless where the claim is about the
 * algorithm, noisy where it is about the release path).
 */
class RobustReleaseTest {
  private static final SecretKey KEY = SecretKey.forTesting(55);
  private static final PrivacyParams PRIVACY = new PrivacyParams(1, 1e-6);
  private static final int M = 60;
  private static final int N = 80;
  private static final int K = 2;

  private static RobustSketches sketch(Dense a, double p, boolean pca, boolean noise, long seed) {
    SketchSizes sz = new SketchSizes(a.rows(), a.cols(), K, 12, 24);
    RobustMatrices mt = RobustMatrices.generate(KEY, "rr-" + seed, sz, p, pca);
    RobustPlan plan = RobustPlan.calibrate(PRIVACY, 1, mt);
    RobustSketch s = noise ? RobustSketch.create(plan, mt, KEY, "rr-" + seed + "/node")
        : RobustSketch.createWithoutNoise(plan, mt, KEY, "rr-" + seed + "/node");
    for (int i = 0; i < a.rows(); i++) {
      for (int j = 0; j < a.cols(); j++) {
        s.update(i, j, a.get(i, j));
      }
    }
    return s.release();
  }

  /** Rank-K plus, with probability {@code rate}, an outlier ±{@code size} per entry. */
  static Dense lowRankPlusOutliers(Random rnd, double rate, double size) {
    Dense a = TestMatrices.rankK(rnd, M, N, K);
    for (int i = 0; i < M; i++) {
      for (int j = 0; j < N; j++) {
        if (rnd.nextDouble() < rate) {
          a.add(i, j, rnd.nextBoolean() ? size : -size);
        }
      }
    }
    return a;
  }

  static double entrywiseNorm(Dense a, double p) {
    double s = 0;
    for (double x : a.data()) {
      s += Math.pow(Math.abs(x), p);
    }
    return Math.pow(s, 1 / p);
  }

  @ParameterizedTest
  @ValueSource(doubles = {1, 1.5})
  void lra_exactRankK_isRecovered_withOrthonormalFactors(double p) {
    Random rnd = new Random(7);
    Dense a = TestMatrices.rankK(rnd, M, N, K);
    ReportedFactorization r = RobustRelease.factorize(sketch(a, p, false, false, 1), K);
    double rel = Errors.entrywiseError(a, r.factorization(), p) / entrywiseNorm(a, p);
    assertTrue(rel < 1e-8, "p = " + p + ": relative l_p error " + rel);
    TestMatrices.assertInvariants(r.factorization(), K, "p = " + p);
  }

  @ParameterizedTest
  @ValueSource(doubles = {1, 1.5})
  void pca_exactRankK_projectionKeepsA_basisOrthonormal(double p) {
    Random rnd = new Random(8);
    Dense a = TestMatrices.rankK(rnd, M, N, K);
    Pca.Subspace b = RobustRelease.basis(sketch(a, p, true, false, 2), K);
    assertEquals(N, b.v().rows());
    assertEquals(K, b.v().cols());
    TestMatrices.assertOrthonormalColumns(b.v(), 1e-10, "p = " + p);
    double rel = Errors.projectionError(a, b.v(), p) / entrywiseNorm(a, p);
    assertTrue(rel < 1e-8, "p = " + p + ": relative ||A - A V V^T||_p " + rel);
  }

  /**
   * Theorem 10 / 15 of paper 000 (noiseless part, p = 1): ‖A − M‖₁ ≤ α·OPT_k with
   * α = O(k² log²k · log n · log m); OPT_k ≤ ‖outliers‖₁ since the clean part has rank k. We
   * check the output's exact ℓ1 error against α·‖outliers‖₁ with the O(·) constant 1
   * (k = 2: α = 4·(ln 2)²·ln 80·ln 60 ≈ 34), on 1% outliers of 100× the typical entry.
   */
  @ParameterizedTest
  @ValueSource(longs = {3, 4, 5})
  void lraAndPca_withSparseOutliers_withinTheoremFactorOfOpt(long seed) {
    Random rnd = new Random(seed);
    Dense clean = TestMatrices.rankK(rnd, M, N, K);
    double typical = entrywiseNorm(clean, 1) / (M * N);
    Dense a = clean.copy();
    double outliers = 0;
    for (int i = 0; i < M; i++) {
      for (int j = 0; j < N; j++) {
        if (rnd.nextDouble() < 0.01) {
          double o = (rnd.nextBoolean() ? 100 : -100) * typical;
          a.add(i, j, o);
          outliers += Math.abs(o);
        }
      }
    }
    double alpha = K * K * Math.pow(Math.log(K), 2) * Math.log(N) * Math.log(M);
    double lra = Errors.entrywiseError(a, RobustRelease.factorize(
        sketch(a, 1, false, false, 10 + seed), K).factorization(), 1);
    Dense basis = RobustRelease.basis(sketch(a, 1, true, false, 20 + seed), K).v();
    double pca = Errors.projectionError(a, basis, 1);
    System.out.printf("robust seed=%d: OPT<=%.1f lra=%.1f (%.2fx) pca=%.1f (%.2fx) alpha=%.1f%n",
        seed, outliers, lra, lra / outliers, pca, pca / outliers, alpha);
    assertTrue(lra <= alpha * outliers, "seed " + seed + ": lra " + lra);
    assertTrue(pca <= alpha * outliers, "seed " + seed + ": pca " + pca);
  }

  /** The noisy release path: factors keep their invariants, the basis stays orthonormal. */
  @ParameterizedTest
  @ValueSource(doubles = {1, 1.5})
  void noisyRelease_invariantsHold(double p) {
    Random rnd = new Random(9);
    Dense a = lowRankPlusOutliers(rnd, 0.01, 50);
    ReportedFactorization r = RobustRelease.factorize(sketch(a, p, false, true, 30), K);
    TestMatrices.assertInvariants(r.factorization(), K, "noisy p = " + p);
    assertEquals("robust-lra", r.report().mechanism());
    assertEquals(3, r.report().noise().size());
    Pca.Subspace b = RobustRelease.basis(sketch(a, p, true, true, 31), K);
    TestMatrices.assertOrthonormalColumns(b.v(), 1e-10, "noisy pca p = " + p);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 13})
  void rankOutOfRange_orWrongBundle_isRejected(int k) {
    Dense a = TestMatrices.rankK(new Random(1), M, N, K);
    RobustSketches lra = sketch(a, 1, false, false, 40);
    assertThrows(IllegalArgumentException.class, () -> RobustRelease.factorize(lra, k));
    assertThrows(IllegalArgumentException.class, () -> RobustRelease.basis(lra, K));
    RobustSketches pca = sketch(a, 1, true, false, 41);
    assertThrows(IllegalArgumentException.class, () -> RobustRelease.factorize(pca, K));
  }
}
