package io.dplrf.sketch.factorization;

import static io.dplrf.sketch.params.Preconditions.check;

/**
 * Chooses BLT parameters for a stream of T epochs by minimising the max loss
 * sens²(T)·Σ_{k<T} b_k² ({@link ToeplitzFactorization#maxLoss}), the objective of [1] §5 and of
 * jax_privacy's {@code buffered_toeplitz.optimize} for one participation, from the public (T, d)
 * alone (docs/privacy/blt-factorization.md §4).
 *
 * <p><b>Search space.</b> As jax_privacy's "buffer-decay pair" parametrisation ([1] Lemma 5.2,
 * [3] Theorem 2): the 2d decays of C and C⁻¹, interlaced 1 &gt; θ_1 &gt; θ̂_1 &gt; … &gt; θ_d &gt;
 * θ̂_d &gt; 0, determine both scale vectors in closed form. Every interlaced point is a valid
 * {@link BltParameters} and every valid parameter set is one (the roots of
 * {@link BltFactorization}), so the search is unconstrained in p ∈ ℝ^{2d}: the k-th smallest
 * distance a_k = 1 − (k-th largest decay) is a_k = 1 − e^{−z_k}, ln z_1 = p_1,
 * ln z_k = ln z_{k−1} + e^{p_k}. The objective is ln(max loss), smooth in p.
 *
 * <p><b>Method.</b> BFGS with central-difference gradients (step 1e−5 in p; the closed forms are
 * accurate to ~1e−13 relative, so the gradient to ~1e−8), an Armijo backtracking line search
 * with steps capped at 4 in max-norm; the update is skipped when sᵀy ≤ 0, and a failed step
 * restarts from steepest descent. Start: the z_k geometric from 1/(2T) to 1. Stop: after
 * {@link #MAX_ITERATIONS} iterations, or when an iteration improves the loss by less than
 * 1e−13 relative, or when no step from steepest descent decreases it. No randomness;
 * {@code StrictMath} throughout and a fixed sequence of IEEE operations, so the result is
 * bit-identical on every JVM.
 *
 * <p>Cost: O(d²) per loss evaluation, independent of T; 2–110 ms per call for d ≤ 5 and any
 * T ≤ 2^30, JIT warm-up included (docs §5). Stateless and thread-safe.
 */
public final class BltOptimizer {
  /** The most buffers {@link #optimize(int)} considers. */
  public static final int MAX_CHOSEN_BUFFERS = 5;

  /** {@link #optimize(int)} takes the fewest buffers within this factor of the best loss. */
  static final double BUFFER_TOLERANCE = 1.01;

  static final int MAX_ITERATIONS = 400;
  private static final double STEP = 1e-5;
  private static final double MAX_STEP = 4;
  private static final double ARMIJO = 1e-4;
  private static final double RELATIVE_TOLERANCE = 1e-13;

  private BltOptimizer() {}

  /**
   * The optimised parameters with the fewest buffers d ≤ {@link #MAX_CHOSEN_BUFFERS} whose max
   * loss is within 1% of the optimum with 5 buffers (docs/privacy/blt-factorization.md §5 lists
   * the d chosen per T). Each buffer costs two arrays of the vector's length (one in the encoder,
   * one in the decoder).
   */
  public static BltParameters optimize(int epochs) {
    BltParameters best = optimize(epochs, MAX_CHOSEN_BUFFERS);
    double bound = BUFFER_TOLERANCE * ToeplitzFactorization.blt(best).maxLoss(epochs);
    for (int d = 1; d < MAX_CHOSEN_BUFFERS; d++) {
      BltParameters p = optimize(epochs, d);
      if (ToeplitzFactorization.blt(p).maxLoss(epochs) <= bound) {
        return p;
      }
    }
    return best;
  }

  /**
   * BLT parameters with {@code buffers} buffers minimising the max loss over {@code epochs}
   * epochs (a local minimum reached from the fixed start; docs §5 compares it with the
   * √-factorization).
   */
  public static BltParameters optimize(int epochs, int buffers) {
    ToeplitzFactorization.checkEpochs(epochs);
    check(buffers >= 1 && buffers <= BltParameters.MAX_BUFFERS, "buffers",
        "in [1, " + BltParameters.MAX_BUFFERS + "]", buffers);
    double[] p = minimize(epochs, start(epochs, buffers));
    return decode(p).parameters();
  }

  /** z_k geometric from 1/(2T) to 1, as p. */
  static double[] start(int epochs, int buffers) {
    int n = 2 * buffers;
    double lo = StrictMath.log(0.5 / epochs);
    double gap = -lo / (n - 1);
    double[] p = new double[n];
    p[0] = lo;
    for (int k = 1; k < n; k++) {
      p[k] = StrictMath.log(gap);
    }
    return p;
  }

  /** The interlaced pair of p, or null where rounding takes it out of the validated class. */
  static BltFactorization decode(double[] p) {
    int n = p.length;
    double[] a = new double[n];
    double y = p[0];
    for (int k = 0; k < n; k++) {
      if (k > 0) {
        y += StrictMath.exp(p[k]);
      }
      double z = StrictMath.exp(y);
      a[k] = -StrictMath.expm1(-z);
      // Both a and the decay 1 − a must stay strictly ordered inside (0, 1) after rounding.
      double decay = 1 - a[k];
      if (!(a[k] > 0 && decay > 0 && decay < 1) || k > 0 && !(decay < 1 - a[k - 1])) {
        return null;
      }
    }
    double[] u = new double[n / 2];
    double[] uHat = new double[n / 2];
    for (int i = 0; i < n / 2; i++) {
      u[i] = a[2 * i];
      uHat[i] = a[2 * i + 1];
    }
    BltFactorization f = BltFactorization.ofDecays(u, uHat);
    try {
      // Rounding can still break the class near its edge (Σ ω/θ = 1 − Πθ̂/Πθ when θ̂_d → 0).
      f.parameters();
    } catch (IllegalArgumentException e) {
      return null;
    }
    return f;
  }

  /** ln(max loss) at p; +∞ where p does not decode. */
  static double objective(int epochs, double[] p) {
    BltFactorization f = decode(p);
    if (f == null) {
      return Double.POSITIVE_INFINITY;
    }
    double loss = f.maxLoss(epochs);
    return loss > 0 ? StrictMath.log(loss) : Double.POSITIVE_INFINITY;
  }

  private static double[] gradient(int epochs, double[] p, double[] g) {
    double[] q = p.clone();
    for (int k = 0; k < p.length; k++) {
      q[k] = p[k] + STEP;
      double up = objective(epochs, q);
      q[k] = p[k] - STEP;
      double down = objective(epochs, q);
      q[k] = p[k];
      g[k] = (up - down) / (2 * STEP);
    }
    return g;
  }

  static double[] minimize(int epochs, double[] start) {
    int n = start.length;
    double[] x = start.clone();
    double f = objective(epochs, x);
    check(f < Double.POSITIVE_INFINITY, "start", "a valid BLT", f);
    double[] g = gradient(epochs, x, new double[n]);
    double[][] h = identity(n);
    boolean fresh = true;
    double[] dir = new double[n];
    double[] next = new double[n];
    double[] gNext = new double[n];
    for (int iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
      double slope = 0;
      for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++) {
          s -= h[i][j] * g[j];
        }
        dir[i] = s;
        slope += s * g[i];
      }
      if (!(slope < 0)) {
        if (fresh) {
          break;
        }
        h = identity(n);
        fresh = true;
        iteration--;
        continue;
      }
      double norm = 0;
      for (int i = 0; i < n; i++) {
        norm = Math.max(norm, Math.abs(dir[i]));
      }
      double step = Math.min(1, MAX_STEP / norm);
      double fNext = Double.NaN;
      boolean accepted = false;
      for (int halving = 0; halving < 60; halving++) {
        for (int i = 0; i < n; i++) {
          next[i] = x[i] + step * dir[i];
        }
        fNext = objective(epochs, next);
        if (fNext <= f + ARMIJO * step * slope) {
          accepted = true;
          break;
        }
        step /= 2;
      }
      if (!accepted) {
        if (fresh) {
          break;
        }
        h = identity(n);
        fresh = true;
        continue;
      }
      gradient(epochs, next, gNext);
      double[] s = new double[n];
      double[] y = new double[n];
      double sy = 0;
      for (int i = 0; i < n; i++) {
        s[i] = next[i] - x[i];
        y[i] = gNext[i] - g[i];
        sy += s[i] * y[i];
      }
      double improvement = f - fNext;
      System.arraycopy(next, 0, x, 0, n);
      System.arraycopy(gNext, 0, g, 0, n);
      f = fNext;
      if (sy > 0) {
        update(h, s, y, sy);
        fresh = false;
      }
      if (improvement <= RELATIVE_TOLERANCE * Math.max(1, Math.abs(f))) {
        break;
      }
    }
    return x;
  }

  /** The BFGS inverse-Hessian update H ← (I − ρsyᵀ)H(I − ρysᵀ) + ρssᵀ, ρ = 1/(sᵀy). */
  private static void update(double[][] h, double[] s, double[] y, double sy) {
    int n = s.length;
    double rho = 1 / sy;
    double[] hy = new double[n];
    double yhy = 0;
    for (int i = 0; i < n; i++) {
      double t = 0;
      for (int j = 0; j < n; j++) {
        t += h[i][j] * y[j];
      }
      hy[i] = t;
      yhy += y[i] * t;
    }
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        h[i][j] += -rho * (hy[i] * s[j] + s[i] * hy[j]) + (rho * rho * yhy + rho) * s[i] * s[j];
      }
    }
  }

  private static double[][] identity(int n) {
    double[][] h = new double[n][n];
    for (int i = 0; i < n; i++) {
      h[i][i] = 1;
    }
    return h;
  }
}
