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
    ReportedFactorization r = Priv2Release.factorize(TestMatrices.priv2(rnd, a, 16 * K, 32 * K), K);
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
    ReportedFactorization r = Priv2Release.factorize(TestMatrices.priv2(rnd, a, 16, 32), 4);
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
    ReportedFactorization r = Priv2Release.factorize(TestMatrices.priv2(rnd, a, 16, 40), k);
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

  /** The report names the mechanism as the release's metadata does: sparse S is priv2-sparse. */
  @Test
  void report_namesPriv2OrPriv2Sparse_byTheEmbeddingOfTheSketches() {
    Random rnd = new Random(91);
    Dense a = TestMatrices.rankK(rnd, 50, 60, 3);
    Priv2Sketches dense = TestMatrices.priv2(rnd, a, 12, 24);
    assertEquals("priv2", Priv2Release.factorize(dense, 3).report().mechanism());
    var s = io.dplrf.sketch.randomness.SparseSignMatrix.of(
        io.dplrf.sketch.randomness.SecretKey.forTesting(91), "S", 24, 50, 4);
    Priv2Sketches sparse = new Priv2Sketches(50, 60, dense.y(),
        TestMatrices.multiply(s.toDense(), a), s, dense.noise());
    UtilityReport report = Priv2Release.factorize(sparse, 3).report();
    assertEquals("priv2-sparse", report.mechanism());
    assertEquals("priv2-sparse", report.toJsonFields().get("mechanism"));
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

  /**
   * Noisy sketches (rank-5 signal 10–100× the noise): both tall SVDs take the Gram route, and the
   * release equals the Householder route's. Only span(U) matters (U(SU)⁺Z is unchanged by
   * U → UR), and GramSvdTest bounds the angle between the two spans by
   * sin θ ≤ 2 γ_m ‖Y‖_F² / (σ_p² − σ_{p+1}²), computed here from Y's spectrum. The release moves
   * by at most that times the amplification of (SU)⁺ (≈ 1 + cond(SU) ≤ 4 for v = 8p Gaussian S)
   * and of the rank-k truncation of X (σ₁/(σ_k − σ_{k+1}) ≤ 10 at this signal-to-noise ratio),
   * plus the same for X's own SVD: we allow 10³ · sin θ, relative to ‖Ã‖_F.
   */
  @ParameterizedTest
  @ValueSource(longs = {91, 92})
  void profile_noisySketches_gramRouteEqualsHouseholderRoute(long seed) {
    Random rnd = new Random(seed);
    int m = 600;
    int t = 8 * K;
    int p = Priv2Release.basisWidth(t, K);
    Dense a = TestMatrices.rankK(rnd, m, 500, K); // σ_l ≈ √(mn) ≈ 550
    Priv2Sketches exact = TestMatrices.priv2(rnd, a, t, 8 * p);
    Dense y = exact.y();
    y.addInPlace(TestMatrices.gaussian(rnd, y.rows(), y.cols(), 5));
    Dense z = exact.z();
    z.addInPlace(TestMatrices.gaussian(rnd, z.rows(), z.cols(), 5));
    Priv2Sketches sk = new Priv2Sketches(exact.m(), exact.n(), y, z, exact.s(), exact.noise());

    Priv2Release.Profile g = Priv2Release.profile(sk, K, Priv2Release.Route.GRAM);
    Priv2Release.Profile h = Priv2Release.profile(sk, K, Priv2Release.Route.HOUSEHOLDER);
    assertEquals("gram", g.yRoute(), "seed " + seed);
    assertEquals("gram", g.xRoute(), "seed " + seed);
    assertEquals("householder", h.yRoute(), "seed " + seed);
    TestMatrices.assertInvariants(g.release().factorization(), K, "seed " + seed);

    double[] sy = Linalg.svd(Linalg.copyOf(y)).s();
    double gamma = m * Math.ulp(1.0) / (1 - m * Math.ulp(1.0));
    double sin = 2 * gamma * Math.pow(TestMatrices.frobenius(y), 2)
        / (sy[p - 1] * sy[p - 1] - sy[p] * sy[p]);
    Dense ag = g.release().factorization().toDense();
    Dense ah = h.release().factorization().toDense();
    ag.addInPlace(scaled(ah, -1));
    double rel = TestMatrices.frobenius(ag) / TestMatrices.frobenius(ah);
    System.out.printf("Priv2 routes seed=%d: relative difference %.3e (bound %.3e)%n",
        seed, rel, 1e3 * sin);
    assertTrue(rel <= 1e3 * sin, "seed " + seed + ": routes differ by " + rel);
  }

  /**
   * Exact rank-2 input, k = 4: Y (rank 2) cannot give p = 8 directions and X (rank 2) cannot give
   * 4, so both tall SVDs fall back to Householder, and the output still satisfies the invariants
   * and reproduces A.
   */
  @Test
  void profile_rankBelowK_fallsBackToHouseholderForBothSvds() {
    long seed = 95;
    Random rnd = new Random(seed);
    Dense a = TestMatrices.rankK(rnd, 120, 150, 2);
    Priv2Release.Profile g =
        Priv2Release.profile(TestMatrices.priv2(rnd, a, 16, 32), 4, Priv2Release.Route.GRAM);
    assertEquals("householder (fallback)", g.yRoute(), "seed " + seed);
    assertEquals("householder (fallback)", g.xRoute(), "seed " + seed);
    TestMatrices.assertInvariants(g.release().factorization(), 4, "seed " + seed);
    double rel = Errors.frobeniusError(a, g.release().factorization()) / TestMatrices.frobenius(a);
    assertTrue(rel < 1e-8, "seed " + seed + ": relative error " + rel);
  }

  /** n = 6 < p = 10: Xᵀ (n×p) is wide, so its SVD is left to ojAlgo; noisy Y's takes the Gram route. */
  @Test
  void profile_fewerColumnsThanBasisWidth_xSvdFallsBack() {
    long seed = 97;
    Random rnd = new Random(seed);
    Priv2Sketches exact = TestMatrices.priv2(rnd, TestMatrices.gaussian(rnd, 80, 6, 1), 16, 40);
    Dense y = exact.y(); // rank 6 < p: noise makes it full rank, as in a real release
    y.addInPlace(TestMatrices.gaussian(rnd, y.rows(), y.cols(), 0.1));
    Priv2Sketches sk = new Priv2Sketches(80, 6, y, exact.z(), exact.s(), exact.noise());
    Priv2Release.Profile g = Priv2Release.profile(sk, 5, Priv2Release.Route.GRAM);
    assertEquals("gram", g.yRoute(), "seed " + seed);
    assertEquals("householder (fallback)", g.xRoute(), "seed " + seed);
    TestMatrices.assertInvariants(g.release().factorization(), 5, "seed " + seed);
  }

  private static Dense scaled(Dense d, double f) {
    Dense out = new Dense(d.rows(), d.cols());
    for (int x = 0; x < d.data().length; x++) {
      out.data()[x] = f * d.data()[x];
    }
    return out;
  }
}
