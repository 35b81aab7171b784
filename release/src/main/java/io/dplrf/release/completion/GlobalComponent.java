package io.dplrf.release.completion;

import io.dplrf.release.Pca;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.pca.AnalyzeGauss;
import io.dplrf.sketch.pca.AnalyzeGaussPlan;
import io.dplrf.sketch.pca.Gram;
import io.dplrf.sketch.pca.RowClipping;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.Arrays;

/**
 * The global component A_global of paper 004, Algorithm 1: from the residual rows
 * A_i = P_Ω(Y_i − Y*_i) of all users (inside the trusted process), the (noisy) top eigenvector
 * v̂ and eigenvalue λ̂² of W = Σ A_iᵀA_i. Three variants: exact (the non-private baseline), FULL
 * (Algorithm 1: W + N, N symmetric Gaussian, released through Analyze Gauss's exact grid
 * mechanism) and OJA (Algorithm 2). Each call t draws its noise from its own keystream label
 * {@code runLabel + "/t" + t}, so no noise is ever reused within or across runs (callers pass a
 * fresh run label). Not thread-safe.
 */
abstract class GlobalComponent {
  /** v̂ (unit, length d) and the released λ̂² (may be negative before clamping). */
  record Eigenpair(double[] v, double lambdaSquared) {}

  final Ratings ratings;
  final double rowBound; // 2L: ‖A_i‖ ≤ ‖P_Ω(Y_i)‖ + ‖P_Ω(Y*_i)‖ ≤ 2L

  GlobalComponent(Ratings ratings) {
    this.ratings = ratings;
    this.rowBound = 2 * ratings.clip();
  }

  /** The top eigenpair for FW iteration t (1-based) given all users' residuals on Ω. */
  abstract Eigenpair top(int t, double[] residual);

  /** σ of the released matrix/vector, for λ̂′ = λ̂ + √(σ log(d/β)) d^{1/4}; 0 when exact. */
  abstract double sigma();

  static GlobalComponent exact(Ratings ratings) {
    return new GlobalComponent(ratings) {
      @Override
      Eigenpair top(int t, double[] residual) {
        return topOf(gram(residual).toDense());
      }

      @Override
      double sigma() {
        return 0;
      }
    };
  }

  static GlobalComponent full(Ratings ratings, PrivacyParams privacy, GaussianSketchNoise noise,
      SecretKey key, String runLabel) {
    return new Full(ratings, privacy, noise, key, runLabel);
  }

  static GlobalComponent oja(Ratings ratings, CompletionPlan plan, SecretKey key,
      String runLabel) {
    return new Oja(ratings, plan, key, runLabel);
  }

  /** W = Σ A_iᵀA_i exactly (sketch-store {@link Gram}, rows clipped to 2L). NOT private. */
  Gram gram(double[] residual) {
    Gram g = new Gram(ratings.items(), rowBound);
    int[] cols = ratings.cols();
    for (int i = 0; i < ratings.users(); i++) {
      int s = ratings.start(i);
      int e = ratings.end(i);
      if (e > s) {
        g.addSparseRow(Arrays.copyOfRange(cols, s, e), Arrays.copyOfRange(residual, s, e));
      }
    }
    return g;
  }

  static Eigenpair topOf(Dense symmetric) {
    Pca.Subspace s = Pca.topEigenvectors(symmetric, 1);
    double[] v = new double[symmetric.rows()];
    for (int j = 0; j < v.length; j++) {
      v[j] = s.v().get(j, 0);
    }
    return new Eigenpair(v, s.eigenvalues()[0]);
  }

  /**
   * Algorithm 1's global step: Ŵ = W + N through Analyze Gauss's exact grid mechanism (the rows
   * are clipped to 2L inside {@link Gram}; the noise carries the replace-one-user sensitivity
   * 4√2·L² of {@link CompletionPlan}, not Analyze Gauss's add/remove C²), then the top eigenpair
   * of Ŵ (post-processing).
   */
  static final class Full extends GlobalComponent {
    private final AnalyzeGaussPlan plan;
    private final GaussianSketchNoise noise;
    private final SecretKey key;
    private final String runLabel;

    Full(Ratings ratings, PrivacyParams privacy, GaussianSketchNoise noise, SecretKey key,
        String runLabel) {
      super(ratings);
      this.plan = new AnalyzeGaussPlan(privacy, rowBound, ratings.items(), noise);
      this.noise = noise;
      this.key = key;
      this.runLabel = runLabel;
    }

    /** Ŵ^{(t)}: the released matrix. */
    Dense released(int t, double[] residual) {
      return AnalyzeGauss.release(plan, gram(residual), key, runLabel + "/t" + t).gram();
    }

    @Override
    Eigenpair top(int t, double[] residual) {
      return topOf(released(t, residual));
    }

    @Override
    double sigma() {
      return noise.sigma();
    }
  }

  /**
   * Algorithm 2 (private Oja): v̂_0 random, then Γ steps v̂ ← v̂ + η(W v̂ + g_τ), normalised,
   * with η = 1/(σ√(dΓ)) — Theorem 3.3's η = 1/√(VΓ) for V = σ²d (the pseudo-code's 1/(Γσ√d)
   * differs from the theorem it cites by √Γ; we follow the theorem). Each W v̂ is released
   * through {@link ExactSum}; λ̂² = Σ(A_i·v̂)² + N(0, σ_λ²).
   */
  static final class Oja extends GlobalComponent {
    private final CompletionPlan plan;
    private final SecretKey key;
    private final String runLabel;

    Oja(Ratings ratings, CompletionPlan plan, SecretKey key, String runLabel) {
      super(ratings);
      this.plan = plan;
      this.key = key;
      this.runLabel = runLabel;
    }

    @Override
    double sigma() {
      return plan.eigen().sigma();
    }

    @Override
    Eigenpair top(int t, double[] raw) {
      // The sensitivity 4L² (Weyl, docs/privacy/completion.md) needs ‖A_i‖ ≤ 2L, which the
      // projection Π_{L,Ω} gives only up to floating-point rounding: clip each user's residual
      // row to 2L here, as Gram does for the dense solver, so that no argument rests on it.
      double[] residual = clippedRows(raw);
      int d = ratings.items();
      int steps = plan.ojaSteps();
      RandomBits bits = KeyStream.of(key, runLabel + "/t" + t + "/oja").bits();
      double[] v = new double[d];
      GridGaussian.atLeast(1).fill(bits, v, 0, d); // v̂_0: data-independent direction
      normalize(v);
      double eta = 1 / (sigma() * Math.sqrt((double) d * steps));
      double bound = CompletionPlan.ojaBound(ratings.clip());
      int[] cols = ratings.cols();
      for (int tau = 0; tau < steps; tau++) {
        double[] released = matvec(residual, v).release(plan.eigen(), bits);
        for (int j = 0; j < d; j++) {
          v[j] += eta * released[j];
        }
        normalize(v);
      }
      ExactSum energy = new ExactSum(1, bound);
      for (int i = 0; i < ratings.users(); i++) {
        double w = dot(cols, residual, ratings.start(i), ratings.end(i) - ratings.start(i), v);
        energy.addNonNegative(w * w);
      }
      return new Eigenpair(v, energy.release(plan.lambda(), bits)[0]);
    }

    /** Each user's residual row scaled to ‖A_i‖₂ ≤ 2L ({@link RowClipping}, rounding down). */
    double[] clippedRows(double[] residual) {
      double[] out = residual.clone();
      for (int i = 0; i < ratings.users(); i++) {
        int s = ratings.start(i);
        int len = ratings.end(i) - s;
        double[] x = java.util.Arrays.copyOfRange(out, s, s + len);
        if (RowClipping.clipInPlace(x, rowBound)) {
          System.arraycopy(x, 0, out, s, len);
        }
      }
      return out;
    }

    /** The exact sum Σ_i A_iᵀ(A_i v̂), each term clipped to 4L² (NOT private until released). */
    ExactSum matvec(double[] residual, double[] v) {
      ExactSum sum = new ExactSum(ratings.items(), CompletionPlan.ojaBound(ratings.clip()));
      int[] cols = ratings.cols();
      double[] contribution = new double[ratings.maxPerUser()];
      for (int i = 0; i < ratings.users(); i++) {
        int s = ratings.start(i);
        int len = ratings.end(i) - s;
        double w = dot(cols, residual, s, len, v);
        for (int x = 0; x < len; x++) {
          contribution[x] = residual[s + x] * w; // A_iᵀ(A_i v̂) on Ω_i
        }
        sum.add(cols, s, contribution, len);
      }
      return sum;
    }
  }

  static double dot(int[] cols, double[] values, int off, int len, double[] v) {
    double s = 0;
    for (int x = 0; x < len; x++) {
      s += values[off + x] * v[cols[off + x]];
    }
    return s;
  }

  static void normalize(double[] v) {
    double n = RowClipping.norm(v);
    if (n > 0) {
      for (int j = 0; j < v.length; j++) {
        v[j] /= n;
      }
    }
  }
}
