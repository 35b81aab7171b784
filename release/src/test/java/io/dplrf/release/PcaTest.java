package io.dplrf.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.pca.AnalyzeGauss;
import io.dplrf.sketch.pca.AnalyzeGaussPlan;
import io.dplrf.sketch.pca.AtaSketch;
import io.dplrf.sketch.pca.Gram;
import io.dplrf.sketch.pca.NoisyGram;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PcaTest {
  private static final long SEED = 23;
  private final SecretKey key = SecretKey.forTesting(SEED);

  @Test
  void topEigenvectors_areOrthonormalEigenpairsInDescendingOrder_negativeOnesClamped() {
    int d = 8;
    Dense a = symmetric(d, 4);
    Pca.Subspace sub = Pca.topEigenvectors(a, d);
    assertOrthonormal(sub.v());
    for (int c = 0; c < d; c++) {
      if (c > 0) {
        assertTrue(sub.eigenvalues()[c] <= sub.eigenvalues()[c - 1]);
      }
      for (int i = 0; i < d; i++) {
        double av = 0;
        for (int j = 0; j < d; j++) {
          av += a.get(i, j) * sub.v().get(j, c);
        }
        assertEquals(sub.eigenvalues()[c] * sub.v().get(i, c), av, 1e-10, "A v = lambda v");
      }
      assertEquals(Math.max(0, sub.eigenvalues()[c]), sub.s()[c]);
    }
    long negative = java.util.Arrays.stream(sub.eigenvalues()).filter(x -> x < 0).count();
    assertTrue(negative > 0, "the test matrix should be indefinite");
    assertEquals(negative, sub.clamped());
  }

  /**
   * With ε = 1000 the noise E is small against the eigengap g = λ_k − λ_{k+1} of AᵀA, and the
   * Davis–Kahan theorem in the Yu–Wang–Samworth form (Biometrika 2015, Thm 2) bounds the
   * subspace error: ‖sin Θ(V, V*)‖_F ≤ 2√k‖E‖₂/g. The test checks that bound with the E the
   * mechanism actually drew, so it fails if the eigenvectors are wrong, not merely noisy.
   */
  @Test
  void analyzeGauss_atLargeEpsilon_recoversTheTopKSubspace_withinDavisKahan() {
    int d = 20;
    int k = 3;
    double[][] rows = spikedRows(2000, d, k, 99);
    Gram g = gram(rows, 1);
    AnalyzeGaussPlan plan = AnalyzeGaussPlan.calibrate(new PrivacyParams(1000, 1e-6), 1, d);
    NoisyGram released = AnalyzeGauss.release(plan, g, key, "test/ag");
    Pca.Subspace sub = Pca.topEigenvectors(released, k);
    assertOrthonormal(sub.v());
    Pca.Subspace truth = Pca.topEigenvectors(g.toDense(), d);
    double gap = truth.eigenvalues()[k - 1] - truth.eigenvalues()[k];
    Dense e = minus(released.gram(), g.toDense());
    double normE = Pca.topEigenvectors(square(e), 1).eigenvalues()[0];
    normE = Math.sqrt(normE); // ‖E‖₂ = √λ_max(E²)
    double bound = 2 * Math.sqrt(k) * normE / gap;
    double sinTheta = sinTheta(sub.v(), truth, k);
    assertTrue(bound < 0.5, "test set-up: noise too large for the bound to say anything: " + bound);
    assertTrue(sinTheta <= bound, "sin theta " + sinTheta + " > Davis-Kahan " + bound + " (seed " + SEED + ")");
    Dense a = new Dense(rows.length, d, flatten(rows));
    double ratio = Pca.capturedVariance(a, sub.v()) / Pca.capturedVariance(a, firstColumns(truth.v(), k));
    assertTrue(ratio > 0.99 && ratio <= 1 + 1e-12, "captured variance ratio " + ratio);
  }

  @Test
  void ataSketch_atLargeEpsilon_capturesTheTopKVariance() {
    int d = 20;
    int k = 3;
    double[][] rows = spikedRows(2000, d, k, 7);
    Gram g = gram(rows, 1);
    SketchSizes sizes = SketchSizes.of(d, d, k, null, null, SketchSizes.DEFAULT_ALPHA);
    Priv2Plan plan = AtaSketch.plan(new PrivacyParams(1000, 1e-6), 1, sizes);
    Factorization f = Priv2Release.factorize(AtaSketch.sketch(plan, g, key, "test/ata").release(), k)
        .factorization();
    Pca.Subspace sub = Pca.fromFactorization(f);
    assertOrthonormal(sub.v());
    Dense a = new Dense(rows.length, d, flatten(rows));
    Pca.Subspace truth = Pca.topEigenvectors(g.toDense(), k);
    double ratio = Pca.capturedVariance(a, sub.v()) / Pca.capturedVariance(a, truth.v());
    assertTrue(ratio > 0.99 && ratio <= 1 + 1e-12, "captured variance ratio " + ratio);
  }

  @Test
  void orthonormalColumns_ofAGaussianMatrix_areOrthonormal() {
    assertOrthonormal(Pca.orthonormalColumns(new Dense(15, 4, gaussians(new SplittableRandom(3), 60))));
  }

  /**
   * Without noise and with an orthonormal d×d Φ, the left singular vectors of Y = AᵀAΦ are the
   * eigenvectors of AᵀA and its singular values the eigenvalues (YΦᵀ = AᵀA); with noise or t < d
   * the output is still an orthonormal d×k basis.
   */
  @Test
  void fromRangeSketch_ofAtATimesAnOrthonormalPhi_isTheTopKEigenspace() {
    int d = 12;
    int k = 3;
    Gram g = gram(spikedRows(500, d, k, 5), 1);
    Dense phi = Pca.orthonormalColumns(new Dense(d, d, gaussians(new SplittableRandom(6), d * d)));
    Dense y = times(g.toDense(), phi);
    Pca.Subspace sub = Pca.fromRangeSketch(y, k);
    assertOrthonormal(sub.v());
    Pca.Subspace truth = Pca.topEigenvectors(g.toDense(), d);
    assertTrue(sinTheta(sub.v(), truth, k) < 1e-8, "sin theta " + sinTheta(sub.v(), truth, k));
    for (int c = 0; c < k; c++) {
      assertEquals(truth.eigenvalues()[c], sub.s()[c], 1e-9 * truth.eigenvalues()[0]);
    }
    Dense narrow = Pca.orthonormalColumns(new Dense(d, 5, gaussians(new SplittableRandom(7), d * 5)));
    assertOrthonormal(Pca.fromRangeSketch(times(g.toDense(), narrow), k).v());
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> Pca.fromRangeSketch(times(g.toDense(), narrow), 6));
  }

  static Dense times(Dense a, Dense b) {
    Dense out = new Dense(a.rows(), b.cols());
    for (int i = 0; i < a.rows(); i++) {
      for (int j = 0; j < b.cols(); j++) {
        double s = 0;
        for (int l = 0; l < a.cols(); l++) {
          s += a.get(i, l) * b.get(l, j);
        }
        out.set(i, j, s);
      }
    }
    return out;
  }

  // --- helpers ---

  /** Rows x = Σ_c z_c·s_c·b_c + small isotropic noise, scaled to norm ≤ 1: a clear top-k. */
  static double[][] spikedRows(int n, int d, int k, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[][] rows = new double[n][d];
    for (double[] r : rows) {
      double[] z = gaussians(rnd, d);
      for (int j = 0; j < d; j++) {
        r[j] = (j < k ? (3.0 - j * 0.5) : 0.3) * z[j];
      }
      double norm = 0;
      for (double x : r) {
        norm += x * x;
      }
      norm = Math.sqrt(norm);
      if (norm > 1) {
        for (int j = 0; j < d; j++) {
          r[j] /= norm;
        }
      }
    }
    return rows;
  }

  static double[] gaussians(SplittableRandom rnd, int count) {
    double[] out = new double[count];
    for (int x = 0; x < count; x++) {
      double u1 = 1 - rnd.nextDouble();
      double u2 = rnd.nextDouble();
      out[x] = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }
    return out;
  }

  static Gram gram(double[][] rows, double clip) {
    Gram g = new Gram(rows[0].length, clip);
    for (double[] r : rows) {
      g.addRow(r);
    }
    return g;
  }

  static double[] flatten(double[][] rows) {
    int d = rows[0].length;
    double[] out = new double[rows.length * d];
    for (int i = 0; i < rows.length; i++) {
      System.arraycopy(rows[i], 0, out, i * d, d);
    }
    return out;
  }

  static Dense firstColumns(Dense v, int k) {
    Dense out = new Dense(v.rows(), k);
    for (int i = 0; i < v.rows(); i++) {
      for (int c = 0; c < k; c++) {
        out.set(i, c, v.get(i, c));
      }
    }
    return out;
  }

  /** ‖sin Θ‖_F = √(k − ‖V*_kᵀ V‖_F²). */
  static double sinTheta(Dense v, Pca.Subspace truth, int k) {
    double s = 0;
    for (int a = 0; a < k; a++) {
      for (int b = 0; b < k; b++) {
        double dot = 0;
        for (int i = 0; i < v.rows(); i++) {
          dot += truth.v().get(i, a) * v.get(i, b);
        }
        s += dot * dot;
      }
    }
    return Math.sqrt(Math.max(0, k - s));
  }

  static void assertOrthonormal(Dense v) {
    for (int a = 0; a < v.cols(); a++) {
      for (int b = 0; b < v.cols(); b++) {
        double dot = 0;
        for (int i = 0; i < v.rows(); i++) {
          dot += v.get(i, a) * v.get(i, b);
        }
        assertEquals(a == b ? 1 : 0, dot, 1e-10, "V^T V at " + a + "," + b);
      }
    }
  }

  static Dense symmetric(int d, long seed) {
    double[] g = gaussians(new SplittableRandom(seed), d * d);
    Dense a = new Dense(d, d);
    for (int i = 0; i < d; i++) {
      for (int j = 0; j < d; j++) {
        a.set(i, j, g[i * d + j] + g[j * d + i]);
      }
    }
    return a;
  }

  static Dense minus(Dense a, Dense b) {
    Dense out = a.copy();
    for (int i = 0; i < a.rows(); i++) {
      for (int j = 0; j < a.cols(); j++) {
        out.add(i, j, -b.get(i, j));
      }
    }
    return out;
  }

  static Dense square(Dense e) {
    int d = e.rows();
    Dense out = new Dense(d, d);
    for (int i = 0; i < d; i++) {
      for (int j = 0; j < d; j++) {
        double s = 0;
        for (int l = 0; l < d; l++) {
          s += e.get(i, l) * e.get(l, j);
        }
        out.set(i, j, s);
      }
    }
    return out;
  }
}
