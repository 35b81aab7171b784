package io.dplrf.deploy.oneshot;

import io.dplrf.release.completion.BiasedModel;
import io.dplrf.release.completion.CompletionModel;
import io.dplrf.release.completion.Ratings;
import java.util.ArrayList;
import java.util.List;

/**
 * Offline use of private matrix completion (paper 004): predictions for a list of (user, item)
 * pairs, each user's row computed once by the local component from her own ratings and the
 * public model, and the RMSE of predictions against held-out values. Stateless.
 */
public final class CompletionOneShot {
  private CompletionOneShot() {}

  /** (user, item, value) triples in file order. */
  public record Triples(int[] user, int[] item, double[] value) {
    public int size() {
      return user.length;
    }
  }

  /** A growable triple list for readers. */
  public static final class TripleBuffer {
    private int[] user = new int[1024];
    private int[] item = new int[1024];
    private double[] value = new double[1024];
    private int size;

    public void add(int u, int i, double v) {
      if (size == user.length) {
        int cap = Math.multiplyExact(size, 2);
        user = java.util.Arrays.copyOf(user, cap);
        item = java.util.Arrays.copyOf(item, cap);
        value = java.util.Arrays.copyOf(value, cap);
      }
      user[size] = u;
      item[size] = i;
      value[size++] = v;
    }

    public Triples toTriples() {
      return new Triples(java.util.Arrays.copyOf(user, size), java.util.Arrays.copyOf(item, size),
          java.util.Arrays.copyOf(value, size));
    }
  }

  /**
   * Predictions at {@code pairs} (same order): user u's predictions come from
   * {@link CompletionModel#predictUser} on u's bounded training row only. A user without training
   * ratings gets the model's prediction for an empty row (0).
   */
  public static double[] predict(CompletionModel model, Ratings train, Triples pairs) {
    return predict(train, pairs, (row, query) -> model.predictUser(row.items(), row.values(),
        query));
  }

  /**
   * Predictions at {@code pairs} (same order): user u's come from {@link
   * BiasedModel#predictUser} on u's bounded training row only (a user without training ratings
   * gets g + b_j).
   */
  public static double[] predict(BiasedModel model, Ratings train, Triples pairs) {
    return predict(train, pairs, (row, query) -> model.predictUser(row.items(), row.values(),
        query));
  }

  private static double[] predict(Ratings train, Triples pairs,
      java.util.function.BiFunction<Ratings.Row, int[], double[]> local) {
    int users = train.users();
    List<List<Integer>> byUser = new ArrayList<>(users);
    for (int u = 0; u < users; u++) {
      byUser.add(null);
    }
    for (int x = 0; x < pairs.size(); x++) {
      int u = pairs.user()[x];
      if (byUser.get(u) == null) {
        byUser.set(u, new ArrayList<>());
      }
      byUser.get(u).add(x);
    }
    double[] out = new double[pairs.size()];
    for (int u = 0; u < users; u++) {
      List<Integer> idx = byUser.get(u);
      if (idx == null) {
        continue;
      }
      int[] query = new int[idx.size()];
      for (int q = 0; q < query.length; q++) {
        query[q] = pairs.item()[idx.get(q)];
      }
      double[] p = local.apply(train.row(u), query);
      for (int q = 0; q < query.length; q++) {
        out[idx.get(q)] = p[q];
      }
    }
    return out;
  }

  /** The names of {@link #baselines}' predictors, in its order. */
  public static final String[] BASELINES = {"global mean", "per-user mean", "item mean",
      "user + item biases"};

  /**
   * λ of the user + item biases baseline: b_j = Σ(r − g)/(n_j + λ), then c_i = Σ(r − g −
   * b_j)/(n_i + λ), the damped baseline of recommender practice (Koren 2010, "Factor in the
   * neighbors", §2.1).
   */
  public static final double BASELINE_DAMPING = 5;

  /**
   * The trivial predictors, fitted on every training triple (NOT private: exact statistics of
   * the training data, for comparison only), at the test pairs: [0] the global mean g; [1] the
   * user's mean (g for a user without training ratings); [2] the item's mean (g for an item
   * without training ratings); [3] g + b_j + c_i with damped biases ({@link #BASELINE_DAMPING}).
   * Ids must lie in [0, users) × [0, items).
   */
  public static double[][] baselines(int users, int items, Triples train, Triples test) {
    double[] itemSum = new double[items];
    int[] itemCount = new int[items];
    double[] userSum = new double[users];
    int[] userCount = new int[users];
    double total = 0;
    for (int x = 0; x < train.size(); x++) {
      itemSum[train.item()[x]] += train.value()[x];
      itemCount[train.item()[x]]++;
      userSum[train.user()[x]] += train.value()[x];
      userCount[train.user()[x]]++;
      total += train.value()[x];
    }
    double g = total / Math.max(1, train.size());
    double[] b = new double[items];
    for (int x = 0; x < train.size(); x++) {
      b[train.item()[x]] += train.value()[x] - g;
    }
    for (int j = 0; j < items; j++) {
      b[j] /= itemCount[j] + BASELINE_DAMPING;
    }
    double[] c = new double[users];
    for (int x = 0; x < train.size(); x++) {
      c[train.user()[x]] += train.value()[x] - g - b[train.item()[x]];
    }
    for (int i = 0; i < users; i++) {
      c[i] /= userCount[i] + BASELINE_DAMPING;
    }
    double[][] out = new double[BASELINES.length][test.size()];
    for (int x = 0; x < test.size(); x++) {
      int i = test.user()[x];
      int j = test.item()[x];
      out[0][x] = g;
      out[1][x] = userCount[i] > 0 ? userSum[i] / userCount[i] : g;
      out[2][x] = itemCount[j] > 0 ? itemSum[j] / itemCount[j] : g;
      out[3][x] = g + b[j] + c[i];
    }
    return out;
  }

  /** The triples with {@code delta} added to every value (centering by a public constant). */
  public static Triples shift(Triples t, double delta) {
    double[] v = t.value().clone();
    for (int x = 0; x < v.length; x++) {
      v[x] += delta;
    }
    return new Triples(t.user(), t.item(), v);
  }

  /** √(mean (prediction − value)²); NaN for no pairs. */
  public static double rmse(double[] predictions, double[] values) {
    double se = 0;
    for (int x = 0; x < values.length; x++) {
      double e = predictions[x] - values[x];
      se += e * e;
    }
    return Math.sqrt(se / values.length);
  }
}
