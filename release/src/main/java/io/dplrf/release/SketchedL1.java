package io.dplrf.release;

import org.ojalgo.matrix.store.MatrixStore;
import org.ojalgo.matrix.store.R064Store;

/**
 * ℓ1-oriented post-processing of the robust sketches: a local solution of the sketched ℓ1
 * problem min_{P, Q} ‖B_c P Q B_r − Z‖₁ (P: c×k, Q: k×r) that paper 000 relaxes to ℓ2 in
 * Algorithm 1 line 7 (supplement Lemma 18 pays a factor (#entries)^{1/p − 1/2} for that
 * relaxation; the p-stable sketches preserve ℓ1 norms up to O(log) factors, which is what makes
 * solving the sketched ℓ1 problem itself worthwhile). Started from the ℓ2 solution, improved by
 * alternating iteratively reweighted least squares (weights 1/max(|residual|, η)); the ℓ1
 * objective is tracked and the best iterate kept, so the result is never worse in the sketched
 * ℓ1 objective than the ℓ2 start.
 *
 * <p>Post-processing of released sketches only (no privacy cost), deterministic. The problems
 * are small (Z is v×v): plain normal equations with a tiny ridge for rank deficiency.
 */
final class SketchedL1 {
  static final int ROUNDS = 15;

  private SketchedL1() {}

  /**
   * @param bc the left factor B_c (v×c)
   * @param x0 the ℓ2 solution X̂ (c×r) of rank ≤ k
   * @param br the right factor B_r (r×w)
   * @param z the target Z (v×w)
   * @return X = P Q (c×r), rank ≤ k
   */
  static MatrixStore<Double> solve(MatrixStore<Double> bc, MatrixStore<Double> x0,
      MatrixStore<Double> br, MatrixStore<Double> z, int k) {
    Linalg.Svd s = Linalg.svd(x0).top(k);
    MatrixStore<Double> p = Linalg.scaleColumns(s.u(), s.s()); // c×k
    MatrixStore<Double> q = s.v().transpose(); // k×r
    MatrixStore<Double> best = p.multiply(q);
    double bestObj = objective(bc, best, br, z);
    for (int round = 0; round < ROUNDS; round++) {
      double[][] w = weights(bc.multiply(p).multiply(q).multiply(br).subtract(z));
      p = solveLeft(bc, q.multiply(br), z, w); // min_P Σ w (B_c P G − Z)², G = Q B_r
      q = solveRight(bc.multiply(p), br, z, w); // min_Q Σ w (H Q B_r − Z)², H = B_c P
      MatrixStore<Double> x = p.multiply(q);
      double obj = objective(bc, x, br, z);
      if (obj < bestObj) {
        bestObj = obj;
        best = x;
      }
    }
    return best;
  }

  static double objective(MatrixStore<Double> bc, MatrixStore<Double> x, MatrixStore<Double> br,
      MatrixStore<Double> z) {
    MatrixStore<Double> r = bc.multiply(x).multiply(br).subtract(z);
    double s = 0;
    for (long i = 0; i < r.countRows(); i++) {
      for (long j = 0; j < r.countColumns(); j++) {
        s += Math.abs(r.doubleValue(i, j));
      }
    }
    return s;
  }

  /** IRLS weights 1/max(|r|, η), η = 10⁻⁶ of the mean |r| (keeps them finite). */
  private static double[][] weights(MatrixStore<Double> r) {
    int a = (int) r.countRows();
    int b = (int) r.countColumns();
    double mean = 0;
    for (int i = 0; i < a; i++) {
      for (int j = 0; j < b; j++) {
        mean += Math.abs(r.doubleValue(i, j));
      }
    }
    double eta = Math.max(1e-6 * mean / ((double) a * b), Double.MIN_NORMAL);
    double[][] w = new double[a][b];
    for (int i = 0; i < a; i++) {
      for (int j = 0; j < b; j++) {
        w[i][j] = 1 / Math.max(Math.abs(r.doubleValue(i, j)), eta);
      }
    }
    return w;
  }

  /** argmin_P Σ_ab w_ab ((B_c P G)_ab − Z_ab)², P c×k, G k×w: (B_c P G)_ab = Σ_il B_c[a,i] P[i,l] G[l,b]. */
  private static MatrixStore<Double> solveLeft(MatrixStore<Double> bc, MatrixStore<Double> g,
      MatrixStore<Double> z, double[][] w) {
    int c = (int) bc.countColumns();
    int k = (int) g.countRows();
    return solve(c, k, (a, b, coef) -> {
      for (int i = 0; i < c; i++) {
        for (int l = 0; l < k; l++) {
          coef[i * k + l] = bc.doubleValue(a, i) * g.doubleValue(l, b);
        }
      }
    }, z, w);
  }

  /** argmin_Q Σ_ab w_ab ((H Q B_r)_ab − Z_ab)², Q k×r, H v×k. */
  private static MatrixStore<Double> solveRight(MatrixStore<Double> h, MatrixStore<Double> br,
      MatrixStore<Double> z, double[][] w) {
    int k = (int) h.countColumns();
    int r = (int) br.countRows();
    return solve(k, r, (a, b, coef) -> {
      for (int l = 0; l < k; l++) {
        for (int j = 0; j < r; j++) {
          coef[l * r + j] = h.doubleValue(a, l) * br.doubleValue(j, b);
        }
      }
    }, z, w);
  }

  private interface Row {
    void fill(int a, int b, double[] coef);
  }

  /** Weighted least squares over the rows×cols unknowns (row-major), by ridge normal equations. */
  private static MatrixStore<Double> solve(int rows, int cols, Row design, MatrixStore<Double> z,
      double[][] w) {
    int u = rows * cols;
    double[][] ata = new double[u][u];
    double[] atb = new double[u];
    double[] coef = new double[u];
    for (int a = 0; a < w.length; a++) {
      for (int b = 0; b < w[a].length; b++) {
        design.fill(a, b, coef);
        double wt = w[a][b];
        double zb = z.doubleValue(a, b);
        for (int x = 0; x < u; x++) {
          double cx = wt * coef[x];
          if (cx == 0) {
            continue;
          }
          atb[x] += cx * zb;
          double[] row = ata[x];
          for (int y = 0; y < u; y++) {
            row[y] += cx * coef[y];
          }
        }
      }
    }
    double trace = 0;
    for (int x = 0; x < u; x++) {
      trace += ata[x][x];
    }
    double ridge = 1e-12 * trace / u;
    for (int x = 0; x < u; x++) {
      ata[x][x] += ridge;
    }
    double[] sol = Linalg.solveSymmetric(ata, atb);
    R064Store out = R064Store.FACTORY.make(rows, cols);
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        out.set(i, j, sol[i * cols + j]);
      }
    }
    return out;
  }
}
