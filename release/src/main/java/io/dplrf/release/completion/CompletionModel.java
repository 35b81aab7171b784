package io.dplrf.release.completion;

import java.util.Arrays;
import java.util.Objects;

/**
 * The public output of (private) Frank–Wolfe matrix completion — paper 004's billboard: the
 * sequence of noisy top eigenvectors v̂_1..v̂_T (item factors) and the step scales λ̂′_1..λ̂′_T,
 * with the public hyper-parameters (d, ξ, L, k, T) and training {@link CompletionDiagnostics}.
 * Everything here is public under joint DP (docs/privacy/completion.md §4); no user's row is
 * stored.
 *
 * <p>{@link #predictUser} is the local component A_local: it rebuilds one user's completed row
 * from that user's own ratings and this public model only. Immutable and thread-safe.
 */
public final class CompletionModel {
  private final int items;
  private final int maxRatingsPerUser;
  private final double clip;
  private final double nuclearNorm;
  private final double[][] factors; // T × d: v̂_t
  private final double[] lambdaPrime; // λ̂′_t
  private final CompletionDiagnostics diagnostics;

  private CompletionModel(int items, int maxRatingsPerUser, double clip, double nuclearNorm,
      double[][] factors, double[] lambdaPrime, CompletionDiagnostics diagnostics) {
    this.items = items;
    this.maxRatingsPerUser = maxRatingsPerUser;
    this.clip = clip;
    this.nuclearNorm = nuclearNorm;
    this.factors = factors;
    this.lambdaPrime = lambdaPrime;
    this.diagnostics = diagnostics;
  }

  /**
   * A model from its public parts (also for restoring a stored model).
   *
   * @param factors T rows of length d: v̂_1..v̂_T
   * @param lambdaPrime λ̂′_1..λ̂′_T
   */
  public static CompletionModel of(int items, int maxRatingsPerUser, double clip,
      double nuclearNorm, double[][] factors, double[] lambdaPrime,
      CompletionDiagnostics diagnostics) {
    Objects.requireNonNull(diagnostics, "diagnostics");
    if (factors.length == 0 || factors.length != lambdaPrime.length) {
      throw new IllegalArgumentException("need T >= 1 factors and as many step scales, got "
          + factors.length + " and " + lambdaPrime.length);
    }
    double[][] copy = new double[factors.length][];
    for (int t = 0; t < factors.length; t++) {
      if (factors[t].length != items) {
        throw new IllegalArgumentException(
            "factor " + t + " has length " + factors[t].length + ", expected d = " + items);
      }
      copy[t] = factors[t].clone();
    }
    return new CompletionModel(items, maxRatingsPerUser, clip, nuclearNorm, copy,
        lambdaPrime.clone(), diagnostics);
  }

  /**
   * User i's completed entries at {@code queryItems}, computed from her own ratings (in arrival
   * order; the ξ and L policy of {@link Ratings} is applied) and the public model only: the T
   * local updates of Algorithm 1 replayed, then Y_i^{(T)}[j] = Σ_t c_t v̂_t[j].
   *
   * @throws IllegalArgumentException on an item id outside [0, d) or a non-finite rating
   */
  public double[] predictUser(int[] items, double[] values, int[] queryItems) {
    double[] coef = coefficients(items, values);
    double[] out = new double[queryItems.length];
    for (int q = 0; q < queryItems.length; q++) {
      int j = queryItems[q];
      if (j < 0 || j >= this.items) {
        throw new IllegalArgumentException(
            "query item must be in [0, " + this.items + "). Provided value: " + j);
      }
      double s = 0;
      for (int t = 0; t < coef.length; t++) {
        s += coef[t] * factors[t][j];
      }
      out[q] = s;
    }
    return out;
  }

  /** User i's whole completed row Y_i^{(T)} (length d), as {@link #predictUser}. */
  public double[] completeRow(int[] items, double[] values) {
    double[] coef = coefficients(items, values);
    double[] out = new double[this.items];
    for (int t = 0; t < coef.length; t++) {
      for (int j = 0; j < this.items; j++) {
        out[j] += coef[t] * factors[t][j];
      }
    }
    return out;
  }

  private double[] coefficients(int[] items, double[] values) {
    Ratings.Row row = Ratings.normalizeRow(this.items, maxRatingsPerUser, clip, items, values);
    int len = row.size();
    double[] y = new double[len];
    double[] coef = new double[factors.length];
    for (int t = 1; t <= factors.length; t++) {
      LocalUpdate.step(row.items(), row.values(), 0, len, y, factors[t - 1],
          lambdaPrime[t - 1], factors.length, nuclearNorm, clip, coef, t);
    }
    return coef;
  }

  /** d. */
  public int items() {
    return items;
  }

  /** T. */
  public int iterations() {
    return factors.length;
  }

  public int maxRatingsPerUser() {
    return maxRatingsPerUser;
  }

  public double clip() {
    return clip;
  }

  /** k. */
  public double nuclearNorm() {
    return nuclearNorm;
  }

  /** v̂_t for t = 1..T (a copy). */
  public double[] factor(int t) {
    return factors[t - 1].clone();
  }

  /** λ̂′_1..λ̂′_T (a copy). */
  public double[] lambdaPrime() {
    return lambdaPrime.clone();
  }

  public CompletionDiagnostics diagnostics() {
    return diagnostics;
  }

  @Override
  public String toString() {
    return "CompletionModel[d=" + items + ", T=" + factors.length + ", k=" + nuclearNorm
        + ", L=" + clip + ", xi=" + maxRatingsPerUser + ", lambda'="
        + Arrays.toString(lambdaPrime) + "]";
  }
}
