package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Priv1SketchTest {
  private static final long SEED = 7;
  private static final SketchSizes SIZES = new SketchSizes(30, 40, 2, 6, 12);
  private static final PrivacyParams PRIVACY = new PrivacyParams(1, 1e-6);
  private final SecretKey key = SecretKey.forTesting(SEED);
  private final Priv1Plan plan = Priv1Plan.calibrate(PRIVACY, 1, SIZES);
  private final Priv1Matrices mats = Priv1Matrices.generate(key, "test", SIZES, false);

  private Dense randomMatrix(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    Dense a = new Dense(SIZES.m(), SIZES.n());
    for (int i = 0; i < a.rows(); i++) {
      for (int j = 0; j < a.cols(); j++) {
        if (r.nextInt(3) == 0) {
          a.set(i, j, r.nextDouble(-5, 5));
        }
      }
    }
    return a;
  }

  private Priv1Sketch feed(Priv1Sketch s, Dense a) {
    for (int i = 0; i < a.rows(); i++) {
      for (int j = 0; j < a.cols(); j++) {
        if (a.get(i, j) != 0) {
          s.update(i, j, a.get(i, j));
        }
      }
    }
    return s;
  }

  /** Â = (A σmin·I) for the node's σmin. */
  private Dense padded(Dense a, double sigmaMin) {
    int m = a.rows();
    int n = a.cols();
    Dense p = new Dense(m, m + n);
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        p.set(i, j, a.get(i, j));
      }
      p.set(i, n + i, sigmaMin);
    }
    return p;
  }

  private static Dense times(Dense x, Dense y) {
    Dense r = new Dense(x.rows(), y.cols());
    for (int i = 0; i < x.rows(); i++) {
      for (int c = 0; c < x.cols(); c++) {
        double v = x.get(i, c);
        for (int j = 0; j < y.cols(); j++) {
          r.add(i, j, v * y.get(c, j));
        }
      }
    }
    return r;
  }

  private static Dense transpose(Dense x) {
    Dense r = new Dense(x.cols(), x.rows());
    for (int i = 0; i < x.rows(); i++) {
      for (int j = 0; j < x.cols(); j++) {
        r.set(j, i, x.get(i, j));
      }
    }
    return r;
  }

  private static Dense minus(Dense x, Dense y) {
    Dense r = x.copy();
    for (int p = 0; p < r.data().length; p++) {
      r.data()[p] -= y.data()[p];
    }
    return r;
  }

  @Test
  void release_equalsExactSketchPlusExactlyTheNodesNoise() {
    Dense a = randomMatrix(11);
    Priv1Sketches withData = feed(Priv1Sketch.create(plan, mats, key, "node-a"), a).release();
    Priv1Sketches empty = Priv1Sketch.create(plan, mats, key, "node-a").release();
    // Same node label → same noise; the difference is the exact sketch of A up to grid rounding.
    Dense exactYr = times(mats.psi.toDense(), padded(a, 0));
    Dense exactZ = times(times(mats.s.toDense(), padded(a, 0)), transpose(mats.t.toDense()));
    Dense exactYc = times(padded(a, 0), transpose(
        concatColumns(mats.phiTopT.toDense(), new Dense(SIZES.t(), SIZES.m()))));
    assertClose(exactYr, minus(withData.yr(), empty.yr()), 2 * plan.yrNoise().grid().gamma() + 1e-12);
    assertClose(exactZ, minus(withData.z(), empty.z()), 2 * plan.zNoise().grid().gamma() + 1e-10);
    assertClose(exactYc, minus(withData.yc(), empty.yc()), 1e-10);
  }

  private static Dense concatColumns(Dense left, Dense right) {
    Dense r = new Dense(left.rows(), left.cols() + right.cols());
    for (int i = 0; i < left.rows(); i++) {
      for (int j = 0; j < left.cols(); j++) {
        r.set(i, j, left.get(i, j));
      }
      for (int j = 0; j < right.cols(); j++) {
        r.set(i, left.cols() + j, right.get(i, j));
      }
    }
    return r;
  }

  private static void assertClose(Dense expected, Dense actual, double tol) {
    assertEquals(expected.rows(), actual.rows());
    assertEquals(expected.cols(), actual.cols());
    for (int p = 0; p < expected.data().length; p++) {
      double e = expected.data()[p];
      assertEquals(e, actual.data()[p], tol * Math.max(1, Math.abs(e)), "entry " + p);
    }
  }

  @Test
  void release_isTheSameEveryTime_noiseIsNeverRedrawn() {
    Dense a = randomMatrix(12);
    Priv1Sketch s = feed(Priv1Sketch.create(plan, mats, key, "node-b"), a);
    Priv1Sketches r1 = s.release();
    Priv1Sketches r2 = s.release();
    assertArrayEquals(r1.yr().data(), r2.yr().data());
    assertArrayEquals(r1.z().data(), r2.z().data());
    // A restart that recreates the node from the key regenerates the very same view.
    Priv1Sketches r3 = feed(Priv1Sketch.create(plan, Priv1Matrices.generate(key, "test", SIZES, false), key,
        "node-b"), a).release();
    assertArrayEquals(r1.yr().data(), r3.yr().data());
    assertArrayEquals(r1.yc().data(), r3.yc().data());
  }

  /**
   * The noise of an empty node is exactly its noise: its empirical variance must match σ² of
   * the plan. Over N = t·n = 2400 entries of Yr (A's columns, no padding there) N·s²/σ² ~ χ²_N,
   * whose 1e-7 quantiles are 0.857·N and 1.157·N (scipy.stats.chi2), so [0.85σ², 1.16σ²] falsely
   * rejects with probability < 2e-7. Missing noise (s² = 0) or halved noise (s² ≈ σ²/4) fails.
   */
  @Test
  void emptyNode_releasesNoiseAtTheCalibratedScale_failsIfMissingOrHalved() {
    SketchSizes wide = new SketchSizes(30, 400, 2, 6, 12);
    Priv1Plan widePlan = Priv1Plan.calibrate(PRIVACY, 1, wide);
    Priv1Sketches r = Priv1Sketch.create(widePlan, Priv1Matrices.generate(key, "wide", wide, false), key,
        "node-c").release();
    Dense yr = r.yr();
    double sigma = widePlan.yrNoise().sigma();
    double ss = 0;
    int count = 0;
    for (int a = 0; a < yr.rows(); a++) {
      for (int j = 0; j < wide.n(); j++) {
        ss += yr.get(a, j) * yr.get(a, j);
        count++;
      }
    }
    double ratio = ss / count / (sigma * sigma);
    assertEquals(2400, count);
    assertTrue(ratio > 0.85 && ratio < 1.16,
        "Yr noise variance / sigma^2 = " + ratio + " (key seed " + SEED + ", N=" + count + ")");
  }

  /**
   * Two nodes must draw independent noise: the sample correlation of two independent noise
   * vectors of length N = 240 (Yr over A's columns) is ≈ N(0, 1/N); |ρ| ≥ 0.35 = 5.4/√N
   * happens with probability < 1e-7, while reused noise gives ρ = 1.
   */
  @Test
  void differentNodes_haveIndependentNoise() {
    Dense y1 = Priv1Sketch.create(plan, mats, key, "node-1").release().yr();
    Dense y2 = Priv1Sketch.create(plan, mats, key, "node-2").release().yr();
    double s11 = 0;
    double s22 = 0;
    double s12 = 0;
    for (int a = 0; a < y1.rows(); a++) {
      for (int j = 0; j < SIZES.n(); j++) {
        s11 += y1.get(a, j) * y1.get(a, j);
        s22 += y2.get(a, j) * y2.get(a, j);
        s12 += y1.get(a, j) * y2.get(a, j);
      }
    }
    double rho = s12 / Math.sqrt(s11 * s22);
    assertTrue(Math.abs(rho) < 0.35, "correlation of two nodes' noise " + rho + " (seed " + SEED + ")");
  }

  @Test
  void cachedAndRegeneratedSketchingColumns_giveTheSameRelease() {
    Dense a = randomMatrix(13);
    Priv1Sketches regenerated = feed(Priv1Sketch.create(plan, mats, key, "node-e"), a).release();
    Priv1Sketches cached = feed(Priv1Sketch.create(plan,
        Priv1Matrices.generate(key, "test", SIZES, true), key, "node-e"), a).release();
    assertArrayEquals(regenerated.yc().data(), cached.yc().data());
    assertArrayEquals(regenerated.yr().data(), cached.yr().data());
    assertArrayEquals(regenerated.z().data(), cached.z().data());
  }

  @Test
  void update_outOfRangeOrNonFinite_isRejectedAndLeavesTheSketchUnchanged() {
    Priv1Sketch s = Priv1Sketch.create(plan, mats, key, "node-d");
    s.update(1, 2, 3.0);
    Priv1Sketches before = s.release();
    assertThrows(IllegalArgumentException.class, () -> s.update(SIZES.m(), 0, 1));
    assertThrows(IllegalArgumentException.class, () -> s.update(0, -1, 1));
    assertThrows(IllegalArgumentException.class, () -> s.update(0, 0, Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> s.update(0, 0, Double.POSITIVE_INFINITY));
    Priv1Sketches after = s.release();
    assertArrayEquals(before.yr().data(), after.yr().data());
    assertArrayEquals(before.yc().data(), after.yc().data());
    assertEquals(1, s.updateCount());
  }
}
