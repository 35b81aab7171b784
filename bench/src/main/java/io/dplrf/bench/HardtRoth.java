package io.dplrf.bench;

import io.dplrf.release.Errors;
import io.dplrf.release.Factorization;
import io.dplrf.release.Pca;
import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.ChiSquare;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.lra.NoiseDerivation;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.GaussianMatrices;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.SecretKey;

/**
 * Hardt and Roth's private low-rank approximation [HR12] ("Beating randomized response on
 * incoherent matrices", STOC 2012), the baseline of paper 002's Figure 1 (§7), calibrated with
 * dplrf's own machinery for the neighbouring relation of the dplrf mechanism it is compared with.
 * A benchmark baseline: it holds the whole m×n matrix and reads it twice, so it is neither
 * streaming nor in the production jar.
 *
 * <h2>The algorithm</h2>
 *
 * HR12's own text is not among ../shared/papers; the steps below are read from paper 002's account
 * of it (§3, "we compare Theorem 2 only with these two results": a private version of Halko,
 * Martinsson and Tropp's two-stage randomized SVD, rank k + p with oversampling p and
 * multiplicative error √(1 + k/p); §8: "simple pruning of entries of a matrix formed in the
 * intermediate step"; its additive error Õ((√(km) + c·k·√n)/ε), c the largest entry of the
 * projection matrix). With ℓ = k + p, the step numbers are this class's:
 *
 * <pre>
 *   stage A, private range finder
 *     A1  Ω: n×ℓ, i.i.d. N(0, 1/ℓ), secret (keyed: label instance/omega)
 *     A2  Y = round_γ(AΩ) + N₁,       N₁ ~ γ·N_ℤ(0, s₁²)^{m×ℓ}
 *     A3  Q = orthonormal basis of the columns of Y          (m×ℓ; post-processing)
 *   stage B, private projection
 *     B1  Q̃ = Q with every entry |Q_ij| &gt; c set to 0       (the pruning; post-processing)
 *     B2  B = round_γ(Q̃ᵀA) + N₂,      N₂ ~ γ·N_ℤ(0, s₂²)^{ℓ×n}
 *     B3  output Q̃B (rank ℓ); we release its best rank-k part Q̃W·WᵀB, W the top-k
 *         eigenvectors of BBᵀ (post-processing), because Figure 1 compares rank-k factorizations
 * </pre>
 *
 * <h2>Calibration (the same rules as every dplrf mechanism)</h2>
 *
 * Neighbours differ by D with the relation's bound C. A2 and B2 are Gaussian mechanisms composed
 * adaptively (B2's sensitivity depends on Q̃, which A2 released): each is μ/√2-GDP, together
 * μ-GDP (Dong–Roth–Su Cor. 3.3; composition holds for adaptively chosen mechanisms whose μ is
 * fixed in advance), and μ is the largest value whose exact privacy profile (Balle–Wang 2018 Thm
 * 8, {@link AnalyticGaussian#mu}) meets (ε, δ − δ_JL). Noise is the exact discrete Gaussian on a
 * power-of-two grid, drawn from the keyed stream {@code instance/N1|N2} ({@link
 * GaussianSketchNoise}: the grid slack γ√(changed coordinates) is added to each sensitivity).
 *
 * <table>
 *   <caption>sensitivities</caption>
 *   <tr><th>relation (compared with)</th><th>A2: ‖DΩ‖_F ≤</th><th>B2: ‖Q̃ᵀD‖_F ≤</th></tr>
 *   <tr><td>rank one, D = C·u vᵀ (priv1)</td><td>C·√(q_χ²(δ_JL; ℓ)/ℓ): ℓ‖Ωᵀv‖² ~ χ²_ℓ for each
 *       fixed unit v (as {@code Priv1Plan}'s Yr)</td><td>C·‖Q̃‖₂</td></tr>
 *   <tr><td>Frobenius, ‖D‖_F ≤ C (priv2)</td><td>C·√c_χ²(δ_JL; ℓ), the Chernoff bound on a
 *       mixture of χ²_ℓ/ℓ (as {@code Priv2Plan}'s Y)</td><td>C·‖Q̃‖₂</td></tr>
 *   <tr><td>entrywise ℓ1, ‖D‖₁ ≤ C (priv2-sparse)</td><td>C·max_j ‖row j of Ω‖, exact for the
 *       drawn Ω, no δ_JL (docs/privacy/l1-units.md Lemma 1: the worst change is one entry)</td>
 *       <td>C·max_i ‖row i of Q̃‖</td></tr>
 * </table>
 *
 * The failure of a χ² bound (probability δ_JL = {@value #JL_DELTA_SHARE}·δ, dplrf's share) is
 * charged to δ by coupling both runs on the same Ω, as in {@code Priv1Plan} and {@code Priv2Plan}.
 * ‖Q̃‖₂ ≤ √(1 + ‖Q̃ᵀQ̃ − I‖_F) is computed from Q̃ (public after A2); with no pruning Q̃ = Q is
 * orthonormal and the bound is 1 up to rounding, covered by a 10⁻⁹ margin.
 *
 * <h2>Constants HR12 leaves free, and what we chose</h2>
 *
 * <ul>
 *   <li><b>Oversampling p</b> from the α of the comparison: HR12's multiplicative error is
 *       √(1 + k/p), so p = ⌈k/((1 + α)² − 1)⌉ targets the same 1 + α as dplrf's sketches at that α
 *       (at α = √2 − 1, the setting paper 002 §3 attributes to HR12, p = k).
 *   <li><b>Pruning level c</b> (B1): only the entrywise-ℓ1 relation gains from it (a row of Q̃ is
 *       all one entry of A can move; under rank-one and Frobenius neighbours any direction u can
 *       move, and ‖Q̃ᵀu‖ ≤ 1 however Q̃ is pruned), so c = ∞ there. Under ℓ1, c = √(2 ln(2mℓ)/m):
 *       the level that the largest of the mℓ entries of a uniformly random m×ℓ frame (entries
 *       ≈ N(0, 1/m), the incoherent case HR12 is built for) exceeds with probability about ½, so
 *       incoherent bases lose almost nothing while one coherent row cannot carry a sensitivity
 *       near 1.
 *   <li><b>Budget split</b> μ²/2 to each stage, as dplrf splits it between Y and Z.
 *   <li><b>Ω's scale</b> N(0, 1/ℓ), as dplrf's Gaussian Φ: immaterial, since it scales AΩ and
 *       A2's sensitivity alike (so σ₁ with them) and Q depends only on the range of Y.
 * </ul>
 *
 * <p>Not thread-safe; stateless between {@link #run} calls apart from its inputs.
 */
final class HardtRoth {
  /** δ_JL as a share of δ for the χ² bound of A2: dplrf's default ({@code Priv1Plan}). */
  static final double JL_DELTA_SHARE = 0.1;
  /** Margin on the computed ‖Q̃‖₂ bound for the rounding of its computation. */
  private static final double NORM_MARGIN = 1e-9;

  /**
   * What one run released and how it was calibrated.
   *
   * @param approximation Q̃W·WᵀB as (left m×k, right n×k): Ã = left·rightᵀ
   * @param rangeNoise A2's calibration (sensitivity, σ)
   * @param projectionNoise B2's calibration
   * @param rank ℓ = k + p
   * @param pruned entries B1 set to zero
   */
  record Result(Factorization approximation, GaussianSketchNoise rangeNoise,
      GaussianSketchNoise projectionNoise, int rank, long pruned) {
    double error(Dense a) {
      return Errors.frobeniusError(a, approximation);
    }
  }

  private final NeighbouringRelation relation;
  private final PrivacyParams privacy;
  private final double clip;
  private final int k;
  private final int oversampling;
  private final boolean noNoise;

  /**
   * @param relation rank-one, Frobenius or entrywise ℓ1 (the relations of priv1, priv2 and
   *     priv2-sparse)
   * @param noNoise NOT private: both stages without noise (to check the algebra)
   */
  HardtRoth(NeighbouringRelation relation, PrivacyParams privacy, double clip, int k,
      int oversampling, boolean noNoise) {
    Preconditions.check(relation == NeighbouringRelation.RANK_ONE
        || relation == NeighbouringRelation.FROBENIUS
        || relation == NeighbouringRelation.ENTRYWISE_L1, "relation",
        "rank-one, frobenius or entrywise-l1", relation);
    Preconditions.checkPositiveFinite("clip", clip);
    Preconditions.checkPositive("rank (k)", k);
    Preconditions.checkPositive("oversampling (p)", oversampling);
    this.relation = relation;
    this.privacy = privacy;
    this.clip = clip;
    this.k = k;
    this.oversampling = oversampling;
    this.noNoise = noNoise;
  }

  /** p = ⌈k/((1 + α)² − 1)⌉: HR12's √(1 + k/p) equal to 1 + α (class comment). */
  static int oversampling(int k, double alpha) {
    Preconditions.check(alpha > 0 && alpha < 1, "alpha", "in (0, 1)", alpha);
    return (int) Math.ceil(k / ((1 + alpha) * (1 + alpha) - 1) - 1e-9);
  }

  /** B1's pruning level c: ∞ unless entrywise ℓ1; there √(2 ln(2mℓ)/m) (class comment). */
  double pruneLevel(int m) {
    int l = k + oversampling;
    return relation == NeighbouringRelation.ENTRYWISE_L1
        ? Math.sqrt(2 * Math.log(2.0 * m * l) / m) : Double.POSITIVE_INFINITY;
  }

  /** μ of the whole mechanism: the analytic Gaussian's at (ε, δ − δ_JL) (class comment). */
  double mu() {
    double jl = relation == NeighbouringRelation.ENTRYWISE_L1 ? 0 : JL_DELTA_SHARE;
    return AnalyticGaussian.mu(privacy.epsilon(), privacy.delta() * (1 - jl));
  }

  /**
   * A2's sensitivity factor b (Δ = C·b) for an n×ℓ Ω given row-major ({@code omega}), by the
   * relation's row of the class comment's table.
   */
  double rangeFactor(double[] omega, int n) {
    int l = k + oversampling;
    double deltaJl = privacy.delta() * JL_DELTA_SHARE;
    return switch (relation) {
      case RANK_ONE -> Math.sqrt(ChiSquare.upperQuantile(deltaJl, l) / l);
      case FROBENIUS -> Math.sqrt(ChiSquare.chernoffQuantileOfMean(deltaJl, l));
      default -> maxRowNorm(omega, n, l);
    };
  }

  /** B2's sensitivity factor for Q̃ (m×ℓ, row-major), by the class comment's table. */
  double projectionFactor(double[] q, int m) {
    int l = k + oversampling;
    if (relation == NeighbouringRelation.ENTRYWISE_L1) {
      return maxRowNorm(q, m, l);
    }
    // λ_max(Q̃ᵀQ̃) ≤ 1 + ‖Q̃ᵀQ̃ − I‖_F (Weyl), computed from the public Q̃.
    double defect = 0;
    for (int a = 0; a < l; a++) {
      for (int b = 0; b < l; b++) {
        double s = 0;
        for (int i = 0; i < m; i++) {
          s += q[i * l + a] * q[i * l + b];
        }
        double e = s - (a == b ? 1 : 0);
        defect += e * e;
      }
    }
    return Math.sqrt(1 + Math.sqrt(defect) + NORM_MARGIN);
  }

  /**
   * Runs stages A and B on {@code a} with randomness keyed by {@code key} under {@code instance}
   * (a fresh instance per run: two runs must never share Ω or noise).
   */
  Result run(Dense a, SecretKey key, String instance) {
    int m = a.rows();
    int n = a.cols();
    int l = k + oversampling;
    Preconditions.check(l <= Math.min(m, n), "k + p", "<= min(m, n) = " + Math.min(m, n), l);
    double mu = mu();
    double muEach = mu / Math.sqrt(2); // μ²/2 per stage (class comment)
    // A1: Ω (n×ℓ) row-major, read as the columns of the keyed ℓ×n matrix Ωᵀ.
    double[] omega = new double[n * l];
    GaussianMatrices.gaussian(key, instance + "/omega", l, n, 1 / Math.sqrt(l))
        .columns(0, n, omega);
    // A2: Y = round(AΩ) + N₁.
    GaussianSketchNoise n1 = GaussianSketchNoise.calibrate("Y = A Omega + N1",
        clip * rangeFactor(omega, n), (long) m * l, muEach);
    double[] y = multiply(a.data(), m, n, omega, l);
    addNoise(y, n1, key, instance + "/N1");
    // A3: Q.
    double[] q = Pca.orthonormalColumns(new Dense(m, l, y)).data();
    // B1: prune.
    double c = pruneLevel(m);
    long pruned = 0;
    for (int e = 0; e < q.length; e++) {
      if (Math.abs(q[e]) > c) {
        q[e] = 0;
        pruned++;
      }
    }
    // B2: B = round(Q̃ᵀA) + N₂ (ℓ×n).
    // A fully pruned Q̃ makes B2's query 0; any upper bound is a valid sensitivity, and the
    // floor 2⁻⁴⁰ keeps σ within the grid's range.
    GaussianSketchNoise n2 = GaussianSketchNoise.calibrate("B = Q~^T A + N2",
        clip * Math.max(projectionFactor(q, m), 0x1.0p-40), (long) l * n, muEach);
    double[] b = transposeTimes(q, m, l, a.data(), n);
    addNoise(b, n2, key, instance + "/N2");
    // B3: the best rank-k part of Q̃B, Q̃W·WᵀB with W the top-k eigenvectors of BBᵀ.
    Dense bbt = new Dense(l, l);
    for (int r = 0; r < l; r++) {
      for (int s = r; s < l; s++) {
        double sum = 0;
        for (int j = 0; j < n; j++) {
          sum += b[r * n + j] * b[s * n + j];
        }
        bbt.set(r, s, sum);
        bbt.set(s, r, sum);
      }
    }
    double[] w = Pca.topEigenvectors(bbt, k).v().data(); // ℓ×k
    double[] left = multiply(q, m, l, w, k); // Q̃W, m×k
    double[] right = new double[n * k]; // (WᵀB)ᵀ = BᵀW, n×k
    for (int r = 0; r < l; r++) {
      for (int j = 0; j < n; j++) {
        double x = b[r * n + j];
        for (int c2 = 0; c2 < k; c2++) {
          right[j * k + c2] += x * w[r * k + c2];
        }
      }
    }
    double[] ones = new double[k];
    java.util.Arrays.fill(ones, 1.0);
    return new Result(new Factorization(new Dense(m, k, left), ones, new Dense(n, k, right)),
        n1, n2, l, pruned);
  }

  private void addNoise(double[] dst, GaussianSketchNoise noise, SecretKey key, String label) {
    if (noNoise) {
      return;
    }
    GridGaussian grid = noise.grid();
    GridGaussian.roundToGrid(dst, grid.gamma());
    grid.addTo(NoiseDerivation.CURRENT.sampler(), KeyStream.of(key, label).bits(), dst, 0,
        dst.length);
  }

  /** (rows×inner)·(inner×cols), both row-major. */
  static double[] multiply(double[] x, int rows, int inner, double[] y, int cols) {
    double[] out = new double[rows * cols];
    for (int i = 0; i < rows; i++) {
      int o = i * cols;
      for (int p = 0; p < inner; p++) {
        double v = x[i * inner + p];
        if (v == 0) {
          continue;
        }
        int yo = p * cols;
        for (int j = 0; j < cols; j++) {
          out[o + j] += v * y[yo + j];
        }
      }
    }
    return out;
  }

  /** Xᵀ·Y for X rows×a and Y rows×b, both row-major: a×b. */
  static double[] transposeTimes(double[] x, int rows, int a, double[] y, int b) {
    double[] out = new double[a * b];
    for (int i = 0; i < rows; i++) {
      for (int p = 0; p < a; p++) {
        double v = x[i * a + p];
        if (v == 0) {
          continue;
        }
        int o = p * b;
        int yo = i * b;
        for (int j = 0; j < b; j++) {
          out[o + j] += v * y[yo + j];
        }
      }
    }
    return out;
  }

  /**
   * An upper bound of the largest row norm of a rows×cols row-major matrix: the computed maximum
   * times 1 + (cols + 2)·2⁻⁵² and rounded up, the rounding bound {@code Priv2Matrices} uses.
   */
  static double maxRowNorm(double[] x, int rows, int cols) {
    double max = 0;
    for (int i = 0; i < rows; i++) {
      double s = 0;
      for (int j = 0; j < cols; j++) {
        double v = x[i * cols + j];
        s += v * v;
      }
      max = Math.max(max, s);
    }
    return Math.nextUp(Math.sqrt(max) * (1 + (cols + 2) * 0x1.0p-52));
  }
}
