package io.dplrf.sketch.pca;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SubspaceSensitivityTest {
  /** φ(t) = √(2(1 − √(1 − t²))) for t ≤ 1, the formula of docs/privacy/smooth-sensitivity.md §3. */
  private static double phiSmall(double t) {
    return Math.sqrt(2 * (1 - Math.sqrt(1 - t * t)));
  }

  @Test
  void localBound_pinnedValues_fromTheDerivationsFormulas() {
    int d = 64;
    int k = 10;
    assertEquals(Math.sqrt(20), SubspaceSensitivity.localBound(0, 1, d, k), 1e-15, "gap 0: global");
    // g = 1 = C²: t = min(√10, C²/g) = 1, so φ = √2 (one full right angle).
    assertEquals(Math.sqrt(2), SubspaceSensitivity.localBound(1, 1, d, k), 1e-15);
    // g = 1.5: t = min(1/1.5, 1/(2·0.5)) = 2/3.
    assertEquals(phiSmall(2.0 / 3), SubspaceSensitivity.localBound(1.5, 1, d, k), 1e-12);
    // g = 3: t = min(1/3, 1/(2·2)) = 1/4.
    assertEquals(phiSmall(0.25), SubspaceSensitivity.localBound(3, 1, d, k), 1e-12);
    // g = 352.4 (the gapped synthetic benchmark set), C = 1: t = 1/(2·351.4).
    // (φ computed as u/(1 + √(1 − u)): the naive 1 − √(1 − u) above loses ~10 digits here)
    assertEquals(phiSmall(1 / 702.8), SubspaceSensitivity.localBound(352.4, 1, d, k), 1e-12);
    assertEquals(1.42288027e-3, SubspaceSensitivity.localBound(352.4, 1, d, k), 1e-11);
    // C scales as C²: gap 4·3 with C = 2 is gap 3 with C = 1.
    assertEquals(SubspaceSensitivity.localBound(3, 1, d, k),
        SubspaceSensitivity.localBound(12, 2, d, k), 1e-15);
    // t² = 2.5 (two and a half right angles' worth): d_P² = 2(2 + 1 − √0.5).
    assertEquals(Math.sqrt(2 * (3 - Math.sqrt(0.5))), SubspaceSensitivity.procrustesOfSin(Math.sqrt(2.5), 10), 1e-14);
    assertEquals(0, SubspaceSensitivity.localBound(5, 1, 4, 4), "k = d: the subspace is all of R^d");
    assertEquals(Math.sqrt(2), SubspaceSensitivity.globalBound(5, 4), 1e-15, "m = min(k, d-k) = 1");
  }

  @Test
  void localBound_isNonIncreasingInTheGap_andAtMostGlobal() {
    for (int k : new int[] {1, 3, 10}) {
      double prev = Double.POSITIVE_INFINITY;
      for (int i = 0; i <= 4000; i++) {
        double g = i * 0.01;
        double l = SubspaceSensitivity.localBound(g, 1, 64, k);
        assertTrue(l <= prev + 1e-15 && l <= SubspaceSensitivity.globalBound(64, k) + 1e-15,
            "k=" + k + " g=" + g);
        prev = l;
      }
    }
  }

  /**
   * The two properties of a β-smooth upper bound (NRS 2007, Def. 2.1) as used: U ≥ L (= the local
   * bound at the input), and U(g) ≤ e^β U(g′) whenever |g − g′| ≤ C², which is all a one-row
   * neighbour can do to the gap (Weyl). Random gaps over many scales, seeded.
   */
  @Test
  void smoothBound_dominatesTheLocalBound_andIsBetaSmoothAcrossOneRowGapChanges() {
    SplittableRandom rnd = new SplittableRandom(5);
    for (int trial = 0; trial < 3000; trial++) {
      int d = 2 + rnd.nextInt(80);
      int k = 1 + rnd.nextInt(d);
      double clip = 0.5 + rnd.nextDouble() * 2;
      double beta = Math.exp(-2 - rnd.nextDouble() * 7);
      double g = Math.exp(rnd.nextDouble() * 12) * clip * clip * (rnd.nextBoolean() ? 1 : 0.01);
      double g2 = Math.max(0, g + (2 * rnd.nextDouble() - 1) * clip * clip);
      double u = SubspaceSensitivity.smoothBound(g, clip, d, k, beta);
      double u2 = SubspaceSensitivity.smoothBound(g2, clip, d, k, beta);
      String where = "seed 5 trial " + trial + " d=" + d + " k=" + k + " g=" + g + " g2=" + g2;
      assertTrue(u >= SubspaceSensitivity.localBound(g, clip, d, k), where);
      assertTrue(u <= Math.exp(beta) * u2 * (1 + 1e-12), where + ": " + u + " vs " + u2);
      assertTrue(u <= SubspaceSensitivity.globalBound(d, k) + 1e-15, where);
    }
  }

  /**
   * Pinned: d = 64, k = 10, C = 1, β = 2.79481e-3 (the Gaussian plan at ε = 1, δ = 1e-6). With
   * the synthetic set's gap 352.4, e^{−βj} decays too slowly for the gap: the maximum is at the
   * first j where the gap is used up (j = 353), U = e^{−353β}·√20 ≈ 1.667 — against
   * L = 1.42e-3. At gap 10,000 the local
   * term wins: U = L(10^4) (the scan stops after ln(√20/L)/β steps).
   */
  @Test
  void smoothBound_pinned() {
    double beta = 2.79481e-3;
    double u = SubspaceSensitivity.smoothBound(352.4, 1, 64, 10, beta);
    assertEquals(Math.exp(-beta * 353) * Math.sqrt(20), u, 1e-12);
    assertEquals(1.66745, u, 1e-5);
    double big = SubspaceSensitivity.smoothBound(1e4, 1, 64, 10, beta);
    assertEquals(SubspaceSensitivity.localBound(1e4, 1, 64, 10), big, 1e-18);
    assertEquals(Math.sqrt(20), SubspaceSensitivity.smoothBound(0, 1, 64, 10, beta), 1e-15);
    assertEquals(0, SubspaceSensitivity.smoothBound(7, 1, 6, 6, beta));
  }

  @Test
  void atDistance_isTheLocalBoundAtTheShrunkGap() {
    assertEquals(SubspaceSensitivity.localBound(7, 1, 10, 2), SubspaceSensitivity.atDistance(3, 10, 1, 10, 2));
    assertEquals(SubspaceSensitivity.globalBound(10, 2), SubspaceSensitivity.atDistance(11, 10, 1, 10, 2));
    assertThrows(IllegalArgumentException.class, () -> SubspaceSensitivity.localBound(-1, 1, 3, 1));
    assertThrows(IllegalArgumentException.class, () -> SubspaceSensitivity.localBound(1, 1, 3, 4));
  }
}
