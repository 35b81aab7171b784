package io.dplrf.release;

import io.dplrf.release.Linalg.Svd;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;
import org.ojalgo.matrix.decomposition.Cholesky;
import org.ojalgo.matrix.decomposition.Eigenvalue;
import org.ojalgo.matrix.store.MatrixStore;
import org.ojalgo.matrix.store.R064Store;

/**
 * The top-r singular triplets of a tall matrix A (rows × cols, rows ≫ cols ≥ r) through its
 * Gram matrix, in two passes over A instead of a Householder QR, QᵀA and Q·U_R (the Priv2
 * release's Y is 100,000 × 100):
 *
 * <ol>
 *   <li>G = AᵀA (cols×cols), one cache-blocked pass; G = W Λ Wᵀ (ojAlgo, symmetric);
 *   <li>U₀ = A W_r Λ_r^{-1/2} (rows×r), one pass: the left singular vectors in exact arithmetic;
 *   <li>CholeskyQR: U₀ᵀU₀ = RᵀR, U₁ = U₀R⁻¹, then A's projection U₁ (R Λ_r^{1/2}) W_rᵀ has the
 *       r×r core R Λ_r^{1/2} = Uc Σ Vcᵀ, so U = U₁Uc, Σ, V = W_r Vc is an exact SVD form.
 * </ol>
 *
 * <p>Numerics. Forming G squares the condition number: the computed G is the Gram matrix of A up
 * to |δG| ≤ γ_rows |A|ᵀ|A| (γ_n = nε/(1 − nε), Higham, Accuracy and Stability, §3.5), so
 * ‖δG‖₂ ≤ γ_rows ‖A‖_F². By Weyl each λ_l moves by at most that much, and by Davis–Kahan the
 * span of the top r eigenvectors (= A's top-r right singular subspace) turns by
 * sin θ ≤ ‖δG‖₂ / (λ_r − λ_{r+1}). Against Householder's ε·σ₁/(σ_r − σ_{r+1}) that is a factor
 * σ₁/(σ_r + σ_{r+1}) more: harmless for the directions we keep, which sit well above 10⁻⁶·σ₁
 * (we require λ_r > {@value #MIN_EIGEN_RATIO}·λ₁ and refuse below; in the synthetic Priv2 release
 * of {@code dplrf bench release} σ₁/σ_p ≈ 10 and the two routes' releases are 1e-12 apart). U₀'s
 * orthogonality is lost by about ‖δG‖₂/λ_r (typically ε√rows·λ₁/λ_r, rounding errors being
 * random); as long as that is well below 1, one CholeskyQR pass restores it to
 * O(ε·cond(U₀)²) = O(ε) (Yamamoto et al. 2015, the CholeskyQR2 analysis), and a final pass
 * measures max |UᵀU − I| rather than trusting the estimate. Anything off — a non-positive or
 * tiny λ_r (A of rank below r), a failed Cholesky, a loss above
 * {@value #MAX_ORTHOGONALITY_LOSS} — returns null, and the caller falls back to the Householder
 * path. Every column of U₀ lies in col(A) by
 * construction, so on a rank-deficient A this route cannot invent a spurious direction: it fails.
 *
 * <p>The large products are plain loops over row-major arrays (as {@link Linalg#transposeTimes});
 * the small decompositions are ojAlgo's. Stateless and thread-safe.
 */
final class GramSvd {
  /** Smallest λ_r / λ₁ (σ_r/σ₁ = 10⁻⁶) the route accepts; see the class comment. */
  static final double MIN_EIGEN_RATIO = 1e-12;

  /** Largest max |UᵀU − I| accepted after CholeskyQR. */
  static final double MAX_ORTHOGONALITY_LOSS = 1e-10;

  /** Rows of A folded into G together: four rank-1 updates per load and store of G. */
  private static final int ROW_BLOCK = 4;

  private GramSvd() {}

  /**
   * @param a row-major rows×cols; read only
   * @param r number of triplets, 1 ≤ r ≤ cols
   * @param name prefix of the steps' names in {@code steps}
   * @return u (rows×r, orthonormal), s descending, v (cols×r), or null if the Gram route cannot
   *     guarantee them (see the class comment) or A is not tall; the caller then uses a
   *     Householder-based SVD
   */
  static Svd top(double[] a, int rows, int cols, int r, Steps steps, String name) {
    if (r < 1 || r > cols || a.length != rows * cols) {
      throw new IllegalArgumentException(
          "need 1 <= r <= cols and a rows*cols array, got r=" + r + " for " + rows + "x" + cols);
    }
    if (rows < cols) {
      return null; // not tall: no saving, and G would be singular
    }
    double[] g = gram(a, rows, cols);
    steps.lap(name + ": Gram matrix");

    Eigenvalue<Double> eig = Eigenvalue.R064.make(cols, true);
    if (!eig.decompose(R064Store.wrap(g, cols))) {
      return null;
    }
    double[] lambda = new double[cols];
    eig.getEigenvalues(lambda, java.util.Optional.empty());
    Integer[] order = IntStream.range(0, cols).boxed().toArray(Integer[]::new);
    Arrays.sort(order, Comparator.comparingDouble((Integer l) -> lambda[l]).reversed());
    double l1 = lambda[order[0]];
    if (!(l1 > 0) || !(lambda[order[r - 1]] > MIN_EIGEN_RATIO * l1)) {
      return null; // rank below r, or directions too close to the rounding level of G
    }
    MatrixStore<Double> w = eig.getV();
    R064Store wr = R064Store.FACTORY.make(cols, r); // W_r, descending
    double[] m = new double[cols * r]; // row-major W_r Λ_r^{-1/2}
    double[] root = new double[r];
    for (int j = 0; j < r; j++) {
      root[j] = Math.sqrt(lambda[order[j]]);
      for (int i = 0; i < cols; i++) {
        double x = w.doubleValue(i, order[j]);
        wr.set(i, j, x);
        m[i * r + j] = x / root[j];
      }
    }
    steps.lap(name + ": eigendecomposition of G");

    double[] u0 = times(a, rows, cols, m, r);
    steps.lap(name + ": U₀ = A W Λ^-½");

    // CholeskyQR of U₀ and the core SVD: U = U₀ R⁻¹ Uc with R⁻¹ = L⁻ᵀ = (U₀ᵀU₀)⁻¹ L.
    R064Store c = R064Store.wrap(gram(u0, rows, r), r);
    Cholesky<Double> chol = Cholesky.R064.make(r, r);
    if (!chol.decompose(c) || !chol.isSPD()) {
      return null;
    }
    MatrixStore<Double> rT = chol.getL(); // Rᵀ
    R064Store core = R064Store.FACTORY.make(r, r); // R Λ_r^{1/2}
    for (int i = 0; i < r; i++) {
      for (int j = 0; j < r; j++) {
        core.set(i, j, rT.doubleValue(j, i) * root[j]);
      }
    }
    Svd cs = Linalg.svd(core);
    MatrixStore<Double> f = chol.getInverse().multiply(rT).multiply(cs.u()); // R⁻¹ Uc, r×r
    double[] fr = new double[r * r];
    for (int i = 0; i < r; i++) {
      for (int j = 0; j < r; j++) {
        fr[i * r + j] = f.doubleValue(i, j);
      }
    }
    double[] u = times(u0, rows, r, fr, r);
    steps.lap(name + ": CholeskyQR of U₀");

    if (orthogonalityLoss(gram(u, rows, r), r) > MAX_ORTHOGONALITY_LOSS) {
      return null;
    }
    R064Store uc = R064Store.FACTORY.make(rows, r); // column-major, as the later products want
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < r; j++) {
        uc.set(i, j, u[i * r + j]);
      }
    }
    steps.lap(name + ": check UᵀU = I, copy out");
    return new Svd(uc, cs.s(), wr.multiply(cs.v()));
  }

  /** max |g − I| over the entries of an r×r matrix. */
  static double orthogonalityLoss(double[] g, int r) {
    double max = 0;
    for (int i = 0; i < r; i++) {
      for (int j = 0; j < r; j++) {
        max = Math.max(max, Math.abs(g[i * r + j] - (i == j ? 1 : 0)));
      }
    }
    return Double.isNaN(max) ? Double.POSITIVE_INFINITY : max;
  }

  /**
   * AᵀA for a row-major rows×cols A, as Σ_i a_i a_iᵀ over its rows, {@value #ROW_BLOCK} rows at a
   * time: G (cols² doubles, 80 KB at cols = 100) stays in cache and A is read once, in order.
   * Only the upper triangle is accumulated, then mirrored.
   */
  static double[] gram(double[] a, int rows, int cols) {
    double[] g = new double[cols * cols];
    int i = 0;
    for (; i + ROW_BLOCK <= rows; i += ROW_BLOCK) {
      int r0 = i * cols;
      int r1 = r0 + cols;
      int r2 = r1 + cols;
      int r3 = r2 + cols;
      for (int x = 0; x < cols; x++) {
        double a0 = a[r0 + x];
        double a1 = a[r1 + x];
        double a2 = a[r2 + x];
        double a3 = a[r3 + x];
        int gx = x * cols;
        for (int y = x; y < cols; y++) {
          g[gx + y] += a0 * a[r0 + y] + a1 * a[r1 + y] + a2 * a[r2 + y] + a3 * a[r3 + y];
        }
      }
    }
    for (; i < rows; i++) {
      int r0 = i * cols;
      for (int x = 0; x < cols; x++) {
        double a0 = a[r0 + x];
        int gx = x * cols;
        for (int y = x; y < cols; y++) {
          g[gx + y] += a0 * a[r0 + y];
        }
      }
    }
    for (int x = 0; x < cols; x++) {
      for (int y = 0; y < x; y++) {
        g[x * cols + y] = g[y * cols + x];
      }
    }
    return g;
  }

  /**
   * A·B for row-major A (rows×cols) and B (cols×r): row-major rows×r, A read once in order. Each
   * output is a dot product of a row of A with a column of B (Bᵀ copied once, so both are read
   * contiguously), four outputs at a time in registers: the same sums, added in the same order
   * (l = 0..cols−1, from 0), as accumulating row by row in the output, at 0.055 instead of
   * 0.126 s for 100,000 × 100 times 100 × 20 (no output load and store per multiply-add).
   */
  static double[] times(double[] a, int rows, int cols, double[] b, int r) {
    double[] bt = new double[r * cols]; // Bᵀ, row-major r×cols
    for (int l = 0; l < cols; l++) {
      for (int j = 0; j < r; j++) {
        bt[j * cols + l] = b[l * r + j];
      }
    }
    double[] out = new double[rows * r];
    for (int i = 0; i < rows; i++) {
      int ai = i * cols;
      int oi = i * r;
      int j = 0;
      for (; j + 4 <= r; j += 4) {
        int c0 = j * cols;
        int c1 = c0 + cols;
        int c2 = c1 + cols;
        int c3 = c2 + cols;
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        for (int l = 0; l < cols; l++) {
          double x = a[ai + l];
          s0 += x * bt[c0 + l];
          s1 += x * bt[c1 + l];
          s2 += x * bt[c2 + l];
          s3 += x * bt[c3 + l];
        }
        out[oi + j] = s0;
        out[oi + j + 1] = s1;
        out[oi + j + 2] = s2;
        out[oi + j + 3] = s3;
      }
      for (; j < r; j++) {
        int c0 = j * cols;
        double s = 0;
        for (int l = 0; l < cols; l++) {
          s += a[ai + l] * bt[c0 + l];
        }
        out[oi + j] = s;
      }
    }
    return out;
  }
}
