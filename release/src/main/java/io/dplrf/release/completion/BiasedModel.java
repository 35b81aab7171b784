package io.dplrf.release.completion;

import java.util.Objects;
import java.util.Optional;

/**
 * The public output of {@link BiasedCompletion}: the global offset g, the item biases b_j, the
 * optional Frank–Wolfe model of the residuals, and the public parameters (declared rating range,
 * ξ, λ_u). Everything here is (ε, δ)-DP (docs/privacy/completion.md §7); no user's row is stored.
 *
 * <p>A user's prediction is computed from her own ratings and this model only ({@link
 * #predictUser}): her bias c_i = Σ_{j∈Ω_i}(r_ij − g − b_j)/(n_i + λ_u) over all her ratings,
 * the residual model's local component on her residuals r_ij − g − b_j − c_i (the first ξ in
 * item order, as in training), and
 * <pre>  prediction_ij = clamp(g + b_j + c_i + Y_ij, [min, max])</pre>
 * — the billboard form of joint DP. Immutable and thread-safe.
 */
public final class BiasedModel {
  private final double ratingMin;
  private final double ratingMax;
  private final int maxRatingsPerUser;
  private final double userShrinkage;
  private final double offset;
  private final double[] itemBias;
  private final CompletionModel residual; // null: the residual component is not used
  private final String residualStatus;
  private final Optional<BiasedAccount> account;

  private BiasedModel(double ratingMin, double ratingMax, int maxRatingsPerUser,
      double userShrinkage, double offset, double[] itemBias, CompletionModel residual,
      String residualStatus, Optional<BiasedAccount> account) {
    this.ratingMin = ratingMin;
    this.ratingMax = ratingMax;
    this.maxRatingsPerUser = maxRatingsPerUser;
    this.userShrinkage = userShrinkage;
    this.offset = offset;
    this.itemBias = itemBias;
    this.residual = residual;
    this.residualStatus = residualStatus;
    this.account = account;
  }

  /**
   * A model from its public parts (also for restoring a stored model).
   *
   * @param residual the residual model, or null when the fit did not use one
   * @param residualStatus why the residual component is or is not used (public)
   * @param account empty for a non-private fit
   */
  public static BiasedModel of(double ratingMin, double ratingMax, int maxRatingsPerUser,
      double userShrinkage, double offset, double[] itemBias, CompletionModel residual,
      String residualStatus, Optional<BiasedAccount> account) {
    Objects.requireNonNull(residualStatus, "residualStatus");
    Objects.requireNonNull(account, "account");
    if (residual != null && residual.items() != itemBias.length) {
      throw new IllegalArgumentException("residual model has d = " + residual.items()
          + " but there are " + itemBias.length + " item biases");
    }
    return new BiasedModel(ratingMin, ratingMax, maxRatingsPerUser, userShrinkage, offset,
        itemBias.clone(), residual, residualStatus, account);
  }

  /**
   * User i's predictions at {@code queryItems} from her own ratings (arrival order: a later
   * rating of an item replaces it; clamped to the declared range, as in training) and this model
   * only.
   *
   * @throws IllegalArgumentException on an item id outside [0, d) or a non-finite rating
   */
  public double[] predictUser(int[] items, double[] values, int[] queryItems) {
    Ratings.Row row = ownRow(items, values);
    double c = userBias(row);
    double[] y = residual == null ? new double[queryItems.length]
        : residual.predictUser(row.items(), residuals(row, c), queryItems);
    double[] out = new double[queryItems.length];
    for (int q = 0; q < queryItems.length; q++) {
      int j = queryItems[q];
      Objects.checkIndex(j, itemBias.length);
      out[q] = clamp(offset + itemBias[j] + c + y[q]);
    }
    return out;
  }

  /** User i's whole completed row (length d), as {@link #predictUser}. */
  public double[] completeRow(int[] items, double[] values) {
    Ratings.Row row = ownRow(items, values);
    double c = userBias(row);
    double[] y = residual == null ? new double[itemBias.length]
        : residual.completeRow(row.items(), residuals(row, c));
    double[] out = new double[itemBias.length];
    for (int j = 0; j < out.length; j++) {
      out[j] = clamp(offset + itemBias[j] + c + y[j]);
    }
    return out;
  }

  private Ratings.Row ownRow(int[] items, double[] values) {
    double[] clamped = new double[values.length];
    for (int x = 0; x < values.length; x++) {
      clamped[x] = Double.isFinite(values[x]) ? clamp(values[x]) : values[x];
    }
    return Ratings.normalizeRow(itemBias.length, itemBias.length, rowBound(), items, clamped);
  }

  /** c_i = Σ(r_ij − g − b_j)/(n_i + λ_u): the user's own bias (local, never released). */
  double userBias(Ratings.Row row) {
    double s = 0;
    for (int x = 0; x < row.size(); x++) {
      s += row.values()[x] - offset - itemBias[row.items()[x]];
    }
    return row.size() == 0 ? 0 : s / (row.size() + userShrinkage);
  }

  /** r_ij − g − b_j − c_i on the row's items. */
  double[] residuals(Ratings.Row row, double c) {
    double[] z = new double[row.size()];
    for (int x = 0; x < z.length; x++) {
      z[x] = row.values()[x] - offset - itemBias[row.items()[x]] - c;
    }
    return z;
  }

  /** The norm bound of a row of every item, as in training ({@link BiasedParams#rowBound}). */
  double rowBound() {
    return Math.max(Math.abs(ratingMin), Math.abs(ratingMax)) * Math.sqrt(itemBias.length)
        * (1 + 1e-6);
  }

  double clamp(double r) {
    return Math.max(ratingMin, Math.min(ratingMax, r));
  }

  public double ratingMin() {
    return ratingMin;
  }

  public double ratingMax() {
    return ratingMax;
  }

  public int maxRatingsPerUser() {
    return maxRatingsPerUser;
  }

  /** λ_u. */
  public double userShrinkage() {
    return userShrinkage;
  }

  /** g. */
  public double offset() {
    return offset;
  }

  /** b_1..b_d (a copy). */
  public double[] itemBiases() {
    return itemBias.clone();
  }

  /** Whether any item effect is non-zero (false: the model is the user-only g + c_i). */
  public boolean usesItemEffects() {
    for (double b : itemBias) {
      if (b != 0) {
        return true;
      }
    }
    return false;
  }

  public int items() {
    return itemBias.length;
  }

  /** The Frank–Wolfe model of the residuals, when the fit uses one. */
  public Optional<CompletionModel> residual() {
    return Optional.ofNullable(residual);
  }

  /** Why the residual component is or is not used. */
  public String residualStatus() {
    return residualStatus;
  }

  /** The accounting; empty for the non-private twin. */
  public Optional<BiasedAccount> account() {
    return account;
  }

  public boolean isPrivate() {
    return account.isPresent();
  }

  @Override
  public String toString() {
    return "BiasedModel[d=" + itemBias.length + ", g=" + offset + ", range=[" + ratingMin + ", "
        + ratingMax + "], residual=" + residualStatus + "]";
  }
}
