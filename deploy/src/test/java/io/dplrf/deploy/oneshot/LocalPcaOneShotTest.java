package io.dplrf.deploy.oneshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.release.Pca;
import io.dplrf.release.RobustRelease;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.lra.RobustSketch;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.pca.Gram;
import io.dplrf.sketch.pca.RowClipping;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The offline simulation of both local protocols end to end (clients, sums, post-processing).
 * Local-DP PCA's recovery test takes its tolerance from the perturbation bound, evaluated on the
 * noise the clients actually drew; LOCAL-ROBUST-PCA's release at ε → ∞ is central ROBUST-PCA's.
 */
class LocalPcaOneShotTest {
  private static final long DATA_SEED = 12;
  private static final PublicSeed SEED = PublicSeed.parse("c0ffee".repeat(10) + "c0ff");
  private static final PublicSeed ROBUST_SEED = PublicSeed.parse("1ace".repeat(16));

  /** Gaussian rows, scale 1 on the first k axes and 0.2 elsewhere, clipped to norm 1. */
  static double[][] spikedRows(int n, int d, int k, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[][] rows = new double[n][d];
    for (double[] r : rows) {
      double norm = 0;
      for (int j = 0; j < d; j++) {
        double u1 = 1 - rnd.nextDouble();
        double z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rnd.nextDouble());
        r[j] = (j < k ? 1 : 0.2) * z;
        norm += r[j] * r[j];
      }
      norm = Math.sqrt(norm);
      for (int j = 0; j < d; j++) {
        r[j] /= Math.max(1, norm);
      }
    }
    return rows;
  }

  /**
   * Many users at a moderate ε recover the top-k subspace. With t = d, YΦᵀ = AᵀA + E, E the
   * aggregated noise (and grid rounding) seen through Φᵀ, and V are its top-k left singular
   * vectors; Yu–Wang–Samworth (Biometrika 2015, Theorem 3, applied to the transposes) give
   * ‖sin Θ(V, V*)‖_F ≤ 2(2λ₁ + ‖E‖₂)·min(√k‖E‖₂, ‖E‖_F)/(λ_k² − λ_{k+1}²) for the PSD AᵀA with
   * eigenvalues λ. The test measures E and checks the bound; it fails if the basis is wrong, not
   * merely noisy. The noise is each simulated client's SecureRandom noise (not reproducible); the
   * set-up check (bound < 0.5) holds with overwhelming probability since ‖E‖₂ concentrates.
   */
  @Test
  void manyUsers_atEpsilon50_recoverTheTopKSubspace_withinTheWedinBound() throws Exception {
    int n = 20_000;
    int d = 10;
    int k = 2;
    double[][] rows = spikedRows(n, d, k, DATA_SEED);
    LocalPcaProtocol p = LocalPcaProtocol.of(SEED, d, d, 1, new PrivacyParams(50, 1e-6));
    LocalPcaOneShot.Result r = LocalPcaOneShot.run(p, k, sink -> {
      for (double[] x : rows) {
        sink.accept(x);
      }
    });
    assertEquals(n, r.reports());
    Pca.Subspace sub = r.subspace();
    assertOrthonormal(sub.v());

    Gram g = new Gram(d, 1);
    for (double[] x : rows) {
      g.addRow(x);
    }
    Dense ata = g.toDense();
    Pca.Subspace truth = Pca.topEigenvectors(ata, d);
    Dense y = r.aggregate().sum(0);
    double[] phi = p.sketchMatrix();
    Dense e = new Dense(d, d);
    for (int i = 0; i < d; i++) {
      for (int j = 0; j < d; j++) {
        double s = 0;
        for (int c = 0; c < d; c++) {
          s += y.get(i, c) * phi[j * d + c];
        }
        e.set(i, j, s - ata.get(i, j));
      }
    }
    double normE = Math.sqrt(Pca.topEigenvectors(gramOf(e), 1).eigenvalues()[0]);
    double frobE = Math.sqrt(dot(e.data(), e.data()));
    double[] l = truth.eigenvalues();
    double bound = 2 * (2 * l[0] + normE) * Math.min(Math.sqrt(k) * normE, frobE)
        / (l[k - 1] * l[k - 1] - l[k] * l[k]);
    assertTrue(bound < 0.5, "set-up: noise too large for the bound to say anything: " + bound);
    double sin = sinTheta(sub.v(), truth.v(), k);
    assertTrue(sin <= bound, "sin theta " + sin + " > bound " + bound);
  }

  @Test
  void rankAboveTheSketchWidth_orNoRows_isRefused() {
    LocalPcaProtocol p = LocalPcaProtocol.of(SEED, 6, 2, 1, new PrivacyParams(1, 1e-6));
    assertThrows(IllegalArgumentException.class,
        () -> LocalPcaOneShot.run(p, 3, sink -> sink.accept(new double[6])));
    assertThrows(IllegalArgumentException.class, () -> LocalPcaOneShot.run(p, 2, sink -> { }));
  }

  /** Rank-2 rows in ℝ^d plus a few large sparse outliers (the robust setting). */
  static double[][] robustRows(int m, int d, long seed) {
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

  private static LocalRobustProtocol robust(int m, int d, int k, double eps) {
    return LocalRobustProtocol.of(ROBUST_SEED, m, d, k, null, null, 1, 10,
        RobustMatrices.DEFAULT_STABLE_CLIP, new PrivacyParams(eps, 1e-6));
  }

  /**
   * LOCAL-ROBUST-PCA at ε → ∞ (ε = 10¹²: each report's Laplace scale is ~10⁻¹¹ of C) gives the
   * release of the central ROBUST-PCA on the noiseless sketch of the same clipped rows with the
   * same matrices: the projections V Vᵀ agree to 10⁻⁶ (the aggregated noise is ~10⁻⁹ of the
   * sketch entries, and the data's spectrum has a large gap at k = 2).
   */
  @Test
  void robust_epsilonToInfinity_equalsCentralRobustPcaOnTheSummedSketch() throws Exception {
    int m = 300;
    int d = 8;
    int k = 2;
    double[][] x = robustRows(m, d, 3);
    LocalRobustProtocol p = robust(m, d, k, 1e12);
    LocalPcaOneShot.Result r = LocalPcaOneShot.run(p, k, sink -> {
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
  void robust_rowCountMustEqualTheUserSlots_andTheRankTheProtocols() {
    LocalRobustProtocol p = robust(10, 4, 1, 1);
    double[][] x = robustRows(11, 4, 1);
    assertThrows(IllegalArgumentException.class, () -> LocalPcaOneShot.run(p, 1, sink -> {
      for (double[] row : x) {
        sink.accept(row);
      }
    }));
    assertThrows(IllegalArgumentException.class, () -> LocalPcaOneShot.run(p, 1, sink -> {
      for (int i = 0; i < 9; i++) {
        sink.accept(x[i]);
      }
    }));
    assertThrows(IllegalArgumentException.class, () -> LocalPcaOneShot.run(p, 2, sink -> {
      for (int i = 0; i < 10; i++) {
        sink.accept(x[i]);
      }
    }));
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

  private static Dense gramOf(Dense e) {
    int d = e.rows();
    Dense out = new Dense(d, d);
    for (int i = 0; i < d; i++) {
      for (int j = 0; j < d; j++) {
        double s = 0;
        for (int l = 0; l < d; l++) {
          s += e.get(l, i) * e.get(l, j);
        }
        out.set(i, j, s);
      }
    }
    return out;
  }

  private static double dot(double[] a, double[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += a[i] * b[i];
    }
    return s;
  }

  /** ‖sin Θ‖_F = √(k − ‖V*_kᵀ V‖_F²). */
  static double sinTheta(Dense v, Dense truth, int k) {
    double s = 0;
    for (int a = 0; a < k; a++) {
      for (int b = 0; b < k; b++) {
        double x = 0;
        for (int i = 0; i < v.rows(); i++) {
          x += truth.get(i, a) * v.get(i, b);
        }
        s += x * x;
      }
    }
    return Math.sqrt(Math.max(0, k - s));
  }

  static void assertOrthonormal(Dense v) {
    for (int a = 0; a < v.cols(); a++) {
      for (int b = 0; b < v.cols(); b++) {
        double x = 0;
        for (int i = 0; i < v.rows(); i++) {
          x += v.get(i, a) * v.get(i, b);
        }
        assertEquals(a == b ? 1 : 0, x, 1e-10, "V^T V at " + a + "," + b);
      }
    }
  }
}
