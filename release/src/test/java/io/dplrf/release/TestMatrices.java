package io.dplrf.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.lra.Priv1Sketches;
import io.dplrf.sketch.lra.Priv2Sketches;
import io.dplrf.sketch.matrix.Dense;
import java.util.List;
import java.util.Random;

/**
 * Test inputs. Seeded {@link Random} is fine here (private noise uses a secure generator; seeded
 * ones are for test inputs only). Products are naive loops on purpose: an implementation
 * independent of ojAlgo.
 */
final class TestMatrices {
  private TestMatrices() {}

  static Dense gaussian(Random rnd, int rows, int cols, double sd) {
    Dense d = new Dense(rows, cols);
    double[] x = d.data();
    for (int i = 0; i < x.length; i++) {
      x[i] = sd * rnd.nextGaussian();
    }
    return d;
  }

  static Dense multiply(Dense a, Dense b) {
    assertEquals(a.cols(), b.rows(), "inner dimensions");
    Dense c = new Dense(a.rows(), b.cols());
    for (int i = 0; i < a.rows(); i++) {
      for (int l = 0; l < a.cols(); l++) {
        double ail = a.get(i, l);
        if (ail == 0) {
          continue;
        }
        for (int j = 0; j < b.cols(); j++) {
          c.add(i, j, ail * b.get(l, j));
        }
      }
    }
    return c;
  }

  static Dense transpose(Dense a) {
    Dense t = new Dense(a.cols(), a.rows());
    for (int i = 0; i < a.rows(); i++) {
      for (int j = 0; j < a.cols(); j++) {
        t.set(j, i, a.get(i, j));
      }
    }
    return t;
  }

  /** L Rᵀ with L (m×k), R (n×k) standard Gaussian: exactly rank k, σ_l ≈ √(mn). */
  static Dense rankK(Random rnd, int m, int n, int k) {
    return multiply(gaussian(rnd, m, k, 1), transpose(gaussian(rnd, n, k, 1)));
  }

  /** Â = (A σmin·I_m), m×(m+n) (paper 002 Algorithm 1, step 1). */
  static Dense padded(Dense a, double sigmaMin) {
    int m = a.rows();
    int n = a.cols();
    Dense h = new Dense(m, m + n);
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        h.set(i, j, a.get(i, j));
      }
      h.set(i, n + i, sigmaMin);
    }
    return h;
  }

  /**
   * Noise-free Priv1 sketches sampled as the paper does: Φ ((m+n)×t) and Ψ (t×m) with N(0, 1/t)
   * entries, S (v×m) and T (v×(m+n)) with N(0, 1/v) entries; Yc = ÂΦ, Yr = ΨÂ, Z = SÂTᵀ.
   * {@code zNoise} adds N(0, zNoise²) to Z (0 for exact sketches).
   */
  static Priv1Sketches priv1(Random rnd, Dense a, double sigmaMin, int t, int v, double zNoise) {
    int m = a.rows();
    int n = a.cols();
    Dense hat = padded(a, sigmaMin);
    Dense phi = gaussian(rnd, m + n, t, 1 / Math.sqrt(t));
    Dense psi = gaussian(rnd, t, m, 1 / Math.sqrt(t));
    Dense s = gaussian(rnd, v, m, 1 / Math.sqrt(v));
    Dense tt = gaussian(rnd, v, m + n, 1 / Math.sqrt(v));
    Dense z = multiply(multiply(s, hat), transpose(tt));
    z.addInPlace(gaussian(rnd, v, v, zNoise));
    return new Priv1Sketches(m, n, sigmaMin, multiply(hat, phi), multiply(psi, hat), z,
        new DenseSketchMatrix(s), new DenseSketchMatrix(tt),
        List.of(new NoiseScale("Yr", 0, 1, 0), new NoiseScale("Z", zNoise, 1, (long) v * v)));
  }

  /** Noise-free Priv2 sketches: Φ (n×t) N(0, 1/t), S (v×m) N(0, 1/v); Y = AΦ, Z = SA. */
  static Priv2Sketches priv2(Random rnd, Dense a, int t, int v) {
    int m = a.rows();
    int n = a.cols();
    Dense phi = gaussian(rnd, n, t, 1 / Math.sqrt(t));
    Dense s = gaussian(rnd, v, m, 1 / Math.sqrt(v));
    return new Priv2Sketches(m, n, multiply(a, phi), multiply(s, a), new DenseSketchMatrix(s),
        List.of(new NoiseScale("Y", 0, 1, 0), new NoiseScale("Z", 0, 1, 0)));
  }

  /**
   * The invariants, not one expected matrix: UᵀU = I, VᵀV = I, Σ sorted descending and ≥ 0, and Ã V
   * = U Σ. Orthonormality tolerance 1e-10: Householder QR and SVD are backward stable, so the loss
   * is a small multiple of dimension·ε ≈ 1e-13 for our sizes.
   */
  static void assertInvariants(Factorization f, int k, String context) {
    assertEquals(k, f.k(), context + ": rank");
    assertOrthonormalColumns(f.u(), 1e-10, context + ": U");
    assertOrthonormalColumns(f.v(), 1e-10, context + ": V");
    double[] s = f.s();
    for (int l = 0; l < s.length; l++) {
      assertTrue(s[l] >= 0, context + ": s[" + l + "] = " + s[l] + " < 0");
      if (l > 0) {
        assertTrue(s[l] <= s[l - 1], context + ": s not descending at " + l);
      }
    }
    if ((long) f.rows() * f.cols() <= 1_000_000) {
      Dense av = multiply(f.toDense(), f.v());
      double scale = s.length == 0 ? 1 : Math.max(s[0], 1e-300);
      for (int i = 0; i < f.rows(); i++) {
        for (int l = 0; l < s.length; l++) {
          assertEquals(f.u().get(i, l) * s[l], av.get(i, l), 1e-10 * scale,
              context + ": (A V)[" + i + "," + l + "] != (U Σ)");
        }
      }
    }
  }

  static void assertOrthonormalColumns(Dense q, double tol, String context) {
    for (int a = 0; a < q.cols(); a++) {
      for (int b = a; b < q.cols(); b++) {
        double dot = 0;
        for (int i = 0; i < q.rows(); i++) {
          dot += q.get(i, a) * q.get(i, b);
        }
        assertEquals(a == b ? 1.0 : 0.0, dot, tol,
            context + " is not orthonormal: (QᵀQ)[" + a + "," + b + "] = " + dot);
      }
    }
  }

  static double frobenius(Dense a) {
    double sum = 0;
    for (double x : a.data()) {
      sum += x * x;
    }
    return Math.sqrt(sum);
  }
}
