package io.dplrf.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.release.Linalg.Svd;
import io.dplrf.sketch.matrix.Dense;
import java.util.Random;
import org.ojalgo.matrix.store.MatrixStore;
import org.junit.jupiter.api.Test;

class GramSvdTest {
  private static final double EPS = Math.ulp(1.0);

  /**
   * Y = X diag(s) Wᵀ + N (3000×100): s from 100 down to 10 over the top r = 20, noise N of
   * spectral norm ≈ 0.65, so λ_r − λ_{r+1} ≥ 99. The Gram route and the Householder route
   * (orthonormalColumns, SVD of QᵀY) must give the same top-r subspace, the same σ and an
   * orthonormal U.
   *
   * <p>Tolerances (GramSvd's class comment): the computed Gram matrix is off by
   * ‖δG‖₂ ≤ γ_m ‖Y‖_F²; by Davis–Kahan the Gram subspace turns by at most ‖δG‖₂/(λ_r − λ_{r+1})
   * and the backward-stable Householder one by far less, so the principal angle between them
   * obeys sin θ ≤ 2 γ_m ‖Y‖_F² / (λ_r − λ_{r+1}) (≈ 4e-10 here); by Weyl |σ_l² − σ̂_l²| ≤ 2 γ_m
   * ‖Y‖_F². Orthonormality: CholeskyQR leaves O(r·ε) ≈ 1e-15; we ask 1e-12.
   */
  @Test
  void top_gappedMatrix_matchesHouseholderSubspaceAndIsOrthonormal() {
    long seed = 501;
    Random rnd = new Random(seed);
    int m = 3000;
    int t = 100;
    int r = 20;
    Dense y = gapped(rnd, m, t, r, 0.01);
    Svd g = GramSvd.top(y.data(), m, t, r, new Steps(), "A");
    assertNotNull(g, "seed " + seed + ": the Gram route refused a well-conditioned matrix");
    Svd h = householderTop(y, r);

    Dense u = Linalg.toDense(g.u());
    assertEquals(r, u.cols());
    TestMatrices.assertOrthonormalColumns(u, 1e-12, "seed " + seed + ": Gram U");
    double[] full = Linalg.svd(Linalg.copyOf(y)).s();
    double gap = full[r - 1] * full[r - 1] - full[r] * full[r];
    double normY2 = Math.pow(TestMatrices.frobenius(y), 2);
    double gamma = m * EPS / (1 - m * EPS);
    double sinTol = 2 * gamma * normY2 / gap;
    double sin = sinTheta(g.u(), h.u());
    System.out.printf("GramSvd seed=%d: sin(theta)=%.3e (bound %.3e)%n", seed, sin, sinTol);
    assertTrue(sin <= sinTol, "seed " + seed + ": sin theta " + sin + " > " + sinTol);
    for (int l = 0; l < r; l++) {
      double d2 = Math.abs(g.s()[l] * g.s()[l] - h.s()[l] * h.s()[l]);
      assertTrue(d2 <= 2 * gamma * normY2, "seed " + seed + ": sigma_" + l + " " + g.s()[l]
          + " vs " + h.s()[l]);
    }
    // Checked by the invariant Y V = U Σ, not against one expected matrix. Each returned v_l turns
    // by at most ‖δG‖₂ / (its eigengap), so ‖Y v_l − σ_l u_l‖ ≤ 2 σ₁ ‖δG‖₂ / minGap and the
    // Frobenius norm over r columns ≤ √r times it.
    double minGap = Double.POSITIVE_INFINITY;
    for (int l = 0; l < r; l++) {
      minGap = Math.min(minGap, full[l] * full[l] - full[l + 1] * full[l + 1]);
    }
    MatrixStore<Double> residual = Linalg.copyOf(y).multiply(g.v())
        .subtract(Linalg.scaleColumns(g.u(), g.s()));
    double tol = Math.sqrt(r) * 2 * full[0] * gamma * normY2 / minGap;
    assertTrue(residual.norm() <= tol,
        "seed " + seed + ": ||YV - UΣ|| " + residual.norm() + " > " + tol);
  }

  /** Y of rank 5 asked for 10 triplets: λ_10 is rounding, so the route must refuse. */
  @Test
  void top_rankDeficient_returnsNullForTheFallback() {
    long seed = 511;
    Random rnd = new Random(seed);
    Dense y = TestMatrices.rankK(rnd, 400, 30, 5);
    assertNull(GramSvd.top(y.data(), 400, 30, 10, new Steps(), "A"), "seed " + seed);
    assertNotNull(GramSvd.top(y.data(), 400, 30, 5, new Steps(), "A"), "seed " + seed + ": rank 5");
  }

  /** All-zero Y (λ₁ = 0, nothing to keep) and a wide one: both left to the fallback. */
  @Test
  void top_zeroOrWideMatrix_returnsNull() {
    assertNull(GramSvd.top(new double[50 * 6], 50, 6, 2, new Steps(), "A"));
    Dense wide = TestMatrices.gaussian(new Random(531), 6, 50, 1);
    assertNull(GramSvd.top(wide.data(), 6, 50, 2, new Steps(), "A"), "seed 531");
  }

  /** The cache-blocked kernels against naive products, with a row count not a multiple of 4. */
  @Test
  void gramAndTimes_matchNaiveProducts() {
    long seed = 521;
    Random rnd = new Random(seed);
    Dense a = TestMatrices.gaussian(rnd, 103, 7, 1);
    Dense b = TestMatrices.gaussian(rnd, 7, 3, 1);
    Dense gram = TestMatrices.multiply(TestMatrices.transpose(a), a);
    double[] got = GramSvd.gram(a.data(), 103, 7);
    for (int x = 0; x < got.length; x++) {
      assertEquals(gram.data()[x], got[x], 1e-12, "seed " + seed + " Gram entry " + x);
    }
    Dense ab = TestMatrices.multiply(a, b);
    double[] prod = GramSvd.times(a.data(), 103, 7, b.data(), 3);
    for (int x = 0; x < prod.length; x++) {
      assertEquals(ab.data()[x], prod[x], 1e-12, "seed " + seed + " product entry " + x);
    }
  }

  /**
   * times: every output (in the blocks of four and after them: r = 9) is the sum over l in
   * order from 0, bit for bit, as the row-by-row accumulation it replaced.
   */
  @Test
  void times_addsInOrder_bitForBit() {
    Random rnd = new Random(522);
    int rows = 31;
    int cols = 13;
    int r = 9;
    Dense a = TestMatrices.gaussian(rnd, rows, cols, 1);
    Dense b = TestMatrices.gaussian(rnd, cols, r, 1);
    double[] got = GramSvd.times(a.data(), rows, cols, b.data(), r);
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < r; j++) {
        double sum = 0;
        for (int l = 0; l < cols; l++) {
          sum += a.get(i, l) * b.get(l, j);
        }
        assertEquals(sum, got[i * r + j], 0.0, "seed 522, entry (" + i + ", " + j + ")");
      }
    }
  }

  /** X diag(s) Wᵀ + N: X, W with orthonormal columns, s geometric from 100 to 10. */
  static Dense gapped(Random rnd, int m, int t, int r, double noise) {
    Dense x = Linalg.toDense(Linalg.orthonormalColumns(
        Linalg.copyOf(TestMatrices.gaussian(rnd, m, r, 1))));
    Dense w = Linalg.toDense(Linalg.orthonormalColumns(
        Linalg.copyOf(TestMatrices.gaussian(rnd, t, r, 1))));
    for (int i = 0; i < m; i++) {
      for (int l = 0; l < r; l++) {
        x.set(i, l, x.get(i, l) * 100 * Math.pow(0.1, l / (r - 1.0)));
      }
    }
    Dense y = TestMatrices.multiply(x, TestMatrices.transpose(w));
    y.addInPlace(TestMatrices.gaussian(rnd, m, t, noise));
    return y;
  }

  /** Priv2Release's Householder route: Q of Y, SVD of QᵀY, U = Q·U_R. */
  static Svd householderTop(Dense y, int r) {
    MatrixStore<Double> ys = Linalg.copyOf(y);
    MatrixStore<Double> q = Linalg.orthonormalColumns(ys);
    Svd small = Linalg.svd(q.transpose().multiply(ys)).top(r);
    return new Svd(q.multiply(small.u()), small.s(), small.v());
  }

  /** sin of the largest principal angle between the spans of orthonormal a and b: ‖(I − bbᵀ)a‖₂. */
  static double sinTheta(MatrixStore<Double> a, MatrixStore<Double> b) {
    MatrixStore<Double> off = a.subtract(b.multiply(b.transpose().multiply(a)));
    double[] s = Linalg.svd(off).s();
    return s.length == 0 ? 0 : s[0];
  }
}
