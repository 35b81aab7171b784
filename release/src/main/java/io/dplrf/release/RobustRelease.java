package io.dplrf.release;

import static io.dplrf.sketch.params.Preconditions.check;

import io.dplrf.release.Linalg.Svd;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.matrix.Dense;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.ojalgo.matrix.store.MatrixStore;

/**
 * Release for ROBUST-LRA (paper 000, Algorithm 1 lines 5–8 and Remark 1) and ROBUST-PCA
 * (Algorithm 2 lines 4–10, our reading in docs/privacy/robust.md §1). Line 7 is the ℓ2
 * relaxation of the sketched ℓp regression (supplement Lemma 18): the minimiser of
 * ‖Z_c X Z_r − Z‖_F over rank ≤ k, X̂ = V_c Σ_c⁺ [U_cᵀ Z V_r]_k Σ_r⁺ U_rᵀ.
 *
 * <p>Pure post-processing of released sketches (S and T are the mechanism's matrices; the
 * privacy analysis holds for every draw of them), no randomness. Stateless and thread-safe.
 */
public final class RobustRelease {
  private RobustRelease() {}

  /**
   * How line 7's regression is solved: {@code L2} as the paper (the ℓ2 relaxation, closed form);
   * {@code L1} starts there and improves the sketched ℓ1 objective by IRLS ({@link SketchedL1}).
   * Both are post-processing of the same released sketches.
   */
  public enum Regression { L2, L1 }

  /**
   * ROBUST-LRA: M = Yc X̂ Yr as U Σ Vᵀ (Remark 1), never the dense m×n M: with Yc = Q_c R_c and
   * Yrᵀ = Q_r R_r (QR), M = Q_c (R_c X̂ R_rᵀ) Q_rᵀ and the SVD of the t×t core gives the factors.
   *
   * @param k target rank, 1 ≤ k ≤ min(t, m, n)
   */
  public static ReportedFactorization factorize(RobustSketches sk, int k) {
    return factorize(sk, k, Regression.L2);
  }

  /** As {@link #factorize(RobustSketches, int)} with the given regression. */
  public static ReportedFactorization factorize(RobustSketches sk, int k, Regression regression) {
    check(!sk.pca(), "sketches", "ROBUST-LRA sketches (with Yc)", "ROBUST-PCA sketches");
    int m = sk.m();
    int n = sk.n();
    int t = sk.yr().rows();
    int v = sk.z().rows();
    int limit = Math.min(t, Math.min(m, n));
    check(k >= 1 && k <= limit, "k", "in [1, min(t, m, n)] = [1, " + limit + "]", k);

    MatrixStore<Double> yc = Linalg.copyOf(sk.yc()); // m×t
    MatrixStore<Double> yrT = Linalg.transposeView(sk.yr()); // n×t
    // Line 5: Z_c = S Yc (v×t), Z_r = Yr T = (Tᵀ Yrᵀ)ᵀ (t×v).
    Svd sc = Linalg.svd(Linalg.sketchTimes(sk.s(), yc));
    MatrixStore<Double> zrT = Linalg.sketchTimes(sk.tT(), yrT);
    Svd srT = Linalg.svd(zrT); // Z_rᵀ = A Σ Bᵀ ⇒ U_r = B, V_r = A
    MatrixStore<Double> z = Linalg.copyOf(sk.z());
    MatrixStore<Double> x = solve(sc, srT.v(), srT.s(), srT.u(), z, k, v, t);
    if (regression == Regression.L1) {
      x = SketchedL1.solve(Linalg.sketchTimes(sk.s(), yc), x, zrT.transpose(), z, k);
    }

    // Remark 1: factor M = Yc X̂ Yr through the QRs of Yc and Yrᵀ.
    MatrixStore<Double>[] qc = Linalg.qr(yc);
    MatrixStore<Double>[] qr = Linalg.qr(yrT);
    MatrixStore<Double> core = qc[1].multiply(x).multiply(qr[1].transpose());
    Svd cs = Linalg.svd(core).top(k);
    Factorization f = Linalg.factorization(qc[0].multiply(cs.u()), cs.s(), qr[0].multiply(cs.v()));
    return new ReportedFactorization(f, report("robust-lra", sk.noise(), f.s(), k,
        Linalg.smallestInverted(sc.s(), v, t), Linalg.smallestInverted(srT.s(), v, t)));
  }

  /**
   * ROBUST-PCA: the orthonormal n×k basis of col(Y_c X̂) (robust.md §1): Y_c = Yrᵀ (n×t),
   * Z_c = (Yr T)ᵀ (v×t), the regression target Zᵀ (v×v); X̂ (t×v) minimises
   * ‖Z_c X Zᵀ − Zᵀ‖_F over rank ≤ k, and the basis is the top-k left singular vectors of
   * Yrᵀ X̂ (rank ≤ k). Π = V Vᵀ is an orthogonal rank-k projection; only V is released.
   *
   * @param k target rank, 1 ≤ k ≤ min(t, n)
   * @return V (n×k, orthonormal columns) and the top-k singular values of Yrᵀ X̂ (in sketch
   *     units: they order the directions, they do not estimate A's spectrum)
   */
  public static Pca.Subspace basis(RobustSketches sk, int k) {
    return basis(sk, k, Regression.L2);
  }

  /** As {@link #basis(RobustSketches, int)} with the given regression. */
  public static Pca.Subspace basis(RobustSketches sk, int k, Regression regression) {
    check(sk.pca(), "sketches", "ROBUST-PCA sketches (without Yc)", "ROBUST-LRA sketches");
    int n = sk.n();
    int t = sk.yr().rows();
    int v = sk.z().rows();
    int limit = Math.min(t, n);
    check(k >= 1 && k <= limit, "k", "in [1, min(t, n)] = [1, " + limit + "]", k);
    MatrixStore<Double> yrT = Linalg.transposeView(sk.yr()); // n×t = Y_c of Alg. 2
    MatrixStore<Double> zc = Linalg.sketchTimes(sk.tT(), yrT);
    Svd sc = Linalg.svd(zc); // Z_c (v×t)
    MatrixStore<Double> target = Linalg.copyOf(sk.z()).transpose(); // Zᵀ (v×v) = Y_r of Alg. 2
    Svd sr = Linalg.svd(target);
    MatrixStore<Double> x = solve(sc, sr.u(), sr.s(), sr.v(), target, k, v, v);
    if (regression == Regression.L1) {
      x = SketchedL1.solve(zc, x, target, target, k);
    }
    Svd b = Linalg.svd(yrT.multiply(x)).top(k);
    Dense basis = Linalg.toDense(b.u());
    return new Pca.Subspace(basis, b.s(), b.s(), 0);
  }

  /**
   * Line 7: X̂ = V_c Σ_c⁺ [U_cᵀ Z V_r]_k Σ_r⁺ U_rᵀ for SVD(Z_c) = {@code sc} and
   * SVD(Z_r) = U_r Σ_r V_rᵀ.
   */
  private static MatrixStore<Double> solve(Svd sc, MatrixStore<Double> ur, double[] sr,
      MatrixStore<Double> vr, MatrixStore<Double> z, int k, int rowsC, int rowsR) {
    MatrixStore<Double> core = sc.u().transpose().multiply(z).multiply(vr);
    MatrixStore<Double> coreK = Linalg.bestRankK(core, Math.min(k, (int) Math.min(
        core.countRows(), core.countColumns())));
    double[] cInv = Linalg.pinv(sc.s(), rowsC, sc.s().length);
    double[] rInv = Linalg.pinv(sr, rowsR, sr.length);
    return Linalg.scaleColumns(sc.v(), cInv).multiply(coreK)
        .multiply(Linalg.scaleColumns(ur, rInv).transpose());
  }

  /**
   * The report: the Laplace noise of each part (σ = √2·b) as released; floor terms are the
   * spectral norm σ(√p + √q) of each noise matrix (Bai–Yin holds for i.i.d. Laplace entries),
   * in sketch units — the p-stable sketches do not preserve A's ℓ2 spectrum, so no translation
   * to A's units and no predicted error are offered (0, with a note).
   */
  private static UtilityReport report(String mechanism, List<NoiseScale> noise, double[] s, int k,
      double minZc, double minZr) {
    List<UtilityReport.FloorTerm> terms = new ArrayList<>();
    for (NoiseScale ns : noise) {
      terms.add(new UtilityReport.FloorTerm(ns.sketch(), ns.sigma() * 2 * Math.sqrt(ns.entries()),
          String.format(Locale.ROOT, "sigma*2*sqrt(entries) = %g*2*sqrt(%d) (sketch units, upper"
              + " bound on sigma(sqrt(rows)+sqrt(cols)))", ns.sigma(), ns.entries())));
    }
    List<String> notes = List.of("robust mechanisms: floors are in sketch units, not A's; "
        + "sigma is the Laplace standard deviation sqrt(2)*b and sensitivity the l1 one",
        String.format(Locale.ROOT, "smallest inverted singular values: Z_c %g, Z_r %g", minZc, minZr));
    return new UtilityReport(mechanism, k, noise, terms, s, 0, "not predicted (entrywise l_p "
        + "objective; see docs/benchmarks-robust.md for measured errors)", notes);
  }

  /**
   * Either mechanism as a {@link ReportedFactorization}: ROBUST-LRA's factorization, or ROBUST-PCA's basis V
   * served as V S Vᵀ (n×n, U = V: the projection's factorization, as local-DP PCA is served),
   * S the basis' sketch-unit singular values.
   */
  public static ReportedFactorization release(RobustSketches sk, int k) {
    return release(sk, k, Regression.L2);
  }

  /** As {@link #release(RobustSketches, int)} with the given regression. */
  public static ReportedFactorization release(RobustSketches sk, int k, Regression regression) {
    if (!sk.pca()) {
      return factorize(sk, k, regression);
    }
    Pca.Subspace b = basis(sk, k, regression);
    return new ReportedFactorization(new Factorization(b.v(), b.s(), b.v()), pcaReport(sk, b));
  }

  /** The report of a ROBUST-PCA basis (for release documents). */
  public static UtilityReport pcaReport(RobustSketches sk, Pca.Subspace basis) {
    return report("robust-pca", sk.noise(), basis.s(), basis.v().cols(), Double.NaN, Double.NaN);
  }
}
