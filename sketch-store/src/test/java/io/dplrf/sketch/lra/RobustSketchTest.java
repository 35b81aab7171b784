package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.noise.GridLaplace;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * ROBUST-LRA / ROBUST-PCA sketches (paper 000, Algorithms 1–2): what they keep (Yr = ΦA,
 * Yc = AΨ, Z = SAT, each update on its own sketch), the exact ℓ1 sensitivity, the Laplace noise
 * and its calibration.
 */
class RobustSketchTest {
  private static final SecretKey KEY = SecretKey.forTesting(31);
  private static final PrivacyParams PRIVACY = new PrivacyParams(0.8, 1e-6);
  private static final SketchSizes SIZES = new SketchSizes(30, 25, 2, 6, 9);

  private static RobustMatrices mats(boolean pca) {
    return RobustMatrices.generate(KEY, "robust-test", SIZES, 1.0, pca);
  }

  /** A fixed small matrix (seeded; test data, not noise). */
  private static double[][] matrix(long seed) {
    Random r = new Random(seed);
    double[][] a = new double[SIZES.m()][SIZES.n()];
    for (double[] row : a) {
      for (int j = 0; j < row.length; j++) {
        row[j] = r.nextInt(7) - 3 + 0.25 * r.nextInt(4);
      }
    }
    return a;
  }

  private static void feed(NoisyLinearSketch s, double[][] a) {
    for (int i = 0; i < a.length; i++) {
      for (int j = 0; j < a[i].length; j++) {
        s.update(i, j, a[i][j]);
      }
    }
  }

  /** Φ A, A Ψ, S A T computed densely from the matrices (the test's reference). */
  private static double[][][] exact(RobustMatrices mt, double[][] a) {
    Dense phi = mt.phi.toDense(); // t × m
    Dense s = mt.s.toDense(); // v × m
    Dense tT = mt.tT.toDense(); // v × n
    int m = SIZES.m();
    int n = SIZES.n();
    int t = SIZES.t();
    int v = SIZES.v();
    double[][] yr = new double[t][n];
    double[][] yc = new double[m][t];
    double[][] at = new double[m][v];
    double[][] z = new double[v][v];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        for (int r = 0; r < t; r++) {
          yr[r][j] += phi.get(r, i) * a[i][j];
          if (!mt.pca) {
            yc[i][r] += a[i][j] * mt.psiT.toDense().get(r, j);
          }
        }
        for (int b = 0; b < v; b++) {
          at[i][b] += a[i][j] * tT.get(b, j);
        }
      }
    }
    for (int x = 0; x < v; x++) {
      for (int i = 0; i < m; i++) {
        for (int b = 0; b < v; b++) {
          z[x][b] += s.get(x, i) * at[i][b];
        }
      }
    }
    return new double[][][] {yr, yc, z};
  }

  private static void assertClose(double[][] want, Dense got, double tol) {
    for (int i = 0; i < want.length; i++) {
      for (int j = 0; j < want[i].length; j++) {
        assertEquals(want[i][j], got.get(i, j), tol, "entry (" + i + ", " + j + ")");
      }
    }
  }

  @Test
  void noiselessSketch_isPhiA_APsi_SAT_eachUpdateOnItsOwnSketch() {
    RobustMatrices mt = mats(false);
    RobustPlan plan = RobustPlan.calibrate(PRIVACY, 1, mt);
    double[][] a = matrix(1);
    RobustSketch s = RobustSketch.createWithoutNoise(plan, mt, KEY, "exact");
    feed(s, a);
    RobustSketches r = s.release();
    double[][][] want = exact(mt, a);
    assertClose(want[0], r.yr(), 1e-9);
    assertClose(want[1], r.yc(), 1e-9);
    assertClose(want[2], r.z(), 1e-9);
    assertEquals(3, r.noise().size());
  }

  @Test
  void pca_keepsYrAndZ_withoutYc() {
    RobustMatrices mt = mats(true);
    RobustPlan plan = RobustPlan.calibrate(PRIVACY, 1, mt);
    assertNull(plan.yc());
    double[][] a = matrix(2);
    RobustSketch s = RobustSketch.createWithoutNoise(plan, mt, KEY, "pca");
    feed(s, a);
    RobustSketches r = s.release();
    assertTrue(r.pca());
    double[][][] want = exact(mt, a);
    assertClose(want[0], r.yr(), 1e-9);
    assertClose(want[2], r.z(), 1e-9);
    assertEquals(2, r.noise().size());
    // Two noisy parts: each gets ε/2.
    assertEquals(PRIVACY.epsilon() / 2, plan.yr().epsilon(), 0.0);
  }

  /**
   * The sensitivity factors are the drawn matrices' largest column ℓ1 norms, and they are sharp:
   * moving the entry (i*, j*) that attains them by C moves Yr, Yc and Z by C·a, C·b and C·c·d in ℓ1.
   */
  @Test
  void sensitivity_isTheLargestColumnL1Norm_andIsAttainedByOneEntry() {
    RobustMatrices mt = mats(false);
    int iA = argmaxColumn(mt.phi.toDense());
    int jB = argmaxColumn(mt.psiT.toDense());
    int iC = argmaxColumn(mt.s.toDense());
    int jD = argmaxColumn(mt.tT.toDense());
    RobustPlan plan = RobustPlan.calibrate(PRIVACY, 1, mt);
    double c = 2.5;
    // The factors are rounded up by 2^-30 relative (twice for c·d): tolerance 4·2^-30.
    double rel = 4 * 0x1.0p-30;
    RobustSketch s1 = RobustSketch.createWithoutNoise(plan, mt, KEY, "s1");
    s1.update(iA, jB, c);
    RobustSketches r1 = s1.release();
    assertEquals(c * mt.phiFactor(), l1(r1.yr()), rel * c * mt.phiFactor());
    assertEquals(c * mt.psiFactor(), l1(r1.yc()), rel * c * mt.psiFactor());
    RobustSketch s2 = RobustSketch.createWithoutNoise(plan, mt, KEY, "s2");
    s2.update(iC, jD, -c);
    assertEquals(c * mt.stFactor(), l1(s2.release().z()), rel * c * mt.stFactor());
    // And no entry moves them more (the bound holds for all entries, so for all ℓ1 changes).
    for (int i = 0; i < SIZES.m(); i += 7) {
      for (int j = 0; j < SIZES.n(); j += 6) {
        RobustSketch s = RobustSketch.createWithoutNoise(plan, mt, KEY, "e");
        s.update(i, j, 1);
        RobustSketches r = s.release();
        assertTrue(l1(r.yr()) <= mt.phiFactor() && l1(r.yc()) <= mt.psiFactor()
            && l1(r.z()) <= mt.stFactor());
      }
    }
  }

  private static int argmaxColumn(Dense d) {
    int best = 0;
    double max = -1;
    for (int j = 0; j < d.cols(); j++) {
      double sum = 0;
      for (int i = 0; i < d.rows(); i++) {
        sum += Math.abs(d.get(i, j));
      }
      if (sum > max) {
        max = sum;
        best = j;
      }
    }
    return best;
  }

  private static double l1(Dense d) {
    double s = 0;
    for (double x : d.data()) {
      s += Math.abs(x);
    }
    return s;
  }

  /** b = parts·L·C·factor/ε up to the grid (b_eff ≥ target, < target·(1 + 2⁻²⁹)), slack included. */
  @Test
  void calibration_laplaceScaleIsPartsTimesLTimesCTimesFactorOverEpsilon() {
    RobustMatrices mt = mats(false);
    int l = 4;
    long nodes = 15;
    double c = 3;
    RobustPlan plan = RobustPlan.calibrate(PRIVACY, c, mt, l, nodes);
    double[] factors = {mt.phiFactor(), mt.psiFactor(), mt.stFactor()};
    LaplaceSketchNoise[] parts = {plan.yr(), plan.yc(), plan.z()};
    for (int x = 0; x < 3; x++) {
      LaplaceSketchNoise p = parts[x];
      double base = l * c * factors[x];
      assertEquals(base, p.l1Sensitivity(), 0.0);
      double slack = GridLaplace.roundingSlackL1(p.grid().gamma(), p.entries()) * nodes;
      assertTrue((base + slack) / p.scale() <= PRIVACY.epsilon() / 3, p.sketch());
      double target = 3 * (base + slack) / PRIVACY.epsilon();
      assertTrue(p.scale() >= target && p.scale() < target * (1 + 0x1.0p-29), p.sketch());
    }
    assertEquals((long) SIZES.t() * SIZES.n(), plan.yr().entries());
    assertEquals((long) SIZES.m() * SIZES.t(), plan.yc().entries());
    assertEquals((long) SIZES.v() * SIZES.v(), plan.z().entries());
    assertThrows(IllegalArgumentException.class, // slack over 2^40 nodes takes more than ε/2
        () -> RobustPlan.calibrate(PRIVACY, 1, mt, 2, 1L << 40));
  }

  /**
   * The released noise is Laplace with the plan's scale b: E|N| = b and sd(|N|) = b, so the mean
   * absolute residual over k entries is b ± 6b/√k (false alarm below 10⁻⁸ by the normal
   * approximation). Missing noise (0) or halved noise (b/2) fails.
   */
  @Test
  void releasedNoise_isLaplaceOfThePlanScale_perPart() {
    RobustMatrices mt = mats(false);
    RobustPlan plan = RobustPlan.calibrate(PRIVACY, 1, mt);
    double[][] a = matrix(3);
    RobustSketch noisy = RobustSketch.create(plan, mt, KEY, "noisy");
    RobustSketch exact = RobustSketch.createWithoutNoise(plan, mt, KEY, "exact");
    feed(noisy, a);
    feed(exact, a);
    RobustSketches rn = noisy.release();
    RobustSketches re = exact.release();
    check(rn.yr(), re.yr(), plan.yr());
    check(rn.yc(), re.yc(), plan.yc());
    check(rn.z(), re.z(), plan.z());
    // Fixed at creation: a second release is identical; another node label is not.
    assertArrayEquals(rn.z().data(), noisy.release().z().data(), 0.0);
    RobustSketch other = RobustSketch.create(plan, mt, KEY, "other");
    feed(other, a);
    assertTrue(other.release().z().get(0, 0) != rn.z().get(0, 0));
  }

  private static void check(Dense noisy, Dense exact, LaplaceSketchNoise noise) {
    double b = noise.scale();
    double gamma = noise.grid().gamma();
    double sum = 0;
    int k = noisy.data().length;
    for (int x = 0; x < k; x++) {
      double r = noisy.data()[x] - GridLaplace.roundToGrid(exact.data()[x], gamma);
      assertEquals(0, r / gamma - Math.rint(r / gamma), 1e-6, "noise on the grid");
      sum += Math.abs(r);
    }
    assertEquals(b, sum / k, 6 * b / Math.sqrt(k), noise.sketch() + " mean |noise| over " + k);
  }

  @Test
  void updates_areLinear_splitAndAbsorbedEqualsWhole_orderFree() {
    RobustMatrices mt = mats(false);
    RobustPlan plan = RobustPlan.calibrate(PRIVACY, 1, mt);
    double[][] a = matrix(4);
    RobustSketch whole = RobustSketch.createWithoutNoise(plan, mt, KEY, "w");
    feed(whole, a);
    RobustSketch first = RobustSketch.createWithoutNoise(plan, mt, KEY, "f");
    RobustSketch second = RobustSketch.createWithoutNoise(plan, mt, KEY, "g");
    for (int i = SIZES.m() - 1; i >= 0; i--) {
      for (int j = 0; j < SIZES.n(); j++) {
        (i % 2 == 0 ? first : second).update(i, j, 2 * a[i][j]);
        (i % 2 == 0 ? first : second).update(i, j, -a[i][j]);
      }
    }
    first.absorb(second);
    RobustSketches w = whole.release();
    RobustSketches f = first.release();
    assertArrayEquals(w.yr().data(), f.yr().data(), 1e-9);
    assertArrayEquals(w.yc().data(), f.yc().data(), 1e-9);
    assertArrayEquals(w.z().data(), f.z().data(), 1e-9);
    assertEquals(2L * SIZES.m() * SIZES.n(), first.updateCount());
  }

  @Test
  void snapshot_roundTrips_andRegeneratesTheSameNoise() throws Exception {
    for (boolean pca : new boolean[] {false, true}) {
      RobustMatrices mt = mats(pca);
      RobustSketch s = RobustSketch.create(RobustPlan.calibrate(PRIVACY, 2, mt, 3, 7), mt, KEY,
          "snap" + pca);
      feed(s, matrix(5));
      s.update(0, 0, 1); // left pending at write time
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      SketchCodec.write(s, out);
      NoisyLinearSketch back =
          SketchCodec.read(new ByteArrayInputStream(out.toByteArray()), KEY, false);
      assertTrue(back instanceof RobustSketch r && r.plan().equals(s.plan()), "plan restored");
      RobustSketches a = s.release();
      RobustSketches b = ((RobustSketch) back).release();
      assertArrayEquals(a.yr().data(), b.yr().data(), 0.0);
      assertArrayEquals(a.z().data(), b.z().data(), 0.0);
      assertEquals(s.updateCount(), back.updateCount());
    }
  }

  @Test
  void planAndMatrices_mustAgree() {
    RobustPlan plan = RobustPlan.calibrate(PRIVACY, 1, mats(false));
    RobustMatrices otherDraw = RobustMatrices.generate(KEY, "another-instance", SIZES, 1.0, false);
    assertThrows(IllegalArgumentException.class,
        () -> RobustSketch.create(plan, otherDraw, KEY, "x"));
    assertThrows(IllegalArgumentException.class, () -> RobustSketch.create(plan, mats(true), KEY, "x"));
  }
}
