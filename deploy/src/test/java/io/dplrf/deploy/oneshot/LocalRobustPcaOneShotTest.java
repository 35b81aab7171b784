package io.dplrf.deploy.oneshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.release.Pca;
import io.dplrf.release.RobustRelease;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.lra.RobustSketch;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.pca.RowClipping;
import io.dplrf.sketch.randomness.PublicSeed;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The offline simulation of LOCAL-ROBUST-PCA end to end (clients, sums, ROBUST-PCA's release). */
class LocalRobustPcaOneShotTest {
  private static final PublicSeed SEED = PublicSeed.parse("1ace".repeat(16));

  /** Rank-2 rows in ℝ^d plus a few large sparse outliers (the robust setting). */
  static double[][] rows(int m, int d, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[][] x = new double[m][d];
    for (double[] row : x) {
      double a = r.nextDouble() * 2 - 1;
      double b = r.nextDouble() - 0.5;
      for (int j = 0; j < d; j++) {
        row[j] = a * (j < d / 2 ? 1 : 0) + b * (j % 2 == 0 ? 1 : -1);
      }
      if (r.nextInt(20) == 0) {
        row[r.nextInt(d)] += 5 * (r.nextDouble() - 0.5);
      }
    }
    return x;
  }

  private static LocalRobustProtocol protocol(int m, int d, int k, double eps) {
    return LocalRobustProtocol.of(SEED, m, d, k, null, null, 1, 10, RobustMatrices.DEFAULT_STABLE_CLIP,
        new PrivacyParams(eps, 1e-6));
  }

  /**
   * ε → ∞ (ε = 10¹²: each report's Laplace scale is ~10⁻¹¹ of C) gives the release of the central
   * ROBUST-PCA on the noiseless sketch of the same clipped rows with the same matrices: the
   * projections V Vᵀ agree to 10⁻⁶ (the aggregated noise is ~10⁻⁹ of the sketch entries, and the
   * data's spectrum has a large gap at k = 2).
   */
  @Test
  void epsilonToInfinity_equalsCentralRobustPcaOnTheSummedSketch() throws Exception {
    int m = 300;
    int d = 8;
    int k = 2;
    double[][] x = rows(m, d, 3);
    LocalRobustProtocol p = protocol(m, d, k, 1e12);
    LocalRobustPcaOneShot.Result r = LocalRobustPcaOneShot.run(p, sink -> {
      for (double[] row : x) {
        sink.accept(row);
      }
    });
    assertEquals(m, r.reports());
    RobustSketch central = RobustSketch.createWithoutNoise(
        p.plan(), p.matrices(), SecretKey.forTesting(2), "central");
    for (int i = 0; i < m; i++) {
      double[] c = x[i].clone();
      RowClipping.clipL1InPlace(c, p.clip());
      for (int j = 0; j < d; j++) {
        central.update(i, j, c[j]);
      }
    }
    Pca.Subspace expected = RobustRelease.basis((RobustSketches) central.release(), k);
    assertOrthonormal(r.subspace().v());
    double dist = projectionDistance(expected.v(), r.subspace().v());
    assertTrue(dist < 1e-6, "||V V^T - V' V'^T||_F = " + dist);
  }

  @Test
  void rowCount_mustEqualTheUserSlots() {
    LocalRobustProtocol p = protocol(10, 4, 1, 1);
    double[][] x = rows(11, 4, 1);
    assertThrows(IllegalArgumentException.class, () -> LocalRobustPcaOneShot.run(p, sink -> {
      for (double[] row : x) {
        sink.accept(row);
      }
    }));
    assertThrows(IllegalArgumentException.class, () -> LocalRobustPcaOneShot.run(p, sink -> {
      for (int i = 0; i < 9; i++) {
        sink.accept(x[i]);
      }
    }));
  }

  static void assertOrthonormal(Dense v) {
    for (int a = 0; a < v.cols(); a++) {
      for (int b = 0; b < v.cols(); b++) {
        double dot = 0;
        for (int i = 0; i < v.rows(); i++) {
          dot += v.get(i, a) * v.get(i, b);
        }
        assertEquals(a == b ? 1 : 0, dot, 1e-9, "column " + a + "·" + b);
      }
    }
  }

  /** ‖AAᵀ − BBᵀ‖_F for orthonormal A, B (d×k). */
  static double projectionDistance(Dense a, Dense b) {
    int d = a.rows();
    double s = 0;
    for (int i = 0; i < d; i++) {
      for (int j = 0; j < d; j++) {
        double pa = 0;
        double pb = 0;
        for (int c = 0; c < a.cols(); c++) {
          pa += a.get(i, c) * a.get(j, c);
          pb += b.get(i, c) * b.get(j, c);
        }
        s += (pa - pb) * (pa - pb);
      }
    }
    return Math.sqrt(s);
  }
}
