package io.dplrf.release.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.ChiSquare;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The biased completion model (docs/privacy/completion.md §7): sensitivities on neighbouring
 * inputs, the one-budget accounting in both branches of the signal test, the presence and
 * freshness of the noise, and the local user bias and clamp. Data come from seeded
 * {@link SplittableRandom}s (public test data, never privacy noise).
 */
class BiasedCompletionTest {
  private static final double FALSE_ALARM = 1e-7;
  private static final int XI = 8;
  private static final int D = 12;

  /** Ratings on [1, 5]: user effect + item effect + noise, each user rating XI random items. */
  private static Ratings data(BiasedParams p, int users, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] itemEffect = new double[D];
    for (int j = 0; j < D; j++) {
      itemEffect[j] = rnd.nextDouble() - 0.5;
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

  private static BiasedParams params(double eps) {
    return BiasedParams.of(new PrivacyParams(eps, 1e-6), XI, 1, 5);
  }

  @Test
  void defaults_comeFromTheDeclaredRangeAndXi() {
    BiasedParams p = BiasedParams.of(new PrivacyParams(1, 1e-6), 80, 0.5, 5);
    assertEquals(4.5 * Math.sqrt(80) / 8, p.residual().clip(), 1e-12);
    assertEquals(4.5 / 4, p.itemClip(), 1e-12);
    assertEquals(2.75, p.midpoint());
    assertEquals(2.25, p.halfWidth());
    assertEquals(5, p.userShrinkage());
  }

  /**
   * Replacing user 0's row by any other row moves the exact global sum by ≤ 2h, the active
   * count by ≤ 1, the item sums by ≤ 2τ and the item weights by ≤ √2 (ℓ2); disjoint single
   * items at the range's ends attain the item bounds up to rounding, so they are not slack.
   */
  @Test
  void neighbours_moveEverySumByAtMostItsSensitivity() {
    BiasedParams p = params(1);
    SplittableRandom rnd = new SplittableRandom(5);
    double g = 3.1;
    for (int trial = 0; trial < 200; trial++) {
      int[][] rowsA = randomRows(rnd, 6);
      int[][] rowsB = rowsA.clone();
      rowsB[0] = randomRows(rnd, 1)[0];
      double[][] valsA = randomValues(rnd, rowsA);
      double[][] valsB = valsA.clone();
      valsB[0] = randomValues(rnd, new int[][] {rowsB[0]})[0];
      Ratings a = build(p, rowsA, valsA);
      Ratings b = build(p, rowsB, valsB);
      double[] ga = sums(BiasedCompletion.globalSums(a, p));
      double[] gb = sums(BiasedCompletion.globalSums(b, p));
      assertTrue(Math.abs(ga[0] - gb[0]) <= 2 * p.halfWidth(), "global sum, trial " + trial);
      assertTrue(Math.abs(ga[1] - gb[1]) <= 1, "active users, trial " + trial);
      ExactSum[] ia = BiasedCompletion.itemSums(a, p, g);
      ExactSum[] ib = BiasedCompletion.itemSums(b, p, g);
      assertTrue(distance(ia[0].exact(), ib[0].exact()) <= 2 * p.itemClip(), "item sums");
      assertTrue(distance(ia[1].exact(), ib[1].exact()) <= Math.sqrt(2), "item weights");
    }
    // Tight: user 0 rates item 0 at the top of the range or at the bottom (user 1 unchanged).
    // One rating: c0 = (r − g)/(1 + λ_u), so x = (r − g)·λ_u/(1 + λ_u) = ±2·5/6 for g = 3,
    // clipped to τ = 1: the item sums move by 2τ.
    Ratings top = build(p, new int[][] {{0}, {2, 3}}, new double[][] {{5}, {3, 3}});
    Ratings bottom = build(p, new int[][] {{0}, {2, 3}}, new double[][] {{1}, {3, 3}});
    double dist = distance(BiasedCompletion.itemSums(top, p, 3)[0].exact(),
        BiasedCompletion.itemSums(bottom, p, 3)[0].exact());
    assertEquals(2 * p.itemClip(), dist, 1e-6);
    // Disjoint single items: the weights move by √2.
    Ratings other = build(p, new int[][] {{1}, {2, 3}}, new double[][] {{5}, {3, 3}});
    assertEquals(Math.sqrt(2), distance(BiasedCompletion.itemSums(top, p, 3)[1].exact(),
        BiasedCompletion.itemSums(other, p, 3)[1].exact()), 1e-6);
  }

  /**
   * One budget: whichever branch the signal test takes, the components' μ add up (in squares)
   * to μ(ε, δ) and every σ is its sensitivity over its share (grid slack below 10⁻⁶).
   */
  @Test
  void account_spendsExactlyTheBudget_inBothBranches() {
    double mu = AnalyticGaussian.mu(1, 1e-6);
    // Few users: the residual test fails and its remaining share goes to the item biases.
    BiasedParams p = params(1).withResidual(params(1).residual().withIterations(4));
    BiasedModel small = BiasedCompletion.fit(data(p, 60, 1), p, SecretKey.forTesting(3), "s");
    BiasedAccount a = small.account().orElseThrow();
    assertFalse(small.residual().isPresent(), small.residualStatus());
    assertEquals(mu, a.mu(), 0);
    assertEquals(mu, a.muSpent(), mu * 1e-12);
    assertEquals(4, a.components().size());
    assertEquals(mu * Math.sqrt(0.5 / 4), a.components().get(2).mu(), mu * 1e-12);
    assertEquals(mu * Math.sqrt(0.5 * 3 / 4), a.components().get(3).mu(), mu * 1e-12);
    NoiseScale gSum = a.components().get(0).noise().get(0);
    double muG = mu * Math.sqrt(0.05) / Math.sqrt(2);
    assertEquals(2 * p.halfWidth() / muG, gSum.sigma(), 2 * p.halfWidth() / muG * 1e-6);
    assertTrue(gSum.sensitivity() / gSum.sigma() <= muG);
    NoiseScale items = a.components().get(1).noise().get(0);
    double muS = mu * Math.sqrt(0.30);
    assertEquals(2 * p.itemClip() / muS, items.sigma(), 2 * p.itemClip() / muS * 1e-6);
    NoiseScale weights = a.components().get(1).noise().get(1);
    double muC = mu * Math.sqrt(0.15);
    assertEquals(Math.sqrt(2) / muC, weights.sigma(), Math.sqrt(2) / muC * 1e-6);
    // Many users and a strong residual at a large ε: Frank–Wolfe runs all its iterations.
    BiasedParams big = params(50);
    BiasedModel used = BiasedCompletion.fit(rankOne(big, 4000), big, SecretKey.forTesting(4),
        "b");
    assertTrue(used.residual().isPresent(), used.residualStatus());
    BiasedAccount b = used.account().orElseThrow();
    double muBig = AnalyticGaussian.mu(50, 1e-6);
    assertEquals(muBig, b.muSpent(), muBig * 1e-12);
    assertEquals(3, b.components().size());
    assertEquals(muBig * Math.sqrt(0.5), b.residual().orElseThrow().mu(), muBig * 1e-12);
  }

  /**
   * The global offset is released with noise of the calibrated σ: users' means are symmetric
   * about 3 (the midpoint), so g − 3 ≈ N_sum/m to first order (the count's noise multiplies a
   * zero sum). Over 300 labels Σ((g − 3)·m/σ)² ~ χ²₃₀₀; the test rejects a correct sampler with
   * probability < 2·10⁻⁷, and halved (statistic/4) or missing (0) noise would be rejected.
   * A label's noise is fixed; another label's is fresh.
   */
  @Test
  void globalOffset_hasTheCalibratedNoise_freshPerLabel() {
    BiasedParams p = params(1);
    int users = 400;
    int[] u = new int[2 * users];
    int[] it = new int[2 * users];
    double[] v = new double[2 * users];
    for (int i = 0; i < users; i++) {
      u[2 * i] = u[2 * i + 1] = i;
      it[2 * i] = 0;
      it[2 * i + 1] = 1;
      v[2 * i] = i % 2 == 0 ? 4 : 2;
      v[2 * i + 1] = 3;
    }
    Ratings r = BiasedCompletion.ratings(users, 2, p, u, it, v);
    double mu = AnalyticGaussian.mu(1, 1e-6);
    double sigma = 2 * p.halfWidth() / (mu * Math.sqrt(0.05) / Math.sqrt(2));
    SecretKey key = SecretKey.forTesting(9);
    double ss = 0;
    int runs = 300;
    for (int k = 0; k < runs; k++) {
      double g = BiasedCompletion.fit(r, p, key, "g" + k).offset();
      double z = (g - 3) * users / sigma;
      ss += z * z;
    }
    assertTrue(accepts(ss, runs), "chi2 " + ss);
    assertFalse(accepts(ss / 4, runs), "halved noise would pass");
    assertFalse(accepts(0, runs), "missing noise would pass");
    assertEquals(BiasedCompletion.fit(r, p, key, "g0").offset(),
        BiasedCompletion.fit(r, p, key, "g0").offset(), "a label's noise is fixed");
    assertNotEquals(BiasedCompletion.fit(r, p, key, "g0").offset(),
        BiasedCompletion.fit(r, p, key, "g1").offset(), "another label draws fresh noise");
  }

  /**
   * The second item release draws fresh noise (label /items/2): the combined σ is
   * 1/√(1/σ₁² + 1/σ₂²) — equal to one release at the two shares' μ combined — and not σ₁/√2,
   * which reusing the first release's noise would pretend.
   */
  @Test
  void combine_isTheInverseVarianceMean() {
    double[] a = {1, 2};
    double s = BiasedCompletion.combine(a, 1, new double[] {3, 6}, 2);
    assertEquals(1 / Math.sqrt(1.25), s, 1e-15);
    assertEquals((1 + 3 / 4.0) / 1.25, a[0], 1e-15);
    assertEquals((2 + 6 / 4.0) / 1.25, a[1], 1e-15);
  }

  /** Empirical Bayes: with σ = 0 it is s/(c + prior); noise-level sums shrink to 0. */
  @Test
  void shrink_isPlainWithoutNoise_andZeroWhenNothingClearsTheNoise() {
    double[] b = BiasedCompletion.shrink(new double[] {2, -1}, new double[] {3.5, 1.5}, 0, 0);
    assertEquals(2 / 4.0, b[0], 1e-15);
    assertEquals(-1 / 2.0, b[1], 1e-15);
    double[] none = BiasedCompletion.shrink(new double[] {0.1, -0.1}, new double[] {50, 50}, 10,
        1);
    assertEquals(0, none[0]);
    assertEquals(0, none[1]);
  }

  /**
   * A user's prediction: g + b_j + c_i with c_i = Σ(r − g − b)/(n + λ_u) from her own row,
   * clamped to the declared range; a user without ratings gets g + b_j.
   */
  @Test
  void predictUser_isOffsetPlusBiasesFromTheOwnRow_clampedToTheRange() {
    BiasedModel m = BiasedModel.of(1, 5, XI, 5, 3, new double[] {0.5, -0.25, 1.9}, null,
        "not used", java.util.Optional.empty());
    double c = ((4 - 3 - 0.5) + (5 - 3 + 0.25)) / (2 + 5.0);
    double[] pred = m.predictUser(new int[] {0, 1}, new double[] {4, 9}, new int[] {0, 1, 2});
    assertEquals(3 + 0.5 + c, pred[0], 1e-12);
    assertEquals(3 - 0.25 + c, pred[1], 1e-12);
    assertEquals(5, pred[2], "clamped to the range (a rating of 9 was clamped to 5 too)");
    assertEquals(3 + 0.5, m.predictUser(new int[0], new double[0], new int[] {0})[0], 1e-12);
  }

  /**
   * The non-private twin on data with user and item effects beats the exact item mean: its
   * RMSE over all observed entries is below the item mean's (the user effects have standard
   * deviation 0.29, the noise 0.5, so the item mean's RMSE is ≈ √(0.083 + 0.25) = 0.58 and the
   * biased model's ≈ 0.5 + shrinkage loss).
   */
  @Test
  void nonPrivateTwin_fitsUserAndItemEffects() {
    BiasedParams p = params(1);
    Ratings r = data(p, 500, 7);
    BiasedModel m = BiasedCompletion.fitNonPrivate(r, p);
    double[] sum = new double[D];
    int[] count = new int[D];
    for (int i = 0; i < r.users(); i++) {
      Ratings.Row row = r.row(i);
      for (int x = 0; x < row.size(); x++) {
        sum[row.items()[x]] += row.values()[x];
        count[row.items()[x]]++;
      }
    }
    double seModel = 0;
    double seMean = 0;
    int n = 0;
    for (int i = 0; i < r.users(); i++) {
      Ratings.Row row = r.row(i);
      double[] pred = m.predictUser(row.items(), row.values(), row.items());
      for (int x = 0; x < row.size(); x++) {
        int j = row.items()[x];
        seModel += Math.pow(pred[x] - row.values()[x], 2);
        seMean += Math.pow(sum[j] / count[j] - row.values()[x], 2);
        n++;
      }
    }
    double model = Math.sqrt(seModel / n);
    double mean = Math.sqrt(seMean / n);
    assertTrue(model < 0.9 * mean, "model " + model + " item mean " + mean);
  }

  /** Ratings 3 + 2·u_i·v_j on [1, 5], u, v uniform in [−1, 1]: a strong rank-one residual. */
  private static Ratings rankOne(BiasedParams p, int users) {
    SplittableRandom rnd = new SplittableRandom(11);
    double[] v = new double[D];
    for (int j = 0; j < D; j++) {
      v[j] = 2 * rnd.nextDouble() - 1;
    }
    int[] u = new int[users * XI];
    int[] it = new int[users * XI];
    double[] val = new double[users * XI];
    int x = 0;
    for (int i = 0; i < users; i++) {
      double ui = 2 * rnd.nextDouble() - 1;
      int[] items = rnd.ints(0, D).distinct().limit(XI).toArray();
      for (int j : items) {
        u[x] = i;
        it[x] = j;
        val[x++] = 3 + 2 * ui * v[j];
      }
    }
    return BiasedCompletion.ratings(users, D, p, u, it, val);
  }

  private static int[][] randomRows(SplittableRandom rnd, int users) {
    int[][] rows = new int[users][];
    for (int i = 0; i < users; i++) {
      rows[i] = rnd.ints(0, D).distinct().limit(1 + rnd.nextInt(XI)).toArray();
    }
    return rows;
  }

  private static double[][] randomValues(SplittableRandom rnd, int[][] rows) {
    double[][] v = new double[rows.length][];
    for (int i = 0; i < rows.length; i++) {
      v[i] = new double[rows[i].length];
      for (int x = 0; x < v[i].length; x++) {
        v[i][x] = 1 + 4 * rnd.nextDouble();
      }
    }
    return v;
  }

  private static Ratings build(BiasedParams p, int[][] rows, double[][] values) {
    int n = 0;
    for (int[] r : rows) {
      n += r.length;
    }
    int[] u = new int[n];
    int[] it = new int[n];
    double[] v = new double[n];
    int x = 0;
    for (int i = 0; i < rows.length; i++) {
      for (int k = 0; k < rows[i].length; k++) {
        u[x] = i;
        it[x] = rows[i][k];
        v[x++] = values[i][k];
      }
    }
    return BiasedCompletion.ratings(rows.length, D, p, u, it, v);
  }

  private static double[] sums(ExactSum[] s) {
    return new double[] {s[0].exact()[0], s[1].exact()[0]};
  }

  private static double distance(double[] a, double[] b) {
    double ss = 0;
    for (int j = 0; j < a.length; j++) {
      ss += (a[j] - b[j]) * (a[j] - b[j]);
    }
    return Math.sqrt(ss);
  }

  private static boolean accepts(double stat, int df) {
    double upper = ChiSquare.upperTail(stat, df);
    return upper > FALSE_ALARM && 1 - upper > FALSE_ALARM;
  }
}
