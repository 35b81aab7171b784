package io.dplrf.release.completion;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.ChiSquare;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The biased completion model (docs/privacy/completion.md §7): sensitivities on neighbouring
 * inputs, the one-budget accounting in both branches of the signal test (μ derived from the noise
 * drawn), every release replayed bit for bit from its keystream label and its released inputs,
 * the noise as a function of the run label, the presence, scale and freshness of every release's
 * noise (two-sided χ² tests on released − exact, correlation tests between releases), the
 * private user shrinkage, and the local user bias and clamp. Data come from seeded
 * {@link SplittableRandom}s (public test data, never privacy noise); every χ² check rejects a
 * correct sampler with probability &lt; 2·10⁻⁷ ({@link #FALSE_ALARM} in each tail).
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
    assertTrue(p.estimatesUserShrinkage());
    assertEquals(2 / 5.0, BiasedParams.SPREAD_CLIP);
    BiasedParams.Shares sh = p.shares();
    assertEquals(1, sh.global() + sh.userSpread() + sh.choice() + sh.itemSums()
        + sh.itemCounts() + sh.residual(), 4e-16);
    BiasedParams fixed = p.withUserShrinkage(3);
    assertFalse(fixed.estimatesUserShrinkage());
    assertEquals(3, fixed.userShrinkage());
    assertEquals(0.05 / 0.95, fixed.shares().global(), 1e-15);
  }

  @Test
  void ratings_dropUnusableRecords_andTheFitIsTheFitWithoutThem() {
    BiasedParams p = params(1);
    Ratings clean = data(p, 100, 91);
    int[] badUser = {3, 3, 4, 100, -1};
    int[] badItem = {0, 1, D, 0, 0};
    double[] badValue = {Double.NaN, Double.NEGATIVE_INFINITY, 3, 3, 3};
    int bad = badUser.length;
    int[] u = Arrays.copyOf(badUser, bad + clean.size());
    int[] it = Arrays.copyOf(badItem, bad + clean.size());
    double[] v = Arrays.copyOf(badValue, bad + clean.size());
    int x = bad;
    for (int i = 0; i < clean.users(); i++) {
      Ratings.Row row = clean.row(i);
      for (int k = 0; k < row.size(); k++) {
        u[x] = i;
        it[x] = row.items()[k];
        v[x++] = row.values()[k];
      }
    }
    Ratings withBad = BiasedCompletion.ratings(100, D, p, u, it, v);
    assertEquals(5, withBad.unusable());
    for (int i = 0; i < clean.users(); i++) {
      assertArrayEquals(clean.row(i).items(), withBad.row(i).items(), "user " + i);
      assertArrayEquals(clean.row(i).values(), withBad.row(i).values(), "user " + i);
    }
    SecretKey key = SecretKey.forTesting(92);
    BiasedModel a = BiasedCompletion.fit(clean, p, key, "bad");
    BiasedModel b = BiasedCompletion.fit(withBad, p, key, "bad");
    assertEquals(a.offset(), b.offset(), 0);
    assertArrayEquals(a.itemBiases(), b.itemBiases());
    assertEquals(a.userShrinkage(), b.userShrinkage(), 0);
  }

  /** Shares are weights: normalised to sum to 1 (the fit's tolerance is rounding only). */
  @Test
  void shares_areNormalised() {
    BiasedParams.Shares s = new BiasedParams.Shares(1, 1, 1, 1, 0.5, 3.5);
    assertEquals(0.125, s.global(), 0);
    assertEquals(0.4375, s.residual(), 0);
    assertEquals(1, s.global() + s.userSpread() + s.choice() + s.itemSums() + s.itemCounts()
        + s.residual(), 0);
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
      double[] bias = rnd.doubles(D, -1, 1).toArray();
      assertTrue(distance(BiasedCompletion.spreadSums(a, p, g, bias).exact(),
          BiasedCompletion.spreadSums(b, p, g, bias).exact())
          <= BiasedCompletion.spreadSensitivity(), "users' spread");
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
    // The users' spread: a user with a huge spread (equal ratings far from g) against one with
    // none (ratings around g, zero mean): a + 1/6.
    int[] six = {0, 1, 2, 3, 4, 5};
    Ratings high = build(p, new int[][] {six, {6}}, new double[][] {{5, 5, 5, 5, 5, 5}, {3}});
    Ratings low = build(p, new int[][] {six, {6}}, new double[][] {{2, 4, 2, 4, 2, 4}, {3}});
    double[] zero = new double[D];
    double[] sh = BiasedCompletion.spreadSums(high, p, 3, zero).exact();
    double[] sl = BiasedCompletion.spreadSums(low, p, 3, zero).exact();
    assertEquals(BiasedParams.SPREAD_CLIP, sh[0], 1e-6);
    assertEquals(BiasedParams.SPREAD_CLIP, sh[1], 1e-6);
    assertEquals(-1 / 6.0, sl[0], 1e-6);
    assertEquals(BiasedCompletion.spreadSensitivity(), distance(sh, sl), 1e-6);
    assertEquals(BiasedParams.SPREAD_CLIP + 1 / 6.0, BiasedCompletion.spreadSensitivity(), 0);
  }

  /**
   * One budget, derived from the noise drawn: whichever branch the signal test takes, every
   * component's μ = √(Σ R·(Δ/σ)²) over its releases equals its share of μ(ε, δ) up to the grid's
   * overshoot (σ is rounded up by a relative &lt; 2⁻³⁰) and the components add up (in squares) to
   * μ(ε, δ); and every σ is its sensitivity over its share — the second item release's at its
   * share of the unspent residual budget, the signal test's W at one iteration's.
   */
  @Test
  void account_spendsTheBudget_fromTheNoiseDrawn_inBothBranches() {
    double mu = AnalyticGaussian.mu(1, 1e-6);
    // Few users: the residual test fails and its remaining share goes to the item biases.
    BiasedParams p = params(1).withResidual(params(1).residual().withIterations(4));
    BiasedParams.Shares sh = p.shares();
    BiasedModel small = BiasedCompletion.fit(data(p, 60, 1), p, SecretKey.forTesting(3), "s");
    BiasedAccount a = small.account().orElseThrow();
    assertFalse(small.residual().isPresent(), small.residualStatus());
    assertEquals(mu, a.mu(), 0);
    List<BiasedAccount.Component> cs = a.components();
    assertEquals(6, cs.size());
    double muR = mu * Math.sqrt(sh.residual());
    double rest = muR * Math.sqrt(3 / 4.0);
    assertSpends(mu * Math.sqrt(sh.global()), cs.get(0).mu(), "global offset");
    assertSpends(mu * Math.sqrt(sh.itemSums() + sh.itemCounts()), cs.get(1).mu(), "items");
    assertSpends(mu * Math.sqrt(sh.userSpread()), cs.get(2).mu(), "users' spread");
    assertSpends(mu * Math.sqrt(sh.choice()), cs.get(3).mu(), "model choice");
    assertSpends(muR / 2, cs.get(4).mu(), "signal test");
    assertSpends(rest, cs.get(5).mu(), "second item release");
    assertSpends(mu, a.muSpent(), "total");
    double muG = mu * Math.sqrt(sh.global()) / Math.sqrt(2);
    assertSigma(2 * p.halfWidth() / muG, part(cs.get(0), 0), 1);
    assertSigma(1 / muG, part(cs.get(0), 1), 1);
    assertSigma(2 * p.itemClip() / (mu * Math.sqrt(sh.itemSums())), part(cs.get(1), 0), 1);
    assertSigma(Math.sqrt(2) / (mu * Math.sqrt(sh.itemCounts())), part(cs.get(1), 1), 1);
    assertSigma((BiasedParams.SPREAD_CLIP + 1 / 6.0) / (mu * Math.sqrt(sh.userSpread())),
        part(cs.get(2), 0), 1);
    double l = p.residual().clip();
    assertSigma(2 * BiasedCompletion.choiceClip(p) / (mu * Math.sqrt(sh.choice())),
        part(cs.get(3), 0), 1);
    BiasedAccount.Part w = part(cs.get(4), 0);
    assertSigma(4 * Math.sqrt(2) * l * l / (muR / 2), w, 1);
    assertEquals(D * (D + 1) / 2, w.noise().entries());
    double fs = sh.itemSums() / (sh.itemSums() + sh.itemCounts());
    assertSigma(2 * p.itemClip() / (rest * Math.sqrt(fs)), part(cs.get(5), 0), 1);
    assertSigma(Math.sqrt(2) / (rest * Math.sqrt(1 - fs)), part(cs.get(5), 1), 1);
    // Many users and a strong residual at a large ε: Frank–Wolfe runs all its iterations.
    BiasedParams big = params(50);
    Ratings strong = rankOne(big, 4000);
    BiasedModel used = BiasedCompletion.fit(strong, big, SecretKey.forTesting(4), "b");
    assertTrue(used.residual().isPresent(), used.residualStatus());
    BiasedAccount b = used.account().orElseThrow();
    double muBig = AnalyticGaussian.mu(50, 1e-6);
    int t = big.residual().iterationsFor(strong.users(), D);
    assertEquals(5, b.components().size());
    assertSpends(muBig, b.muSpent(), "total");
    assertSpends(muBig * Math.sqrt(big.shares().residual()), b.components().get(4).mu(), "FW");
    double lb = big.residual().clip();
    assertSigma(4 * Math.sqrt(2) * lb * lb / (muBig * Math.sqrt(big.shares().residual())
        / Math.sqrt(t)), part(b.components().get(4), 0), t);
    assertEquals(muBig * Math.sqrt(big.shares().residual()), b.residual().orElseThrow().mu(),
        muBig * 1e-12);
  }

  /**
   * The item sums and weights are released with the calibrated noise, and the second release's
   * noise is fresh: over 150 labels (fixed key), (released − exact)/σ of each of the four
   * vectors (first and second sums and weights, 12 entries each) has Σz² ~ χ² with 12 degrees
   * of freedom per release, which missing (≈ 0) or halved (÷ 4) noise fails; and the second
   * release's z-scores are uncorrelated with the first's: N·r² ~ χ²₁ for their correlation r
   * over the N pairs (a label reused for both releases would draw them from the same bits). The
   * second release exists when the signal test fails, in at least 90% of these fits (the
   * residual's structure here is the item-bias error, which the test sometimes sees).
   */
  @Test
  void itemReleases_haveTheCalibratedNoise_andTheSecondIsIndependent() {
    BiasedParams p = params(1).withResidual(params(1).residual().withIterations(4));
    Ratings r = data(p, 60, 21);
    SecretKey key = SecretKey.forTesting(22);
    int labels = 150;
    double[] chi = new double[4];
    int[] df = new int[4];
    double cross = 0;
    double ss1 = 0;
    double ss2 = 0;
    boolean differs = false;
    int seconds = 0;
    for (int k = 0; k < labels; k++) {
      BiasedCompletion.Traced t = BiasedCompletion.fitTraced(r, p, key, "items" + k, x -> { });
      BiasedCompletion.Released rel = t.released();
      List<BiasedAccount.Component> cs = t.model().account().orElseThrow().components();
      ExactSum[] exact = BiasedCompletion.itemSums(r, p, t.model().offset());
      double[][] released = {rel.itemSums(), rel.itemWeights(), rel.itemSums2(),
          rel.itemWeights2()};
      boolean second = released[2] != null; // the signal test failed
      seconds += second ? 1 : 0;
      double[][] z = new double[4][];
      for (int v = 0; v < (second ? 4 : 2); v++) {
        double sigma = part(cs.get(v < 2 ? 1 : 5), v % 2).noise().sigma();
        double[] e = exact[v % 2].exact();
        z[v] = new double[D];
        for (int j = 0; j < D; j++) {
          z[v][j] = (released[v][j] - e[j]) / sigma;
          chi[v] += z[v][j] * z[v][j];
        }
        df[v] += D;
      }
      for (int v = 0; second && v < 2; v++) {
        for (int j = 0; j < D; j++) {
          cross += z[v][j] * z[v + 2][j];
          ss1 += z[v][j] * z[v][j];
          ss2 += z[v + 2][j] * z[v + 2][j];
          differs |= z[v][j] != z[v + 2][j];
        }
      }
    }
    assertTrue(seconds >= 0.9 * labels, "the signal test failed in " + seconds + " of " + labels
        + " fits (60 users, T = 4)");
    String[] names = {"first item sums", "first item weights", "second item sums",
        "second item weights"};
    for (int v = 0; v < 4; v++) {
      assertTrue(accepts(chi[v], df[v]), names[v] + ": chi2 " + chi[v] + " on " + df[v]);
    }
    assertTrue(differs, "the second release's noise is not the first's");
    int pairs = 2 * D * seconds;
    double corr = cross / Math.sqrt(ss1 * ss2);
    assertTrue(accepts(pairs * corr * corr, 1), "correlation of the two releases' noise "
        + corr + " over " + pairs + " pairs");
  }

  /**
   * The global sum, the active-user count (exact value 300, not 0) and the users' spread are
   * released with the calibrated noise: over 200 labels, Σ((released − exact)/σ)² ~ χ²₂₀₀ (χ²₄₀₀
   * for the spread's two entries), which missing or halved noise fails.
   */
  @Test
  void globalAndSpreadReleases_haveTheCalibratedNoise() {
    BiasedParams p = params(1);
    Ratings r = data(p, 300, 31);
    SecretKey key = SecretKey.forTesting(32);
    ExactSum[] global = BiasedCompletion.globalSums(r, p);
    double exactSum = global[0].exact()[0];
    double exactCount = global[1].exact()[0];
    assertEquals(300, exactCount, 0);
    assertTrue(Math.abs(exactSum) > 1, "a non-zero exact sum: " + exactSum);
    int labels = 200;
    double chiSum = 0;
    double chiCount = 0;
    double chiSpread = 0;
    for (int k = 0; k < labels; k++) {
      BiasedCompletion.Traced t = BiasedCompletion.fitTraced(r, p, key, "global" + k, x -> { });
      BiasedCompletion.Released rel = t.released();
      List<BiasedAccount.Component> cs = t.model().account().orElseThrow().components();
      double zs = (rel.globalSum() - exactSum) / part(cs.get(0), 0).noise().sigma();
      double zc = (rel.activeUsers() - exactCount) / part(cs.get(0), 1).noise().sigma();
      chiSum += zs * zs;
      chiCount += zc * zc;
      double[] bias = BiasedCompletion.shrink(rel.itemSums(), rel.itemWeights(),
          part(cs.get(1), 0).noise().sigma(), part(cs.get(1), 1).noise().sigma());
      double[] spread = BiasedCompletion.spreadSums(r, p, t.model().offset(), bias).exact();
      double sigma = part(cs.get(2), 0).noise().sigma();
      for (int v = 0; v < 2; v++) {
        double z = (rel.spread()[v] - spread[v]) / sigma;
        chiSpread += z * z;
      }
    }
    double[] chi = {chiSum, chiCount, chiSpread};
    int[] df = {labels, labels, 2 * labels};
    String[] names = {"global sum", "active users", "users' spread"};
    for (int v = 0; v < 3; v++) {
      assertTrue(accepts(chi[v], df[v]), names[v] + ": chi2 " + chi[v] + " on " + df[v]);
    }
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
    assertEquals(BiasedCompletion.fit(r, p, key, "g0").offset(),
        BiasedCompletion.fit(r, p, key, "g0").offset(), "a label's noise is fixed");
    assertNotEquals(BiasedCompletion.fit(r, p, key, "g0").offset(),
        BiasedCompletion.fit(r, p, key, "g1").offset(), "another label draws fresh noise");
  }

  /**
   * Every release is replayed exactly, pinning its keystream label and its inputs: the global sum
   * and count from {@code runLabel + "/biased/global"}; the first item sums and weights, on the
   * offset g computed from the RELEASED global pair, from {@code "/biased/items/1"}; the users'
   * spread, on g and the item biases shrunk from the RELEASED first item release (never the
   * exact ones), from {@code "/biased/spread"}; the second item release from {@code
   * "/biased/items/2"}; and in the other branch Frank–Wolfe, on the residuals from the released
   * (g, b, λ_u), from {@code "/biased/residual"}. Each replay draws with the grid of the σ the
   * account recorded, so it must equal the fit's release bit for bit; λ_u, g and the item biases
   * are then checked to be the post-processing of those releases.
   */
  @Test
  void everyRelease_isReplayedExactly_fromItsLabelAndTheReleasedInputs() {
    BiasedParams p = params(1).withResidual(params(1).residual().withIterations(4));
    Ratings r = data(p, 60, 61);
    SecretKey key = SecretKey.forTesting(62);
    String label = "replay/7";
    BiasedCompletion.Traced t = BiasedCompletion.fitTraced(r, p, key, label, x -> { });
    BiasedCompletion.Released rel = t.released();
    List<BiasedAccount.Component> cs = t.model().account().orElseThrow().components();
    assertNotNull(rel.itemSums2(), "the signal test failed: " + t.model().residualStatus());
    double g = replayGlobalAndItems(r, p, key, label, rel, cs);
    double sigmaS = part(cs.get(1), 0).noise().sigma();
    double sigmaC = part(cs.get(1), 1).noise().sigma();
    double[] released1 = BiasedCompletion.shrink(rel.itemSums(), rel.itemWeights(), sigmaS,
        sigmaC);
    assertArrayEquals(rel.spread(), replay(BiasedCompletion.spreadSums(r, p, g, released1),
        part(cs.get(2), 0), KeyStream.of(key, label + "/biased/spread").bits()), "spread");
    double lambdaU = BiasedCompletion.withOffsetNoise(BiasedCompletion.userShrinkageOf(
        rel.spread()[0], rel.spread()[1], part(cs.get(2), 0).noise().sigma()),
        BiasedCompletion.offsetVariance(p, rel.activeUsers(), part(cs.get(0), 0).noise().sigma(),
            part(cs.get(0), 1).noise().sigma()), p.itemClip());
    assertEquals(lambdaU, t.model().userShrinkage(), 0);
    assertChoiceReplays(r, p, key, label, g, lambdaU, rel, cs);
    ExactSum[] item = BiasedCompletion.itemSums(r, p, g);
    RandomBits bits2 = KeyStream.of(key, label + "/biased/items/2").bits();
    assertArrayEquals(rel.itemSums2(), replay(item[0], part(cs.get(5), 0), bits2), "sums 2");
    assertArrayEquals(rel.itemWeights2(), replay(item[1], part(cs.get(5), 1), bits2),
        "weights 2");
    double[] s = rel.itemSums().clone();
    double[] c = rel.itemWeights().clone();
    double sigma2S = BiasedCompletion.combine(s, sigmaS, rel.itemSums2(),
        part(cs.get(5), 0).noise().sigma());
    double sigma2C = BiasedCompletion.combine(c, sigmaC, rel.itemWeights2(),
        part(cs.get(5), 1).noise().sigma());
    assertArrayEquals(chosen(BiasedCompletion.shrink(s, c, sigma2S, sigma2C), rel, cs),
        t.model().itemBiases());

    // The other branch: Frank–Wolfe ran all its iterations, its noise from "/biased/residual".
    BiasedParams big = params(50);
    Ratings strong = rankOne(big, 4000);
    String label2 = "replay/8";
    BiasedCompletion.Traced u = BiasedCompletion.fitTraced(strong, big, key, label2, x -> { });
    assertTrue(u.model().residual().isPresent(), u.model().residualStatus());
    List<BiasedAccount.Component> us = u.model().account().orElseThrow().components();
    double g2 = replayGlobalAndItems(strong, big, key, label2, u.released(), us);
    double[] shrunk2 = BiasedCompletion.shrink(u.released().itemSums(),
        u.released().itemWeights(), part(us.get(1), 0).noise().sigma(),
        part(us.get(1), 1).noise().sigma());
    assertArrayEquals(u.released().spread(), replay(BiasedCompletion.spreadSums(strong, big, g2,
        shrunk2), part(us.get(2), 0), KeyStream.of(key, label2 + "/biased/spread").bits()));
    assertChoiceReplays(strong, big, key, label2, g2, u.model().userShrinkage(), u.released(),
        us);
    double[] b2 = chosen(shrunk2, u.released(), us);
    assertArrayEquals(b2, u.model().itemBiases());
    double mu = AnalyticGaussian.mu(50, 1e-6) * Math.sqrt(big.shares().residual());
    CompletionModel fw = PrivateFrankWolfe.fitShare(BiasedCompletion.residualRatings(strong, big,
        g2, b2, u.model().userShrinkage()), big.residual(), mu, key, label2 + "/biased/residual",
        true, x -> { }).model();
    CompletionModel used = u.model().residual().orElseThrow();
    assertEquals(used.iterations(), fw.iterations());
    for (int k = 1; k <= fw.iterations(); k++) {
      assertArrayEquals(fw.factor(k), used.factor(k), "Frank-Wolfe factor " + k);
    }
    assertArrayEquals(fw.lambdaPrime(), used.lambdaPrime());
  }

  /** Replays the global and first item releases of {@code rel}; returns the released g. */
  private static double replayGlobalAndItems(Ratings r, BiasedParams p, SecretKey key,
      String label, BiasedCompletion.Released rel, List<BiasedAccount.Component> cs) {
    ExactSum[] global = BiasedCompletion.globalSums(r, p);
    RandomBits gBits = KeyStream.of(key, label + "/biased/global").bits();
    assertEquals(rel.globalSum(), replay(global[0], part(cs.get(0), 0), gBits)[0], 0);
    assertEquals(rel.activeUsers(), replay(global[1], part(cs.get(0), 1), gBits)[0], 0);
    double g = BiasedCompletion.offsetOf(p, rel.globalSum(), rel.activeUsers());
    ExactSum[] item = BiasedCompletion.itemSums(r, p, g);
    RandomBits iBits = KeyStream.of(key, label + "/biased/items/1").bits();
    assertArrayEquals(rel.itemSums(), replay(item[0], part(cs.get(1), 0), iBits), "sums 1");
    assertArrayEquals(rel.itemWeights(), replay(item[1], part(cs.get(1), 1), iBits),
        "weights 1");
    return g;
  }

  /** {@code sum} released from {@code bits} with the grid Gaussian of the σ {@code part} used. */
  /**
   * The model choice's release replayed from {@code "/biased/choice"} on the released g, λ_u and
   * the RELEASED first item sums and weights (their σ's and prior variance).
   */
  private static void assertChoiceReplays(Ratings r, BiasedParams p, SecretKey key, String label,
      double g, double lambdaU, BiasedCompletion.Released rel,
      List<BiasedAccount.Component> cs) {
    double sigmaS = part(cs.get(1), 0).noise().sigma();
    double sigmaC = part(cs.get(1), 1).noise().sigma();
    ExactSum exact = BiasedCompletion.choiceSums(r, p, g, lambdaU, rel.itemSums(),
        rel.itemWeights(), sigmaS, sigmaC, BiasedCompletion.priorVariance(rel.itemSums(),
            rel.itemWeights(), sigmaS, sigmaC));
    assertEquals(rel.choice(), replay(exact, part(cs.get(3), 0),
        KeyStream.of(key, label + "/biased/choice").bits())[0], 0, "model choice");
  }

  /** The item biases as the model choice leaves them: kept iff its score clears 2σ. */
  private static double[] chosen(double[] bias, BiasedCompletion.Released rel,
      List<BiasedAccount.Component> cs) {
    boolean keep = rel.choice() > BiasedCompletion.CHOICE_Z * part(cs.get(3), 0).noise().sigma();
    return keep ? bias : new double[bias.length];
  }

  private static double[] replay(ExactSum sum, BiasedAccount.Part part, RandomBits bits) {
    NoiseScale n = part.noise();
    return sum.release(new GaussianSketchNoise(n.sketch(), n.sensitivity(), 1, 1,
        GridGaussian.atLeast(n.sigma())), bits);
  }

  /**
   * Every label the fit draws noise from is derived from runLabel: the same runLabel gives the
   * same fit bit for bit; another gives every release fresh noise. The noise of a release is
   * released − exact, the exact value computed from the run's own released inputs (its g, its
   * first item release), so a release whose inputs moved but whose label did not would show the
   * same noise in both runs (up to the grid rounding γ ≈ 2⁻³⁰σ); it must differ by more than
   * 10⁻⁶σ in every entry. The Frank–Wolfe label is pinned to runLabel by
   * {@link #everyRelease_isReplayedExactly_fromItsLabelAndTheReleasedInputs}.
   */
  @Test
  void noise_isAFunctionOfTheRunLabel() {
    BiasedParams p = params(1).withResidual(params(1).residual().withIterations(4));
    Ratings r = data(p, 60, 61);
    SecretKey key = SecretKey.forTesting(63);
    double[][] x = noiseOf(r, p, key, "run/x");
    double[][] again = noiseOf(r, p, key, "run/x");
    double[][] y = noiseOf(r, p, key, "run/y");
    String[] names = {"global sum and count", "first item sums", "first item weights",
        "users' spread", "second item sums", "second item weights", "model choice"};
    for (int v = 0; v < names.length; v++) {
      assertArrayEquals(x[v], again[v], 0, names[v] + ": the same runLabel, the same noise");
      double sigma = x[names.length + v][0];
      for (int j = 0; j < x[v].length; j++) {
        assertTrue(Math.abs(x[v][j] - y[v][j]) > 1e-6 * sigma, names[v] + "[" + j
            + "]: another runLabel draws other noise (" + x[v][j] + " vs " + y[v][j] + ")");
      }
    }
    BiasedModel m = BiasedCompletion.fit(r, p, key, "run/x");
    assertEquals(BiasedCompletion.fit(r, p, key, "run/x").toString(), m.toString());
    assertArrayEquals(BiasedCompletion.fit(r, p, key, "run/x").itemBiases(), m.itemBiases());
  }

  /**
   * The noise (released − exact) of the seven releases of one fit (the global pair, the first
   * item sums and weights, the spread, the second item sums and weights, the model choice),
   * then each one's
   * smallest σ (as a one-entry array).
   */
  private static double[][] noiseOf(Ratings r, BiasedParams p, SecretKey key, String label) {
    BiasedCompletion.Traced t = BiasedCompletion.fitTraced(r, p, key, label, x -> { });
    BiasedCompletion.Released rel = t.released();
    assertNotNull(rel.itemSums2(), label + ": " + t.model().residualStatus());
    List<BiasedAccount.Component> cs = t.model().account().orElseThrow().components();
    ExactSum[] global = BiasedCompletion.globalSums(r, p);
    double g = BiasedCompletion.offsetOf(p, rel.globalSum(), rel.activeUsers());
    ExactSum[] item = BiasedCompletion.itemSums(r, p, g);
    double[] bias = BiasedCompletion.shrink(rel.itemSums(), rel.itemWeights(),
        part(cs.get(1), 0).noise().sigma(), part(cs.get(1), 1).noise().sigma());
    double sigmaS = part(cs.get(1), 0).noise().sigma();
    double sigmaC = part(cs.get(1), 1).noise().sigma();
    double[] choice = BiasedCompletion.choiceSums(r, p, g, t.model().userShrinkage(),
        rel.itemSums(), rel.itemWeights(), sigmaS, sigmaC, BiasedCompletion.priorVariance(
            rel.itemSums(), rel.itemWeights(), sigmaS, sigmaC)).exact();
    double[][] released = {{rel.globalSum(), rel.activeUsers()}, rel.itemSums(),
        rel.itemWeights(), rel.spread(), rel.itemSums2(), rel.itemWeights2(),
        {rel.choice()}};
    double[][] exact = {{global[0].exact()[0], global[1].exact()[0]}, item[0].exact(),
        item[1].exact(), BiasedCompletion.spreadSums(r, p, g, bias).exact(), item[0].exact(),
        item[1].exact(), choice};
    double[] sigma = {Math.min(part(cs.get(0), 0).noise().sigma(),
        part(cs.get(0), 1).noise().sigma()), sigmaS, sigmaC, part(cs.get(2), 0).noise().sigma(),
        part(cs.get(5), 0).noise().sigma(), part(cs.get(5), 1).noise().sigma(),
        part(cs.get(3), 0).noise().sigma()};
    double[][] out = new double[2 * released.length][];
    for (int v = 0; v < released.length; v++) {
      out[v] = new double[released[v].length];
      for (int j = 0; j < out[v].length; j++) {
        out[v][j] = released[v][j] - exact[v][j];
      }
      out[released.length + v] = new double[] {sigma[v]};
    }
    return out;
  }

  /**
   * The users' spread draws noise of its own: over 400 labels, its two z-scores
   * ((released − exact)/σ) are uncorrelated with the first two of each release a reused label
   * would make it share bits with — the global pair (sum, count), the first item sums, the
   * second item sums (a stream's first samples come from its first bits) — N·r² ~ χ²₁ over the N
   * pairs, as for the two item releases
   * ({@link #itemReleases_haveTheCalibratedNoise_andTheSecondIsIndependent}).
   */
  @Test
  void spreadRelease_isIndependentOfTheGlobalAndItemReleases() {
    BiasedParams p = params(1).withResidual(params(1).residual().withIterations(4));
    Ratings r = data(p, 60, 71);
    SecretKey key = SecretKey.forTesting(72);
    String[] names = {"global sum and count", "first item sums", "second item sums"};
    double[] cross = new double[3];
    double[] ssSpread = new double[3];
    double[] ssOther = new double[3];
    int[] pairs = new int[3];
    for (int k = 0; k < 400; k++) {
      BiasedCompletion.Traced t = BiasedCompletion.fitTraced(r, p, key, "spread" + k, x -> { });
      BiasedCompletion.Released rel = t.released();
      List<BiasedAccount.Component> cs = t.model().account().orElseThrow().components();
      ExactSum[] global = BiasedCompletion.globalSums(r, p);
      double g = BiasedCompletion.offsetOf(p, rel.globalSum(), rel.activeUsers());
      ExactSum[] item = BiasedCompletion.itemSums(r, p, g);
      double sigmaS = part(cs.get(1), 0).noise().sigma();
      double[] bias = BiasedCompletion.shrink(rel.itemSums(), rel.itemWeights(), sigmaS,
          part(cs.get(1), 1).noise().sigma());
      double[] spread = BiasedCompletion.spreadSums(r, p, g, bias).exact();
      double sigmaU = part(cs.get(2), 0).noise().sigma();
      double[][] other = new double[3][];
      other[0] = new double[] {
          (rel.globalSum() - global[0].exact()[0]) / part(cs.get(0), 0).noise().sigma(),
          (rel.activeUsers() - global[1].exact()[0]) / part(cs.get(0), 1).noise().sigma()};
      other[1] = new double[2];
      for (int j = 0; j < 2; j++) {
        other[1][j] = (rel.itemSums()[j] - item[0].exact()[j]) / sigmaS;
      }
      if (rel.itemSums2() != null) {
        double sigma2 = part(cs.get(4), 0).noise().sigma();
        other[2] = new double[2];
        for (int j = 0; j < 2; j++) {
          other[2][j] = (rel.itemSums2()[j] - item[0].exact()[j]) / sigma2;
        }
      }
      for (int o = 0; o < 3; o++) {
        for (int j = 0; other[o] != null && j < 2; j++) {
          double z = (rel.spread()[j] - spread[j]) / sigmaU;
          cross[o] += z * other[o][j];
          ssSpread[o] += z * z;
          ssOther[o] += other[o][j] * other[o][j];
          pairs[o]++;
        }
      }
    }
    assertTrue(pairs[2] >= 0.9 * pairs[0], "second item releases in " + pairs[2] / 2
        + " of 400 fits");
    for (int o = 0; o < 3; o++) {
      double corr = cross[o] / Math.sqrt(ssSpread[o] * ssOther[o]);
      assertTrue(accepts(pairs[o] * corr * corr, 1), "correlation of the spread's noise with the "
          + names[o] + "' " + corr + " over " + pairs[o] + " pairs");
    }
  }

  /**
   * The inverse-variance combination of two independent releases (its arithmetic; that the
   * second release's noise is independent of the first's is {@link
   * #itemReleases_haveTheCalibratedNoise_andTheSecondIsIndependent}): σ = 1/√(1/σ₁² + 1/σ₂²),
   * the σ of one release at the two μ combined.
   */
  @Test
  void combine_isTheInverseVarianceMean() {
    double[] a = {1, 2};
    double s = BiasedCompletion.combine(a, 1, new double[] {3, 6}, 2);
    assertEquals(1 / Math.sqrt(1.25), s, 1e-15);
    assertEquals((1 + 3 / 4.0) / 1.25, a[0], 1e-15);
    assertEquals((2 + 6 / 4.0) / 1.25, a[1], 1e-15);
  }

  /**
   * ρ̂_i is unbiased for ρ = τ²/s² under the model it is derived for: 20,000 users with 40
   * ratings each, e = β_i + N(0, 1), β_i ~ N(0, 0.01): the mean of the clamped ρ̂_i is 0.01
   * (its standard error is 3.5·10⁻⁴; clamping at a = 0.4 moves it by less than 10⁻⁴).
   */
  @Test
  void spreadEstimate_isUnbiasedForTheRatioOfVariances() {
    int users = 20_000;
    int n = 40;
    int d = 60;
    BiasedParams p = BiasedParams.of(new PrivacyParams(1, 1e-6), n, -100, 100);
    SplittableRandom rnd = new SplittableRandom(41);
    int[] u = new int[users * n];
    int[] it = new int[users * n];
    double[] v = new double[users * n];
    int x = 0;
    for (int i = 0; i < users; i++) {
      double beta = 0.1 * rnd.nextGaussian();
      int[] items = rnd.ints(0, d).distinct().limit(n).toArray();
      for (int j : items) {
        u[x] = i;
        it[x] = j;
        v[x++] = beta + rnd.nextGaussian();
      }
    }
    Ratings r = BiasedCompletion.ratings(users, d, p, u, it, v);
    double[] spread = BiasedCompletion.spreadSums(r, p, 0, new double[d]).exact();
    double a = BiasedParams.SPREAD_CLIP;
    assertEquals(users, spread[1] / a, 1e-3);
    assertEquals(0.01, spread[0] / (spread[1] / a), 0.002);
    assertEquals(1 / 0.01, BiasedCompletion.userShrinkageOf(spread[0], spread[1], 0), 20);
  }

  /**
   * λ_u = 1/E[ρ̄ | release], checked against values derived independently of the code's
   * numerical integral: without noise the plain ratio clamped to [0, a]; under noise that swamps
   * the release the closed-form mean of the prior times the pivot's (1 + ρ²/a²)^(−1/2), 0.47a
   * (λ_u = 5.32; dropping that factor gives 5.0); a clearly negative spread gives a large λ_u
   * (user biases shrunk to ≈ 0), a clearly positive one its ratio, a noisier one something in
   * between.
   */
  @Test
  void userShrinkage_isTheInverseOfThePosteriorMeanOfRho() {
    double a = BiasedParams.SPREAD_CLIP;
    assertEquals(50, BiasedCompletion.userShrinkageOf(2, 100 * a, 0), 1e-9);
    assertEquals(1 / a, BiasedCompletion.userShrinkageOf(80, 100 * a, 0), 1e-9);
    assertEquals(1e9, BiasedCompletion.userShrinkageOf(-3, 100 * a, 0), 1);
    double prior = a * (Math.sqrt(2) - 1) / Math.log(1 + Math.sqrt(2)); // ∝ (1 + ρ²/a²)^(−1/2)
    assertEquals(1 / prior, BiasedCompletion.userShrinkageOf(0, 0, 1e6), 1e-3);
    assertEquals(5.32, 1 / prior, 0.005);
    double none = BiasedCompletion.userShrinkageOf(-0.001 * 100_000, 100_000 * a, 10);
    assertTrue(none > 1000, "no spread among 100,000 users: lambda_u " + none);
    double clear = BiasedCompletion.userShrinkageOf(0.1 * 100_000, 100_000 * a, 10);
    assertEquals(10, clear, 0.1);
    double noisier = BiasedCompletion.userShrinkageOf(0.1 * 1000, 1000 * a, 100);
    assertTrue(noisier > 2.5 && noisier < 10, "lambda_u " + noisier);
  }

  /**
   * The fit estimates λ_u privately: small on users with biases of their own (the {@link
   * #data} users' effects have variance 1/12 against rating noise 0.25 plus rounding), large on a
   * population whose users have none (rank one u_i v_j with v centred: each user's mean over
   * her items is noise).
   */
  @Test
  void fit_estimatesTheUserShrinkage() {
    BiasedParams p = params(1);
    BiasedModel withBiases = BiasedCompletion.fit(data(p, 3000, 51), p,
        SecretKey.forTesting(52), "u");
    assertTrue(withBiases.userShrinkage() < 15, "lambda_u " + withBiases.userShrinkage());
    BiasedModel none = BiasedCompletion.fit(centredRankOne(p, 3000), p,
        SecretKey.forTesting(53), "n");
    // Large, up to the cap τ²/σ_g² that the offset's noise puts on λ_u (≈ 600 here).
    assertTrue(none.userShrinkage() > 300, "lambda_u " + none.userShrinkage());
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

  /**
   * Ratings 3 + 2·u_i·v_j on [1, 5] with v_j = ±1/2 on alternate items and users rating 6 of
   * the 12 items, 3 of each sign: every user's mean is exactly 3, no user has a bias of her own.
   */
  private static Ratings centredRankOne(BiasedParams p, int users) {
    SplittableRandom rnd = new SplittableRandom(13);
    int n = 6;
    int[] u = new int[users * n];
    int[] it = new int[users * n];
    double[] val = new double[users * n];
    int x = 0;
    for (int i = 0; i < users; i++) {
      double ui = 2 * rnd.nextDouble() - 1;
      int[] even = rnd.ints(0, D / 2).distinct().limit(n / 2).toArray();
      int[] odd = rnd.ints(0, D / 2).distinct().limit(n / 2).toArray();
      for (int k = 0; k < n; k++) {
        int j = k < n / 2 ? 2 * even[k] : 2 * odd[k - n / 2] + 1;
        u[x] = i;
        it[x] = j;
        val[x++] = 3 + 2 * ui * (j % 2 == 0 ? 0.5 : -0.5);
      }
    }
    return BiasedCompletion.ratings(users, D, p, u, it, val);
  }

  private static int[][] randomRows(SplittableRandom rnd, int users) {
    int[][] rows = new int[users][];
    for (int i = 0; i < users; i++) {
      rows[i] = rnd.ints(0, D).distinct().limit(1 + rnd.nextInt(XI)).toArray(); // n < 6 too
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

  private static BiasedAccount.Part part(BiasedAccount.Component c, int k) {
    return c.parts().get(k);
  }

  /** Spends {@code expected}: never more (rounding only), less by at most the grid overshoot. */
  private static void assertSpends(double expected, double actual, String what) {
    assertTrue(actual <= expected * (1 + BiasedAccount.TOLERANCE)
        && actual >= expected * (1 - 0x1p-29), what + ": spent " + actual + ", share " + expected);
  }

  /**
   * σ is Δ₀/μ_share up to the rounding slack and the grid (relative &lt; 10⁻⁶, never below), and
   * the part was released {@code releases} times.
   */
  private static void assertSigma(double expected, BiasedAccount.Part part, long releases) {
    double sigma = part.noise().sigma();
    assertTrue(sigma >= expected && sigma <= expected * (1 + 1e-6),
        part.noise().sketch() + ": sigma " + sigma + ", expected " + expected);
    assertEquals(releases, part.releases(), part.noise().sketch());
  }

  private static boolean accepts(double stat, int df) {
    double upper = ChiSquare.upperTail(stat, df);
    return upper > FALSE_ALARM && 1 - upper > FALSE_ALARM;
  }
}
