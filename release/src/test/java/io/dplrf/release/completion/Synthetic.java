package io.dplrf.release.completion;

import java.util.SplittableRandom;

/**
 * Test data: the paper's synthetic instance (§4) at a small size — a rank-one Y* = u vᵀ with
 * entries in [−1, 1], each user rating {@code perUser} distinct random items, one further rated
 * item per user held out. Data generation only (public test randomness), never privacy noise.
 */
final class Synthetic {
  final int users;
  final int items;
  final double[] u;
  final double[] v;
  final int[] trainUser;
  final int[] trainItem;
  final double[] trainValue;
  final int[] testItem; // one per user
  final double[] testValue;

  Synthetic(int users, int items, int perUser, long seed) {
    this.users = users;
    this.items = items;
    SplittableRandom rnd = new SplittableRandom(seed);
    u = new double[users];
    v = new double[items];
    for (int i = 0; i < users; i++) {
      u[i] = 2 * rnd.nextDouble() - 1;
    }
    for (int j = 0; j < items; j++) {
      v[j] = 2 * rnd.nextDouble() - 1;
    }
    trainUser = new int[users * perUser];
    trainItem = new int[users * perUser];
    trainValue = new double[users * perUser];
    testItem = new int[users];
    testValue = new double[users];
    int[] perm = new int[items];
    int r = 0;
    for (int i = 0; i < users; i++) {
      for (int j = 0; j < items; j++) {
        perm[j] = j;
      }
      for (int x = 0; x <= perUser; x++) { // partial Fisher–Yates: perUser + 1 distinct items
        int y = x + rnd.nextInt(items - x);
        int tmp = perm[x];
        perm[x] = perm[y];
        perm[y] = tmp;
      }
      for (int x = 0; x < perUser; x++) {
        trainUser[r] = i;
        trainItem[r] = perm[x];
        trainValue[r++] = u[i] * v[perm[x]];
      }
      testItem[i] = perm[perUser];
      testValue[i] = u[i] * v[perm[perUser]];
    }
  }

  Ratings ratings(int maxPerUser, double clip) {
    return Ratings.of(users, items, maxPerUser, clip, trainUser, trainItem, trainValue);
  }

  /** Test RMSE of the model's predictions at the held-out entries. */
  double testRmse(CompletionModel model, Ratings ratings) {
    double se = 0;
    for (int i = 0; i < users; i++) {
      Ratings.Row row = ratings.row(i);
      double p = model.predictUser(row.items(), row.values(), new int[] {testItem[i]})[0];
      se += (p - testValue[i]) * (p - testValue[i]);
    }
    return Math.sqrt(se / users);
  }

  /** RMSE of predicting 0 everywhere: the trivial baseline. */
  double zeroRmse() {
    double se = 0;
    for (double x : testValue) {
      se += x * x;
    }
    return Math.sqrt(se / users);
  }
}
