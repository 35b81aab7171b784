package io.dplrf.release;

import static io.dplrf.sketch.params.Preconditions.check;

import io.dplrf.release.Linalg.Svd;
import io.dplrf.sketch.lra.Priv2Sketches;
import org.ojalgo.matrix.store.MatrixStore;

/**
 * Release for the Priv2 mechanism of paper 002 (§3, "From Priv1 to Priv2"): from Y = AΦ + N1
 * (m×t) and Z = SA + N2 (v×n), U = orth(Y), X = (SU)⁺Z (t×n) — the least-squares solution of
 * min_X ‖S(UX − A)‖_F — and the rank-k SVD X ≈ Ux Σx Vxᵀ gives Ã = (U Ux) Σx Vxᵀ.
 *
 * <p>Pure post-processing, no randomness. S is streamed in blocks of {@value Linalg#BLOCK}
 * columns. Stateless and thread-safe.
 */
public final class Priv2Release {
  private Priv2Release() {}

  /**
   * @param sk the released Priv2 sketches
   * @param k target rank, 1 ≤ k ≤ min(t, m, n)
   * @return U (m×k) and V (n×k) with orthonormal columns, Σ descending, and the utility report
   */
  public static Release factorize(Priv2Sketches sk, int k) {
    int m = sk.m();
    int n = sk.n();
    int t = sk.y().cols();
    int v = sk.z().rows();
    int limit = Math.min(t, Math.min(m, n));
    check(k >= 1 && k <= limit, "k", "in [1, min(t, m, n)] = [1, " + limit + "]", k);

    MatrixStore<Double> u = Linalg.orthonormalColumns(Linalg.copyOf(sk.y())); // m×t
    Svd ss = Linalg.svd(Linalg.sketchTimes(sk.s(), u)); // SU = Us Σs Vsᵀ (v×t)
    double[] sInv = Linalg.pinv(ss.s(), v, t);
    // X = (SU)⁺ Z = Vs Σs⁺ Usᵀ Z. We form the tall Xᵀ = Zᵀ Us Σs⁺ Vsᵀ (n×t), reading Zᵀ in
    // place, and swap the factors of its SVD: Xᵀ = P Σ Rᵀ ⇒ X = R Σ Pᵀ, Ux = R, Vx = P.
    MatrixStore<Double> xT = Linalg.transposeView(sk.z())
        .multiply(Linalg.scaleColumns(ss.u(), sInv))
        .multiply(ss.v().transpose());
    Svd xs = Linalg.svd(xT).top(k);
    Factorization f = Linalg.factorization(u.multiply(xs.v()), xs.s(), xs.u());

    UtilityReport report = Reports.priv2(sk.noise(), m, n, t, f.s(), k,
        ss.rank(), Linalg.smallestInverted(ss.s(), v, t));
    return new Release(f, report);
  }
}
