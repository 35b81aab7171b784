package io.dplrf.deploy.oneshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.release.Pca;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.pca.Gram;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The offline simulation of local-DP PCA end to end (clients, sum, SVD). The recovery test takes
 * its tolerance from the perturbation bound, evaluated on the noise the clients actually drew.
 */
class LocalPcaOneShotTest {
  private static final long DATA_SEED = 12;
  private static final PublicSeed SEED = PublicSeed.parse("c0ffee".repeat(10) + "c0ff");

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
    Dense y = r.aggregate();
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
  void rankAboveTheSketchWidth_isRefused() {
    LocalPcaProtocol p = LocalPcaProtocol.of(SEED, 6, 2, 1, new PrivacyParams(1, 1e-6));
    assertThrows(IllegalArgumentException.class,
        () -> LocalPcaOneShot.run(p, 3, sink -> sink.accept(new double[6])));
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
