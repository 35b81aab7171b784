package io.dplrf.release.completion;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.ChiSquare;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The model choice of {@link BiasedCompletion} (docs/privacy/completion.md §8, "The model
 * choice"): the users' clipped held-out scores of the item effects against the user-only model,
 * summed with Δ = 2C and released with charged noise; the item effects are kept only when the
 * release clears 2σ.
 */
class ModelChoiceTest {
  private static final int D = 12;
  private static final int XI = 8;
  /** Rejects a correct sampler with probability below 2·10⁻⁷ (two-sided). */
  private static final double FALSE_ALARM = 1e-7;

  private static BiasedParams params(double eps) {
    return BiasedParams.of(new PrivacyParams(eps, 1e-6), XI, 1, 5);
  }

  /** Users of random biases; items of effect {@code itemScale}·U(−½, ½); noise 0.5, rounded. */
  private static Ratings data(BiasedParams p, int users, double itemScale, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] itemEffect = new double[D];
    for (int j = 0; j < D; j++) {
      itemEffect[j] = itemScale * (rnd.nextDouble() - 0.5);
    }
    int[] u = new int[users * XI];
    int[] it = new int[users * XI];
    double[] v = new double[users * XI];
    int x = 0;
    for (int i = 0; i < users; i++) {
      double userEffect = rnd.nextDouble() - 0.5;
      int[] items = rnd.ints(0, D).distinct().limit(XI).toArray();
      for (int j : items) {
        u[x] = i;
        it[x] = j;
        v[x++] = Math.rint(2 * (3 + userEffect + itemEffect[j] + rnd.nextGaussian() * 0.5)) / 2;
      }
    }
    return BiasedCompletion.ratings(users, D, p, u, it, v);
  }

  /**
   * Replacing one user moves the exact score by at most 2C (each user adds one value in [−C, C];
   * the others' scores read their own rows and released values only), and 2C is reached: with
   * released item effects b_j ≈ +2 and λ_u = 1000 (the user-only model predicts ≈ g), a user
   * rating every item g + 2 scores +C (clipped) and one rating every item g − 2 scores −C.
   */
  @Test
  void neighbours_moveTheScoreByAtMostTwiceTheClip_andTheBoundIsReached() {
    BiasedParams p = params(1);
    double clip = BiasedCompletion.choiceClip(p);
    assertEquals(16.0 / 64, clip, 0);
    double g = 3;
    double[] c = new double[D];
    double[] s = new double[D];
    Arrays.fill(c, 100);
    Arrays.fill(s, 2 * (100 + BiasedCompletion.PRIOR_WEIGHT));
    double[] sums = new double[2];
    for (int k = 0; k < 2; k++) {
      double rating = k == 0 ? 5 : 1;
      int[] user = new int[2 * D];
      int[] item = new int[2 * D];
      double[] value = new double[2 * D];
      for (int j = 0; j < D; j++) {
        user[j] = 0; // the replaced user
        item[j] = j;
        value[j] = rating;
        user[D + j] = 1; // another user, the same in both datasets
        item[D + j] = j;
        value[D + j] = 3 + (j % 3 - 1);
      }
      Ratings r = BiasedCompletion.ratings(2, D, p, user, item, value);
      sums[k] = BiasedCompletion.choiceSums(r, p, g, 1000, s, c, 0, 0,
          Double.POSITIVE_INFINITY).exact()[0];
    }
    assertEquals(2 * clip, sums[0] - sums[1], 1e-9);

    SplittableRandom rnd = new SplittableRandom(7);
    Ratings base = data(p, 40, 1, 8);
    double[] rs = new double[D];
    double[] rc = new double[D];
    for (int j = 0; j < D; j++) {
      rc[j] = 2 + 8 * rnd.nextDouble();
      rs[j] = rc[j] * (rnd.nextDouble() - 0.5);
    }
    double exact = BiasedCompletion.choiceSums(base, p, g, 4, rs, rc, 0.5, 0.5, 0.2)
        .exact()[0];
    for (int trial = 0; trial < 300; trial++) {
      Ratings other = replaceUser0(base, p, rnd);
      double moved = BiasedCompletion.choiceSums(other, p, g, 4, rs, rc, 0.5, 0.5, 0.2)
          .exact()[0];
      assertTrue(Math.abs(moved - exact) <= 2 * clip * (1 + 1e-9),
          "trial " + trial + ": moved by " + Math.abs(moved - exact) + " > 2C = " + 2 * clip);
    }
  }

  /** {@code r} with user 0's row replaced by 0..D random ratings in [1, 5]. */
  private static Ratings replaceUser0(Ratings r, BiasedParams p, SplittableRandom rnd) {
    int n = rnd.nextInt(D + 1);
    int[] items = rnd.ints(0, D).distinct().limit(n).toArray();
    int size = r.size() - r.row(0).size() + items.length;
    int[] u = new int[size];
    int[] it = new int[size];
    double[] v = new double[size];
    int x = 0;
    for (int j : items) {
      u[x] = 0;
      it[x] = j;
      v[x++] = 1 + 4 * rnd.nextDouble();
    }
    for (int i = 1; i < r.users(); i++) {
      Ratings.Row row = r.row(i);
      for (int k = 0; k < row.size(); k++) {
        u[x] = i;
        it[x] = row.items()[k];
        v[x++] = row.values()[k];
      }
    }
    return BiasedCompletion.ratings(r.users(), D, p, u, it, v);
  }

  /**
   * The score is released with its calibrated noise: over 300 labels (fixed key), (released −
   * exact)/σ, the exact score recomputed from each fit's own released inputs, has Σz² ~ χ²₃₀₀;
   * the test rejects a correct sampler with probability below 2·10⁻⁷, and fails for missing
   * noise (Σz² ≈ 0) or noise at half its σ (Σz² ≈ 75).
   */
  @Test
  void score_isReleasedWithItsCalibratedNoise() {
    BiasedParams p = params(1).withResidual(params(1).residual().withIterations(4));
    Ratings r = data(p, 60, 1, 31);
    SecretKey key = SecretKey.forTesting(32);
    int labels = 300;
    double chi = 0;
    for (int k = 0; k < labels; k++) {
      BiasedCompletion.Traced t = BiasedCompletion.fitTraced(r, p, key, "choice" + k, x -> { });
      BiasedCompletion.Released rel = t.released();
      var cs = t.model().account().orElseThrow().components();
      assertEquals("model choice (item effects)", cs.get(3).name());
      double sigmaS = cs.get(1).parts().get(0).noise().sigma();
      double sigmaC = cs.get(1).parts().get(1).noise().sigma();
      double g = BiasedCompletion.offsetOf(p, rel.globalSum(), rel.activeUsers());
      double exact = BiasedCompletion.choiceSums(r, p, g, t.model().userShrinkage(),
          rel.itemSums(), rel.itemWeights(), sigmaS, sigmaC, BiasedCompletion.priorVariance(
              rel.itemSums(), rel.itemWeights(), sigmaS, sigmaC)).exact()[0];
      double z = (rel.choice() - exact) / cs.get(3).parts().get(0).noise().sigma();
      chi += z * z;
    }
    double upper = ChiSquare.upperTail(chi, labels);
    assertTrue(upper > FALSE_ALARM && 1 - upper > FALSE_ALARM,
        "sum of z^2 = " + chi + " over " + labels + " labels");
  }

  /**
   * The decision reads the released, noisy score only: on data whose exact score sits near the
   * threshold CHOICE_Z·σ (300 users, item effects of spread 0.85, where one draw's score is about
   * 2σ), every one of 40 runs keeps the item effects exactly when its released score clears
   * CHOICE_Z·σ, and both outcomes occur. A decision on the exact score would be the same in every
   * run and fail (a threshold on the data without noise); two equal outcomes in all 40 runs of a
   * correct decision have probability of order 2^-39 when the score sits at the threshold.
   */
  @Test
  void theDecision_followsTheReleasedScore_notTheExactOne() {
    BiasedParams p = params(1).withResidual(params(1).residual().withIterations(4));
    Ratings r = data(p, 300, 1.7, 31);
    SecretKey key = SecretKey.forTesting(33);
    int kept = 0;
    int runs = 40;
    for (int k = 0; k < runs; k++) {
      BiasedCompletion.Traced t = BiasedCompletion.fitTraced(r, p, key, "decide" + k, x -> { });
      var cs = t.model().account().orElseThrow().components();
      double sigma = cs.get(3).parts().get(0).noise().sigma();
      boolean clears = t.released().choice() > BiasedCompletion.CHOICE_Z * sigma;
      assertEquals(clears, t.model().usesItemEffects(), "run " + k + ": released score "
          + t.released().choice() / sigma + " sigma");
      kept += clears ? 1 : 0;
    }
    assertTrue(kept > 0 && kept < runs, kept + " of " + runs + " runs kept the item effects");
  }

  /**
   * The floor: on users with biases of their own and items with none, the item effects are
   * dropped and every prediction is the user-only g + c_i, c_i = Σ(r − g)/(n_i + λ_u) over all
   * her ratings; with strong item effects (spread 2 rating points) they are kept. 3,000 users
   * at ε = 1, fixed keys.
   */
  @Test
  void itemEffects_areDropped_whenTheyCarryNothing_andKept_whenStrong() {
    BiasedParams p = params(1);
    Ratings none = data(p, 3000, 0, 41);
    BiasedModel floor = BiasedCompletion.fit(none, p, SecretKey.forTesting(42), "none");
    assertFalse(floor.usesItemEffects(), "item effects kept on items without effects");
    Ratings.Row row = none.row(5);
    double own = 0;
    for (double v : row.values()) {
      own += v - floor.offset();
    }
    double ci = own / (row.size() + floor.userShrinkage());
    double[] expected = new double[D];
    Arrays.fill(expected, Math.max(1, Math.min(5, floor.offset() + ci)));
    assertArrayEquals(expected, floor.completeRow(row.items(), row.values()), 1e-12);

    Ratings strong = data(p, 3000, 4, 43);
    BiasedModel items = BiasedCompletion.fit(strong, p, SecretKey.forTesting(44), "strong");
    assertTrue(items.usesItemEffects(), "item effects dropped on items of spread 2");
  }
}
