package io.dplrf.release;

import static io.dplrf.sketch.params.Preconditions.check;

import io.dplrf.release.Linalg.Svd;
import io.dplrf.sketch.lra.Priv1Sketches;
import org.ojalgo.matrix.store.MatrixStore;

/**
 * Release for PRIVATE-OPTIMAL-LRF, paper 002 (Upadhyay 2018) Algorithm 1, steps 3–6: from the
 * released sketches Yc = ÂΦ (m×t), Yr = ΨÂ + N1 (t×(m+n)), Z = SÂTᵀ + N2 (v×v) of the padded
 * Â = (A σmin·I_m) to a rank-k factorization of A. X below is the solution of
 * min_{rank X ≤ k} ‖S(U X V − Â)Tᵀ‖_F (our reading of the paper, with all dimensions, is in
 * the shared papers README).
 *
 * <p>Pure post-processing of the mechanism's output: no privacy cost, no randomness. S and T are
 * streamed in blocks of {@value Linalg#BLOCK} columns, never materialised. Memory is dominated
 * by the (m+n)×t basis of row(Yr). Stateless and thread-safe.
 */
public final class Priv1Release {
  private Priv1Release() {}

  /**
   * @param sk the released Priv1 sketches
   * @param k target rank, 1 ≤ k ≤ min(t, m, n)
   * @return U (m×k) and V (n×k) with orthonormal columns, Σ descending, and the utility report
   */
  public static ReportedFactorization factorize(Priv1Sketches sk, int k) {
    int m = sk.m();
    int n = sk.n();
    int t = sk.yc().cols();
    int limit = Math.min(t, Math.min(m, n));
    check(k >= 1 && k <= limit, "k", "in [1, min(t, m, n)] = [1, " + limit + "]", k);

    // Step 3: U = orthonormal basis of col(Yc) (m×t); V = orthonormal basis of row(Yr) (t×(m+n)),
    // kept as Q = Vᵀ ((m+n)×t), the QR basis of Yrᵀ (read in place, no copy of Yr).
    MatrixStore<Double> u = Linalg.orthonormalColumns(Linalg.copyOf(sk.yc()));
    MatrixStore<Double> q = Linalg.orthonormalColumns(Linalg.transposeView(sk.yr()));

    // Step 4: SVD(SU) = Us Σs Vsᵀ (v×t), and SVD(VTᵀ) = Ut Σt Vtᵀ (t×v). VTᵀ = (TQ)ᵀ, so we
    // decompose the tall TQ = A Σt Bᵀ and read Ut = B, Vt = A.
    Svd ss = Linalg.svd(Linalg.sketchTimes(sk.s(), u));
    Svd st = Linalg.svd(Linalg.sketchTimes(sk.t(), q));
    MatrixStore<Double> us = ss.u();
    MatrixStore<Double> vs = ss.v();
    MatrixStore<Double> ut = st.v();
    MatrixStore<Double> vt = st.u();
    int v = sk.z().rows();

    // Step 5: X = Vs Σs⁺ [Usᵀ Z Vt]_k Σt⁺ Utᵀ (t×t).
    MatrixStore<Double> core = us.transpose().multiply(Linalg.copyOf(sk.z()).multiply(vt));
    MatrixStore<Double> coreK = Linalg.bestRankK(core, k);
    double[] sInv = Linalg.pinv(ss.s(), v, t);
    double[] tInv = Linalg.pinv(st.s(), t, v);
    MatrixStore<Double> x =
        Linalg.scaleColumns(vs, sInv).multiply(coreK).multiply(Linalg.scaleColumns(ut, tInv).transpose());

    // Step 6: SVD(X) = U′Σ′V′ᵀ, keep the top k; Ũ = U U′ (m×k), Σ̃ = Σ′, Ṽ = Vᵀ V′ = Q V′.
    // Ṽ is (m+n)×k: rows 0..n−1 belong to A's columns, rows n..n+m−1 to the σmin·I padding,
    // which we drop. Only those n rows are computed.
    Svd xs = Linalg.svd(x).top(k);
    MatrixStore<Double> uTilde = u.multiply(xs.u());
    MatrixStore<Double> vTildeA = q.limits(n, t).multiply(xs.v());
    // Dropping the padding rows breaks the orthonormality of Ṽ's columns; re-orthonormalise
    // without changing the matrix Ũ Σ̃ Ṽ[:n]ᵀ.
    Factorization f = Linalg.rebalance(uTilde, xs.s(), vTildeA);

    UtilityReport report = Reports.priv1(sk.noise(), m, n, t, sk.sigmaMin(), f.s(), k,
        ss.rank(), Linalg.smallestInverted(ss.s(), v, t),
        st.rank(), Linalg.smallestInverted(st.s(), t, v));
    return new ReportedFactorization(f, report);
  }
}
