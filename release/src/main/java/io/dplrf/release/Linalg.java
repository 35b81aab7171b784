package io.dplrf.release;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.randomness.SparseSignMatrix;
import org.ojalgo.function.constant.PrimitiveMath;
import org.ojalgo.matrix.decomposition.QR;
import org.ojalgo.matrix.decomposition.SingularValue;
import org.ojalgo.matrix.store.MatrixStore;
import org.ojalgo.matrix.store.R064Store;

/**
 * The ojAlgo glue of the release step: conversions between {@link Dense} (row-major) and ojAlgo
 * stores (column-major), streamed products with {@link SketchMatrix}, orthonormal bases, economy
 * SVDs and the pseudo-inverse of a diagonal. Stateless and thread-safe.
 */
final class Linalg {
  /** Columns of a sketching matrix generated at a time: bounds the buffer to rows·256 doubles. */
  static final int BLOCK = 256;

  private Linalg() {}

  /** An economy SVD a = u · diag(s) · vᵀ, s descending. */
  record Svd(MatrixStore<Double> u, double[] s, MatrixStore<Double> v) {
    int rank() {
      return s.length;
    }

    /** The leading k singular triplets (k may exceed the rank: missing values are dropped). */
    Svd top(int k) {
      int r = Math.min(k, s.length);
      double[] sk = java.util.Arrays.copyOf(s, r);
      return new Svd(u.limits(u.countRows(), r), sk, v.limits(v.countRows(), r));
    }

    /** u · diag(s) · vᵀ. */
    MatrixStore<Double> reconstruct() {
      return scaleColumns(u, s).multiply(v.transpose());
    }
  }

  /** A column-major copy of {@code d}. */
  static R064Store copyOf(Dense d) {
    int rows = d.rows();
    int cols = d.cols();
    R064Store out = R064Store.FACTORY.make(rows, cols);
    double[] src = d.data();
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        out.set(i, j, src[i * cols + j]);
      }
    }
    return out;
  }

  /**
   * dᵀ without copying: a row-major rows×cols array read column-major is the cols×rows
   * transpose. The store shares {@code d}'s array; ojAlgo decompositions and products only read
   * it.
   */
  static R064Store transposeView(Dense d) {
    return R064Store.wrap(d.data(), d.cols());
  }

  static Dense toDense(MatrixStore<Double> a) {
    int rows = Math.toIntExact(a.countRows());
    int cols = Math.toIntExact(a.countColumns());
    Dense out = new Dense(rows, cols);
    double[] dst = out.data();
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        dst[i * cols + j] = a.doubleValue(i, j);
      }
    }
    return out;
  }

  /**
   * S·Q for a regenerated sketching matrix S (v×c) and a c×t store Q, streaming S in blocks of
   * {@link #BLOCK} columns: S·Q = Σ_blocks S[:, b] · Q[b, :]. S is never held whole (T in
   * Algorithm 1 is v×(m+n) with m+n up to 10⁵–10⁶).
   */
  static R064Store sketchTimes(SketchMatrix s, MatrixStore<Double> q) {
    int v = s.rows();
    int c = s.cols();
    int t = Math.toIntExact(q.countColumns());
    if (q.countRows() != c) {
      throw new IllegalArgumentException(
          "shape mismatch " + v + "x" + c + " times " + q.countRows() + "x" + t);
    }
    if (s instanceof SparseSignMatrix sparse) {
      return sparseTimes(sparse, q);
    }
    R064Store acc = R064Store.FACTORY.make(v, t);
    double[] full = new double[v * BLOCK];
    for (int from = 0; from < c; from += BLOCK) {
      int to = Math.min(c, from + BLOCK);
      int b = to - from;
      double[] buf = b == BLOCK ? full : new double[v * b];
      s.columns(from, to, buf); // column-major v×b, exactly ojAlgo's layout
      R064Store sBlock = R064Store.wrap(buf, v);
      R064Store qBlock = R064Store.FACTORY.make(b, t);
      for (int j = 0; j < t; j++) {
        for (int i = 0; i < b; i++) {
          qBlock.set(i, j, q.doubleValue(from + i, j));
        }
      }
      acc.modifyMatching(PrimitiveMath.ADD, sBlock.multiply(qBlock));
    }
    return acc;
  }

  /**
   * S·Q for a sparse sign matrix: Σ_i S[:, i] ⊗ Q[i, :] over the s non-zeros of each column, O(c·s·t)
   * instead of the dense O(v·c·t) (the released sparse Priv2 sketch's S is 400 × 100,000 with 4
   * non-zeros per column).
   */
  private static R064Store sparseTimes(SparseSignMatrix s, MatrixStore<Double> q) {
    int v = s.rows();
    int c = s.cols();
    int t = Math.toIntExact(q.countColumns());
    int nz = s.nonZerosPerColumn();
    double[] acc = new double[v * t]; // column-major v×t
    double[] qi = new double[t];
    for (int i = 0; i < c; i++) {
      for (int j = 0; j < t; j++) {
        qi[j] = q.doubleValue(i, j);
      }
      for (int b = 0; b < nz; b++) {
        int row = s.row(i, b);
        double e = s.entry(i, b);
        for (int j = 0; j < t; j++) {
          acc[j * v + row] += e * qi[j];
        }
      }
    }
    return R064Store.wrap(acc, v);
  }

  /** Columns of the output kept in cache together by {@link #transposeTimes}. */
  private static final int TRANSPOSE_BLOCK = 1024;

  /**
   * dᵀ·m for a row-major r×c array d and an r×p store m, as Σ_b d[b, :]ᵀ ⊗ m[b, :]: every row of d
   * is read once, contiguously, into a block of the output that stays in cache. (ojAlgo's product
   * of {@link #transposeView}(d) with m reads each row of dᵀ with stride c instead: ≈ 3 s for the
   * 100,000 × 400 Zᵀ of a 100k×100k Priv2 release.)
   */
  static R064Store transposeTimes(Dense d, MatrixStore<Double> m) {
    int r = d.rows();
    int c = d.cols();
    int p = Math.toIntExact(m.countColumns());
    if (m.countRows() != r) {
      throw new IllegalArgumentException(
          "shape mismatch (" + r + "x" + c + ")^T times " + m.countRows() + "x" + p);
    }
    double[] a = d.data();
    double[] w = new double[r * p];
    for (int b = 0; b < r; b++) {
      for (int k = 0; k < p; k++) {
        w[b * p + k] = m.doubleValue(b, k);
      }
    }
    double[] out = new double[c * p]; // column-major c×p
    for (int j0 = 0; j0 < c; j0 += TRANSPOSE_BLOCK) {
      int j1 = Math.min(c, j0 + TRANSPOSE_BLOCK);
      int b = 0;
      // Four rows of d per sweep of the output block: a third fewer CPU seconds than one row
      // (4 multiply-adds per load and store of the output; 0.40 → 0.26 s for 400 × 100,000).
      for (; b + 4 <= r; b += 4) {
        int r0 = b * c;
        int r1 = r0 + c;
        int r2 = r1 + c;
        int r3 = r2 + c;
        for (int k = 0; k < p; k++) {
          double x0 = w[b * p + k];
          double x1 = w[(b + 1) * p + k];
          double x2 = w[(b + 2) * p + k];
          double x3 = w[(b + 3) * p + k];
          int col = k * c;
          for (int j = j0; j < j1; j++) {
            out[col + j] += x0 * a[r0 + j] + x1 * a[r1 + j] + x2 * a[r2 + j] + x3 * a[r3 + j];
          }
        }
      }
      for (; b < r; b++) {
        int row = b * c;
        for (int k = 0; k < p; k++) {
          double x = w[b * p + k];
          int col = k * c;
          for (int j = j0; j < j1; j++) {
            out[col + j] += x * a[row + j];
          }
        }
      }
    }
    return R064Store.wrap(out, c);
  }

  /**
   * Widest panel handed to ojAlgo's QR: for tall inputs with more than 64 columns ojAlgo 57
   * picks its row-major RawQR, which is cache-hostile there (≈ 80 s for 200,000×100, against
   * under a second for its column-major DenseQR at ≤ 64 columns).
   */
  static final int PANEL = 64;

  /**
   * An orthonormal basis (rows×cols) of the column space of a (rows ≥ cols), by block
   * Gram–Schmidt with re-orthogonalisation (BCGS2) over Householder-QR panels of at most
   * {@link #PANEL} columns. Each panel is projected off the basis so far twice ("twice is
   * enough", Giraud et al. 2005), then orthonormalised by Householder QR. Householder Q is
   * orthonormal even for a rank-deficient panel; its columns are then projected and
   * orthonormalised once more, so the extra columns span an arbitrary complement, which later
   * steps weigh by zero.
   */
  static MatrixStore<Double> orthonormalColumns(MatrixStore<Double> a) {
    long rows = a.countRows();
    int cols = Math.toIntExact(a.countColumns());
    if (rows < cols) {
      throw new IllegalArgumentException(
          "need rows >= cols for a column basis, got " + rows + "x" + cols);
    }
    if (cols <= PANEL) {
      return R064Store.FACTORY.copy(householderQ(a));
    }
    R064Store basis = R064Store.FACTORY.make(rows, cols);
    for (int from = 0; from < cols; from += PANEL) {
      int to = Math.min(cols, from + PANEL);
      MatrixStore<Double> panel = R064Store.FACTORY.copy(a.offsets(0, from).limits(rows, to - from));
      MatrixStore<Double> q = from == 0 ? householderQ(panel) : projectAndQ(basis, from, panel);
      for (int j = 0; j < to - from; j++) {
        for (long i = 0; i < rows; i++) {
          basis.set(i, from + j, q.doubleValue(i, j));
        }
      }
    }
    return basis;
  }

  /** Q of the panel after projecting off basis[:, 0..done), re-done once on Q itself. */
  private static MatrixStore<Double> projectAndQ(R064Store basis, int done, MatrixStore<Double> p) {
    MatrixStore<Double> b = basis.limits(basis.countRows(), done);
    MatrixStore<Double> x = p;
    for (int pass = 0; pass < 2; pass++) {
      x = x.subtract(b.multiply(b.transpose().multiply(x)));
    }
    MatrixStore<Double> q = householderQ(R064Store.FACTORY.copy(x));
    // Guards rank-deficient panels: Householder completes them with directions that need not
    // be orthogonal to the basis; one more projection and QR fixes that (and costs little).
    q = q.subtract(b.multiply(b.transpose().multiply(q)));
    return householderQ(R064Store.FACTORY.copy(q));
  }

  private static MatrixStore<Double> householderQ(MatrixStore<Double> a) {
    QR<Double> qr = QR.R064.make(a, false);
    if (!qr.decompose(a)) {
      throw new ArithmeticException("QR decomposition failed");
    }
    return qr.getQ();
  }

  /** Householder QR, economy size; returns {Q, R}. */
  static MatrixStore<Double>[] qr(MatrixStore<Double> a) {
    QR<Double> qr = QR.R064.make(a, false);
    if (!qr.decompose(a)) {
      throw new ArithmeticException("QR decomposition failed");
    }
    @SuppressWarnings("unchecked")
    MatrixStore<Double>[] out = new MatrixStore[] {qr.getQ(), qr.getR()};
    return out;
  }

  /** Economy SVD; a wide matrix is decomposed through its transpose. */
  static Svd svd(MatrixStore<Double> a) {
    if (a.countRows() < a.countColumns()) {
      Svd t = svd(a.transpose());
      return new Svd(t.v(), t.s(), t.u());
    }
    SingularValue<Double> svd = SingularValue.R064.make(a, false);
    if (!svd.decompose(a)) {
      throw new ArithmeticException("SVD failed");
    }
    double[] s = svd.getSingularValues().toRawCopy1D();
    for (int i = 0; i < s.length; i++) {
      s[i] = Math.max(0.0, s[i]); // guard against -0.0 and rounding below zero
    }
    return new Svd(svd.getU(), s, svd.getV());
  }

  /** [a]_k: the best rank-k approximation (Eckart–Young), via the SVD. */
  static MatrixStore<Double> bestRankK(MatrixStore<Double> a, int k) {
    return svd(a).top(k).reconstruct();
  }

  /**
   * The pseudo-inverse of diag(s) for a matrix of the given shape: 1/s_i above the usual
   * numerical-rank cut max(rows, cols)·ε·s_max (as numpy's pinv), 0 below it.
   */
  static double[] pinv(double[] s, long rows, long cols) {
    double max = s.length == 0 ? 0 : s[0];
    double tol = Math.max(rows, cols) * Math.ulp(1.0) * max;
    double[] inv = new double[s.length];
    for (int i = 0; i < s.length; i++) {
      inv[i] = s[i] > tol ? 1.0 / s[i] : 0.0;
    }
    return inv;
  }

  /** The smallest singular value that {@link #pinv} inverts (∞ if none). */
  static double smallestInverted(double[] s, long rows, long cols) {
    double[] inv = pinv(s, rows, cols);
    double min = Double.POSITIVE_INFINITY;
    for (int i = 0; i < s.length; i++) {
      if (inv[i] != 0) {
        min = Math.min(min, s[i]);
      }
    }
    return min;
  }

  /** a · diag(f), a copy. */
  static R064Store scaleColumns(MatrixStore<Double> a, double[] f) {
    R064Store out = R064Store.FACTORY.copy(a);
    int rows = Math.toIntExact(a.countRows());
    for (int j = 0; j < f.length; j++) {
      for (int i = 0; i < rows; i++) {
        out.set(i, j, out.doubleValue(i, j) * f[j]);
      }
    }
    return out;
  }

  /**
   * Turns left · diag(s) · rightᵀ, with left having orthonormal columns but right not, into an
   * exact SVD-form factorization with orthonormal U and V: right = Qw Rw (QR), so the product is
   * left · (diag(s) Rwᵀ) · Qwᵀ; the k×k core diag(s) Rwᵀ = Uc Σc Vcᵀ (SVD) gives U = left Uc,
   * Σ = Σc, V = Qw Vc. The represented matrix is unchanged up to rounding.
   */
  static Factorization rebalance(MatrixStore<Double> left, double[] s, MatrixStore<Double> right) {
    MatrixStore<Double>[] qr = qr(right);
    MatrixStore<Double> core = scaleRows(qr[1].transpose(), s);
    Svd c = svd(core);
    return factorization(left.multiply(c.u()), c.s(), qr[0].multiply(c.v()));
  }

  /** diag(f) · a, a copy. */
  static R064Store scaleRows(MatrixStore<Double> a, double[] f) {
    R064Store out = R064Store.FACTORY.copy(a);
    int cols = Math.toIntExact(a.countColumns());
    for (int i = 0; i < f.length; i++) {
      for (int j = 0; j < cols; j++) {
        out.set(i, j, out.doubleValue(i, j) * f[i]);
      }
    }
    return out;
  }

  static Factorization factorization(MatrixStore<Double> u, double[] s, MatrixStore<Double> v) {
    return new Factorization(toDense(u), s, toDense(v));
  }

  /**
   * Solves A x = b for a symmetric positive-definite A by Cholesky (A is overwritten). Small
   * systems only (the normal equations of {@link SketchedL1}).
   *
   * @throws ArithmeticException if A is not numerically positive definite
   */
  static double[] solveSymmetric(double[][] a, double[] b) {
    int n = b.length;
    for (int j = 0; j < n; j++) {
      double d = a[j][j];
      for (int l = 0; l < j; l++) {
        d -= a[j][l] * a[j][l];
      }
      if (!(d > 0)) {
        throw new ArithmeticException("matrix is not positive definite (pivot " + j + ")");
      }
      a[j][j] = Math.sqrt(d);
      for (int i = j + 1; i < n; i++) {
        double s = a[i][j];
        for (int l = 0; l < j; l++) {
          s -= a[i][l] * a[j][l];
        }
        a[i][j] = s / a[j][j];
      }
    }
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      double s = b[i];
      for (int l = 0; l < i; l++) {
        s -= a[i][l] * y[l];
      }
      y[i] = s / a[i][i];
    }
    for (int i = n - 1; i >= 0; i--) {
      double s = y[i];
      for (int l = i + 1; l < n; l++) {
        s -= a[l][i] * y[l];
      }
      y[i] = s / a[i][i];
    }
    return y;
  }
}
