package io.dplrf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.lra.LaplaceSketchNoise;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.lra.RobustSketch;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.noise.GridLaplace;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.pca.RowClipping;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * LOCAL-ROBUST-PCA's math: the per-report ℓ1 sensitivity is never exceeded and is attained, each
 * part carries Laplace noise of exactly the calibrated scale, independent between users, and the
 * noiseless reports sum to the central ROBUST-PCA sketches. Statistical checks reject when a tail
 * probability is below {@value LocalRandomizerTest#TAIL} (false alarm &lt; 2·10⁻⁷ per check).
 */
class LocalRobustProtocolTest {
  static final long SEED = 43;

  static LocalRobustProtocol protocol(int m, int d, int k, double clip, double eps) {
    return LocalRobustProtocol.of(LocalRandomizerTest.PUBLIC, m, d, k, null, null, 1, clip,
        RobustMatrices.DEFAULT_STABLE_CLIP, new PrivacyParams(eps, 1e-6));
  }

  /** A row with ‖x‖₁ = norm (random signs and sizes). */
  static double[] row(int d, double norm, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] x = new double[d];
    double s = 0;
    for (int i = 0; i < d; i++) {
      x[i] = r.nextDouble() - 0.5;
      s += Math.abs(x[i]);
    }
    for (int i = 0; i < d; i++) {
      x[i] *= norm / s;
    }
    return x;
  }

  private static double l1(double[] a, double[] b) {
    double s = 0;
    for (int e = 0; e < a.length; e++) {
      s += Math.abs(a[e] - b[e]);
    }
    return s;
  }

  @Test
  void plan_isTheCentralCalibrationWithClipTwoC_pureEpsilonSplitOverTwoParts() {
    LocalRobustProtocol p = protocol(50, 12, 2, 1.5, 1);
    RobustMatrices mats = p.matrices();
    assertEquals(2 * 1.5 * mats.phiFactor(), p.plan().yr().l1Sensitivity(), 0);
    assertEquals(2 * 1.5 * mats.stFactor(), p.plan().z().l1Sensitivity(), 0);
    // Rounding slack charged for every entry of a report (two rows may differ in all d
    // coordinates, so every entry of Yr_i (t×d) and Z_i (v×v) may move), for one rounding each.
    assertEquals((long) p.sizes().t() * 12, p.plan().yr().entries());
    assertEquals((long) p.sizes().v() * p.sizes().v(), p.plan().z().entries());
    for (LaplaceSketchNoise n : new LaplaceSketchNoise[] {p.plan().yr(), p.plan().z()}) {
      assertEquals(1, n.roundedNodes());
      assertEquals(0.5, n.epsilon(), 0);
      assertTrue(n.sensitivityWithSlack() / n.scale() <= 0.5, n.toString());
      assertTrue(n.sensitivityWithSlack() / n.scale() > 0.5 * (1 - 1e-6), "noise not minimal: " + n);
    }
    // Default sizes: t = min(4k, m, d), v = 2t; the entries are clipped to [−1, 1].
    assertEquals(8, p.sizes().t());
    assertEquals(16, p.sizes().v());
    assertTrue(mats.phiFactor() <= 8 * (1 + 1e-9) && mats.stFactor() <= 256 * (1 + 1e-9));
  }

  /**
   * Brute force: 20,000 random pairs of rows with ‖x‖₁, ‖x'‖₁ ≤ C at random slots never move
   * either part by more than its sensitivity; x = C e_j, x' = −C e_j at the slot and feature of
   * largest column norms attains it (up to the 10⁻⁹ clip margin and the 2⁻³⁰ norm margin).
   */
  @Test
  void sensitivity_boundsEveryPairOfRows_andIsAttained() {
    int m = 40;
    int d = 10;
    double clip = 2;
    LocalRobustProtocol p = protocol(m, d, 2, clip, 1);
    double yrBound = p.plan().yr().l1Sensitivity();
    double zBound = p.plan().z().l1Sensitivity();
    SplittableRandom rnd = new SplittableRandom(SEED);
    double worstYr = 0;
    double worstZ = 0;
    for (int n = 0; n < 20_000; n++) {
      int slot = rnd.nextInt(m);
      double[][] a = query(p, slot, row(d, clip * rnd.nextDouble(), rnd.nextLong()));
      double[][] b = query(p, slot, row(d, clip * rnd.nextDouble(), rnd.nextLong()));
      worstYr = Math.max(worstYr, l1(a[0], b[0]));
      worstZ = Math.max(worstZ, l1(a[1], b[1]));
    }
    assertTrue(worstYr <= yrBound, "Yr pair at " + worstYr + " > " + yrBound);
    assertTrue(worstZ <= zBound, "Z pair at " + worstZ + " > " + zBound);

    double[] phi = new double[p.sizes().t() * m];
    p.matrices().phi().columns(0, m, phi);
    double[] s = new double[p.sizes().v() * m];
    p.matrices().s().columns(0, m, s);
    double[] tT = p.transposedT();
    int phiSlot = argmaxColumnL1(phi, p.sizes().t(), m);
    int sSlot = argmaxColumnL1(s, p.sizes().v(), m);
    int feature = argmaxColumnL1(tT, p.sizes().v(), d);
    double[] plus = new double[d];
    double[] minus = new double[d];
    plus[feature] = clip;
    minus[feature] = -clip;
    double yr = l1(query(p, phiSlot, plus)[0], query(p, phiSlot, minus)[0]);
    double z = l1(query(p, sSlot, plus)[1], query(p, sSlot, minus)[1]);
    assertTrue(yr <= yrBound && z <= zBound, yr + " " + z);
    assertEquals(yrBound, yr, 1e-8 * yrBound, "the Yr bound is attained");
    assertEquals(zBound, z, 1e-8 * zBound, "the Z bound is attained");
  }

  /** The noiseless query {Yr_i, Z_i} of the clipped row for {@code slot}. */
  static double[][] query(LocalRobustProtocol p, int slot, double[] x) {
    return p.query(slot, p.clipped(x));
  }

  private static int argmaxColumnL1(double[] colMajor, int rows, int cols) {
    int best = 0;
    double max = -1;
    for (int c = 0; c < cols; c++) {
      double s = 0;
      for (int r = 0; r < rows; r++) {
        s += Math.abs(colMajor[c * rows + r]);
      }
      if (s > max) {
        max = s;
        best = c;
      }
    }
    return best;
  }

  /**
   * Σ|noise|/b over n entries of a Laplace(b) part is Gamma(n, 1), so 2Σ|noise|/b ~ χ²_{2n}
   * (the discrete Laplace on a grid of 2³⁰ steps per b matches the continuous law far below the
   * test's resolution). Returns 2Σ|noise|/b for one part of {@code reports} reports.
   */
  static double laplaceStatistic(LocalRandomizer r, int slot, double[] x, int reports,
      boolean zPart) {
    LocalRobustProtocol p = (LocalRobustProtocol) r.protocol();
    double[] q = query(p, slot, x)[zPart ? 1 : 0];
    LaplaceSketchNoise noise = zPart ? p.plan().z() : p.plan().yr();
    double gamma = noise.grid().gamma();
    double s = 0;
    for (int n = 0; n < reports; n++) {
      double[] v = r.report(slot, x).valuesUnsafe(zPart ? 1 : 0);
      for (int e = 0; e < q.length; e++) {
        s += Math.abs(v[e] - GridLaplace.roundToGrid(q[e], gamma)) / noise.scale();
      }
    }
    return 2 * s;
  }

  @Test
  void eachPart_carriesLaplaceNoiseOfTheCalibratedScale_failsIfHalvedOrMissing() {
    LocalRobustProtocol p = protocol(30, 12, 2, 1, 1);
    int reports = 40;
    double[] x = row(12, 0.7, 1);
    for (boolean zPart : new boolean[] {false, true}) {
      int entries = zPart ? p.sizes().v() * p.sizes().v() : p.sizes().t() * 12;
      int dof = 2 * reports * entries;
      double stat = laplaceStatistic(LocalRandomizerTest.seeded(p, SEED), 3, x, reports, zPart);
      String part = zPart ? "Z" : "Yr";
      assertTrue(LocalRandomizerTest.accepts(stat, dof),
          part + ": 2 sum|N|/b = " + stat + " for " + dof + " dof (seed " + SEED + ")");
      assertFalse(LocalRandomizerTest.accepts(stat / 2, dof), part + ": halved noise would pass");
      assertFalse(LocalRandomizerTest.accepts(stat * 2, dof), part + ": doubled noise would pass");
      assertFalse(LocalRandomizerTest.accepts(0, dof), part + ": missing noise would pass");
    }
  }

  /** The production path (SecureRandom-seeded stream) passes the same test; not reproducible. */
  @Test
  void productionRandomizer_alsoHasTheCalibratedScale() {
    LocalRobustProtocol p = protocol(20, 8, 2, 3, 0.5);
    for (boolean zPart : new boolean[] {false, true}) {
      int entries = zPart ? p.sizes().v() * p.sizes().v() : p.sizes().t() * 8;
      int dof = 2 * 20 * entries;
      double stat = laplaceStatistic(LocalRandomizer.create(p), 19, row(8, 5, 2), 20, zPart);
      assertTrue(LocalRandomizerTest.accepts(stat, dof), stat + " for " + dof + " dof");
    }
  }

  /**
   * The noises of two users (production randomizers) on the same row are uncorrelated: √n·r for
   * their Pearson correlation r over the n entries of a part is ≈ N(0, 1) if independent;
   * |√n·r| &gt; 5.33 has probability &lt; 10⁻⁷ (a reused noise gives r = 1).
   */
  @Test
  void twoUsers_drawUncorrelatedNoise_inEachPart() {
    LocalRobustProtocol p = protocol(20, 16, 4, 1, 1);
    double[] x = row(16, 1, 3);
    LocalReport r1 = LocalRandomizer.create(p).report(5, x);
    LocalReport r3 = LocalRandomizer.create(p).report(5, x);
    double[][] q = query(p, 5, x);
    for (int part = 0; part < 2; part++) {
      double gamma = p.parts().get(part).gamma();
      double[] n1 = noise(r1.valuesUnsafe(part), q[part], gamma);
      double[] n3 = noise(r3.valuesUnsafe(part), q[part], gamma);
      double zScore = Math.sqrt(n1.length) * correlation(n1, n3);
      assertTrue(Math.abs(zScore) < 5.33, "two users' noises correlate: sqrt(n) r = " + zScore);
      assertTrue(Math.sqrt(n1.length) * correlation(n1, n1) > 5.33, "the test sees reuse");
    }
  }

  private static double[] noise(double[] report, double[] q, double gamma) {
    double[] n = new double[q.length];
    for (int e = 0; e < q.length; e++) {
      n[e] = report[e] - GridLaplace.roundToGrid(q[e], gamma);
    }
    return n;
  }

  private static double correlation(double[] a, double[] b) {
    double ma = 0;
    double mb = 0;
    for (int e = 0; e < a.length; e++) {
      ma += a[e] / a.length;
      mb += b[e] / b.length;
    }
    double sab = 0;
    double saa = 0;
    double sbb = 0;
    for (int e = 0; e < a.length; e++) {
      sab += (a[e] - ma) * (b[e] - mb);
      saa += (a[e] - ma) * (a[e] - ma);
      sbb += (b[e] - mb) * (b[e] - mb);
    }
    return sab / Math.sqrt(saa * sbb);
  }

  /**
   * With the noise off (the package-private query, summed as the server sums reports) the
   * aggregate is exactly the central ROBUST-PCA sketch of the matrix of clipped rows, computed by
   * sketch-store's {@link RobustSketch} from the same (public) matrices.
   */
  @Test
  void noiselessReports_sumToTheCentralRobustPcaSketches() {
    int m = 60;
    int d = 9;
    LocalRobustProtocol p = protocol(m, d, 2, 1, 1);
    RobustSketch central = RobustSketch.createWithoutNoise(
        p.plan(), p.matrices(), SecretKey.forTesting(1), "central");
    double[] yr = new double[p.sizes().t() * d];
    double[] z = new double[p.sizes().v() * p.sizes().v()];
    for (int i = 0; i < m; i++) {
      double[] x = p.clipped(row(d, 0.5 + (i % 3), 200 + i));
      double[][] q = p.query(i, x);
      for (int e = 0; e < yr.length; e++) {
        yr[e] += q[0][e];
      }
      for (int e = 0; e < z.length; e++) {
        z[e] += q[1][e];
      }
      for (int j = 0; j < d; j++) {
        central.update(i, j, x[j]);
      }
    }
    RobustSketches c = (RobustSketches) central.release();
    assertClose(c.yr().data(), yr, "Yr");
    assertClose(c.z().data(), z, "Z");
  }

  static void assertClose(double[] expected, double[] actual, String what) {
    double scale = 0;
    for (double v : expected) {
      scale = Math.max(scale, Math.abs(v));
    }
    for (int e = 0; e < expected.length; e++) {
      assertEquals(expected[e], actual[e], 1e-12 * scale, what + " entry " + e);
    }
  }

  @Test
  void report_clipsTheRowToL1NormC() {
    LocalRobustProtocol p = protocol(10, 6, 1, 1, 1);
    double[] longRow = row(6, 10, 4);
    double[] x = p.clipped(longRow);
    assertTrue(RowClipping.l1Norm(x) <= 1);
    assertEquals(RowClipping.l1Norm(x), p.rowNorm(x));
    assertEquals(10, RowClipping.l1Norm(longRow), 1e-9, "the caller's row is not modified");
  }

  @Test
  void parts_areYrAndZOnTheirLaplaceGrids_withOneSlotPerUser_andTheIdCoversEveryParameter() {
    LocalRobustProtocol p = protocol(10, 5, 1, 1, 1);
    assertEquals(10, p.slots());
    ReportPart yr = p.parts().get(0);
    ReportPart z = p.parts().get(1);
    assertEquals(List.of(p.sizes().t(), 5, p.plan().yr().grid().gamma()),
        List.of(yr.rows(), yr.cols(), yr.gamma()));
    assertEquals(List.of(p.sizes().v(), p.sizes().v(), p.plan().z().grid().gamma()),
        List.of(z.rows(), z.cols(), z.gamma()));
    assertNotEquals(p.id(), protocol(10, 5, 1, 1, 2).id());
    assertNotEquals(p.id(), protocol(11, 5, 1, 1, 1).id());
    assertThrows(IllegalArgumentException.class, () -> query(p, 10, new double[5]));
    assertThrows(IllegalArgumentException.class, () -> query(p, -1, new double[5]));
  }
}
