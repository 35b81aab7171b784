package io.dplrf.release;

import static io.dplrf.sketch.params.Preconditions.check;

import io.dplrf.release.Linalg.Svd;
import io.dplrf.sketch.lra.Priv2Sketches;
import io.dplrf.sketch.randomness.SparseSignMatrix;
import java.util.List;
import org.ojalgo.matrix.store.MatrixStore;

/**
 * Release for the Priv2 mechanism of paper 002 (§3, "From Priv1 to Priv2"): from Y = AΦ + N1
 * (m×t) and Z = SA + N2 (v×n), a range basis U of Y, X = (SU)⁺Z — the least-squares solution of
 * min_X ‖S(UX − A)‖_F — and the rank-k SVD X ≈ Ux Σx Vxᵀ gives Ã = (U Ux) Σx Vxᵀ.
 *
 * <p>Denoised range basis. The paper takes U = orth(Y), all t columns. With noise in Y, t − k of
 * those directions are mostly noise, and the sketched regression (SU)⁺Z spends Z's noise on them
 * (its amplification grows like 1/(1 − √(p/v)) with the basis width p). We keep the top
 * p = min(t, 2k) left singular vectors of Y instead: the rank-k signal plus an oversampling of k
 * for signal directions close to the noise floor. Post-processing of released sketches, so it
 * costs no privacy. Measured on the 2000×3000 rank-10 benchmark (t = 100, v = 400,
 * ε = 1): error 1850 vs 2120 with the full basis (dense baseline 941).
 *
 * <p>Speed. The two tall SVDs (of Y, m×t, and of Xᵀ, n×p) go through their small Gram matrices
 * ({@link Route#GRAM}, {@code GramSvd}), with the Householder path as fallback where that is not
 * numerically safe: at m = n = 100,000, t = 100, v = 400, k = 10 the release's post-processing
 * takes ≈ 1.3 s instead of ≈ 6 s ({@code dplrf bench release}, docs/benchmarks-ingest.md).
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
  public static ReportedFactorization factorize(Priv2Sketches sk, int k) {
    return profile(sk, k, Route.GRAM).release();
  }

  /**
   * How the two tall SVDs of the release (of Y, m×t, and of Xᵀ, n×p) are computed. Both give the
   * same release up to rounding (tested); GRAM is several times faster at m = n = 100,000.
   */
  public enum Route {
    /**
     * Through the t×t and p×p Gram matrices ({@code GramSvd}), falling back to HOUSEHOLDER for
     * a matrix where that is not numerically safe (rank below the kept width, tiny singular
     * values, loss of orthogonality).
     */
    GRAM,
    /** Block Householder QR of Y, the SVD of QᵀY, and ojAlgo's SVD of the tall Xᵀ (the baseline). */
    HOUSEHOLDER
  }

  /** One timed step of a release. */
  public record Step(String name, double seconds) {}

  /**
   * A release with the wall time of each step and the route each tall SVD took (for
   * {@code dplrf bench release}).
   *
   * @param yRoute "gram", "householder" or "householder (fallback)"; xRoute likewise
   */
  public record Profile(ReportedFactorization release, String yRoute, String xRoute, List<Step> steps) {
    public Profile {
      steps = List.copyOf(steps);
    }

    public double seconds() {
      return steps.stream().mapToDouble(Step::seconds).sum();
    }
  }

  /** {@link #factorize} by the given route, timing each step. */
  public static Profile profile(Priv2Sketches sk, int k, Route route) {
    int m = sk.m();
    int n = sk.n();
    int t = sk.y().cols();
    int v = sk.z().rows();
    int limit = Math.min(t, Math.min(m, n));
    check(k >= 1 && k <= limit, "k", "in [1, min(t, m, n)] = [1, " + limit + "]", k);
    Steps steps = new Steps();

    int p = basisWidth(t, k);
    // Top-p left singular vectors of Y (m×t): two passes over Y and a t×t eigenproblem
    // (GramSvd), or, where that is not numerically safe, Householder QR (householderTop).
    Svd ys = route == Route.GRAM ? GramSvd.top(sk.y().data(), m, t, p, steps, "Y") : null;
    String yRoute = ys != null ? "gram" : fallback(route);
    MatrixStore<Double> u = ys != null ? ys.u() : householderTop(sk, p, steps); // m×p
    Svd ss = Linalg.svd(Linalg.sketchTimes(sk.s(), u)); // SU = Us Σs Vsᵀ (v×p)
    double[] sInv = Linalg.pinv(ss.s(), v, p);
    steps.lap("S·U and its SVD");
    // X = (SU)⁺ Z = Vs Σs⁺ Usᵀ Z. We form the tall Xᵀ = Zᵀ Us Σs⁺ Vsᵀ (n×p), reading Zᵀ in
    // place, and swap the factors of its SVD: Xᵀ = P Σ Rᵀ ⇒ X = R Σ Pᵀ, Ux = R, Vx = P.
    // The Householder route takes the n×p product with Vsᵀ last (by ojAlgo); the
    // Gram route folds Vsᵀ into the v×p factor first, which saves that pass over Xᵀ.
    MatrixStore<Double> usInv = Linalg.scaleColumns(ss.u(), sInv);
    MatrixStore<Double> xT = route == Route.GRAM
        ? Linalg.transposeTimes(sk.z(), usInv.multiply(ss.v().transpose()))
        : Linalg.transposeTimes(sk.z(), usInv).multiply(ss.v().transpose());
    steps.lap("Xᵀ = Zᵀ (SU)⁺ᵀ");
    Svd xs = route == Route.GRAM
        ? GramSvd.top(Linalg.toDense(xT).data(), n, p, k, steps, "Xᵀ")
        : null;
    String xRoute = xs != null ? "gram" : fallback(route);
    if (xs == null) {
      xs = Linalg.svd(xT).top(k);
      steps.lap("SVD of Xᵀ (ojAlgo)");
    }
    Factorization f = Linalg.factorization(u.multiply(xs.v()), xs.s(), xs.u());
    steps.lap("U·Ux and output copies");

    UtilityReport report = Reports.priv2(mechanism(sk), sk.noise(), m, n, t, f.s(), k,
        ss.rank(), Linalg.smallestInverted(ss.s(), v, p));
    return new Profile(new ReportedFactorization(f, report), yRoute, xRoute, steps.laps());
  }

  /**
   * The mechanism's name as the settings and the release's metadata spell it: sparse sign
   * embeddings are priv2-sparse's, Gaussian ones priv2's.
   */
  static String mechanism(Priv2Sketches sk) {
    return sk.s() instanceof SparseSignMatrix ? "priv2-sparse" : "priv2";
  }

  /**
   * The Householder route, the fallback when the Gram route refuses: Y = QR (block Householder
   * QR for tall Y) and the SVD of the small t×t QᵀY: U = Q·U_R.
   */
  private static MatrixStore<Double> householderTop(Priv2Sketches sk, int p, Steps steps) {
    MatrixStore<Double> y = Linalg.copyOf(sk.y());
    steps.lap("copy Y");
    MatrixStore<Double> q = Linalg.orthonormalColumns(y); // m×t
    steps.lap("Householder Q of Y");
    MatrixStore<Double> ur = Linalg.svd(q.transpose().multiply(y)).top(p).u();
    steps.lap("QᵀY and its SVD");
    MatrixStore<Double> u = q.multiply(ur);
    steps.lap("Q·U_R");
    return u;
  }

  private static String fallback(Route route) {
    return route == Route.GRAM ? "householder (fallback)" : "householder";
  }

  /** Width p = min(t, 2k) of the denoised range basis (see the class comment). */
  static int basisWidth(int t, int k) {
    return Math.min(t, 2 * k);
  }
}
