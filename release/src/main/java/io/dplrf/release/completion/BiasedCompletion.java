package io.dplrf.release.completion;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.pca.RowClipping;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntConsumer;

/**
 * The recommender model users of recommenders know — rating ≈ g + b_j + c_i + (low rank) — under
 * user-level joint DP in one (ε, δ) budget (docs/privacy/completion.md §7):
 * <ol>
 *   <li><b>global offset g</b>: the noisy mean of the users' mean ratings (sum Δ = 2h for the
 *       half-width h of the declared range, active-user count Δ = 1);
 *   <li><b>item biases b_j</b>: each user's ratings centred by g and by her own shrunk mean,
 *       her row scaled to root mean square ≤ τ and weighted by 1/√n_i, so that her whole
 *       contribution has ‖·‖₂ ≤ τ to the item sums (Δ = 2τ) and ‖·‖₂ ≤ 1 to the non-negative
 *       item weights (Δ = √2); the released sums are shrunk by empirical Bayes (a function of the
 *       released values only);
 *   <li><b>the users' spread</b>: how much users' true biases vary against the noise of one
 *       rating, ρ, from each user's clamped estimate (Δ = a + 1/6, {@link #spreadSums}); it
 *       sets the users' shrinkage λ_u = 1/E[ρ̄ | release] ({@link #userShrinkageOf}), so that a
 *       population whose users have no bias of their own gets user biases shrunk to ≈ 0;
 *   <li><b>the model choice</b>: each user's clipped leave-one-out score of the item effects
 *       against the user-only model g + c_i, summed (Δ = 2C, {@link #choiceSums}); the item
 *       effects are kept only when the release clears {@link #CHOICE_Z}σ, otherwise b = 0 and
 *       the model is the floor that joint DP gives for free (docs/privacy/completion.md §8);
 *   <li><b>user biases c_i</b> = Σ(r − g − b_j)/(n_i + λ_u) over all her ratings: computed by
 *       each user from her own row and (g, b, λ_u) — never released, as the local component of
 *       paper 004's Algorithm 1 (billboard lemma);
 *   <li><b>private Frank–Wolfe on the residuals</b> r − g − b − c (paper 004, Algorithm 1),
 *       whose first iteration is the signal test {@link PrivateFrankWolfe#signalThreshold}: when its
 *       top eigenvalue does not clear it, Frank–Wolfe stops and the rest of its share is spent on
 *       a second, independent release of the item sums and weights, combined with the first by
 *       inverse variance.
 * </ol>
 * Every release is recorded with the noise it drew, and the fit checks that the μ they spend is
 * at most μ(ε, δ) ({@link BiasedAccount}). Predictions are clamped to the declared range.
 * Stateless.
 */
public final class BiasedCompletion {
  /**
   * The prior weight of the item-bias shrinkage, in the units of the item weights (a user with n
   * ratings weighs 1/√n): 0.5 is the weight of one user with four ratings. It keeps an item that
   * few light users rated near 0 even without noise.
   */
  static final double PRIOR_WEIGHT = 0.5;

  /** The private fit's mechanism name in release documents and the service's status. */
  public static final String MECHANISM = "private-biased-frank-wolfe";

  private BiasedCompletion() {}

  /**
   * Ratings for this model: every distinct item per user (a later record for an item replaces
   * it), every value clamped to the declared range. Rows are never capped nor scaled: each
   * release of the model bounds a user's contribution whatever her count (docs/privacy/
   * completion.md §7), and only the residual Frank–Wolfe keeps ξ ratings per user (the first ξ
   * in item order, {@link #residualRatings}). A record with a non-finite
   * value or an id outside users × items is dropped before the ξ bound and counted ({@link
   * Ratings#ofUsable}, {@link Ratings#unusable}), as {@code dplrf complete} drops it: that
   * changes its user's row only, never whether the fit runs.
   */
  public static Ratings ratings(int users, int items, BiasedParams p, int[] user, int[] item,
      double[] value) {
    double[] clamped = new double[value.length];
    for (int x = 0; x < value.length; x++) {
      double v = value[x];
      clamped[x] = Double.isFinite(v) ? Math.max(p.ratingMin(), Math.min(p.ratingMax(), v)) : v;
    }
    return Ratings.ofUsable(users, items, items, p.rowBound(items), user, item, clamped);
  }

  /** The private fit; all noise from (key, runLabel): pass a label never used with this key. */
  public static BiasedModel fit(Ratings ratings, BiasedParams p, SecretKey key,
      String runLabel) {
    return fit(ratings, p, key, runLabel, done -> { });
  }

  /**
   * The private fit, with {@code progress} told the residual Frank–Wolfe iterations done (a
   * count of public steps).
   */
  public static BiasedModel fit(Ratings ratings, BiasedParams p, SecretKey key, String runLabel,
      IntConsumer progress) {
    return fitTraced(ratings, p, key, runLabel, progress).model();
  }

  /**
   * Every noisy release of one fit, as released (before any post-processing), for tests that
   * compare them with the exact sums: the global sum and active-user count; the first item sums
   * and weights; the users' spread (sum, a·count), null when λ_u is fixed; the model choice's
   * score; the second item sums and weights, null unless the signal test failed with T &gt; 1.
   */
  record Released(double globalSum, double activeUsers, double[] itemSums, double[] itemWeights,
      double[] spread, double choice, double[] itemSums2, double[] itemWeights2) {}

  /** A fit and its releases. */
  record Traced(BiasedModel model, Released released) {}

  /** {@link #fit}, also returning every noisy release (package-private: for tests). */
  static Traced fitTraced(Ratings ratings, BiasedParams p, SecretKey key, String runLabel,
      IntConsumer progress) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(runLabel, "runLabel");
    checkMatches(ratings, p);
    double mu = AnalyticGaussian.mu(p.privacy().epsilon(), p.privacy().delta());
    BiasedParams.Shares sh = p.shares();
    List<BiasedAccount.Component> spent = new ArrayList<>();
    int d = ratings.items();
    long changed = d; // a user's row may touch every item: the grid slack γ√k with k = d

    // 1. Global offset: μ_g split evenly over the sum and the count.
    double muG = mu * Math.sqrt(sh.global());
    ExactSum[] global = globalSums(ratings, p);
    GaussianSketchNoise gSum = GaussianSketchNoise.calibrate("global sum",
        2 * p.halfWidth(), 1, muG / Math.sqrt(2));
    GaussianSketchNoise gCount = GaussianSketchNoise.calibrate("active users", 1, 1,
        muG / Math.sqrt(2));
    RandomBits gBits = KeyStream.of(key, runLabel + "/biased/global").bits();
    List<BiasedAccount.Part> gParts = new ArrayList<>();
    double gs = release(global[0], gSum, gBits, gParts)[0];
    double gc = release(global[1], gCount, gBits, gParts)[0];
    double offset = offsetOf(p, gs, gc);
    spent.add(new BiasedAccount.Component("global offset", gParts));

    // 2. Item biases: sums Δ = 2τ and weights Δ = √2 (non-negative, norm ≤ 1).
    ExactSum[] item = itemSums(ratings, p, offset);
    GaussianSketchNoise sNoise = GaussianSketchNoise.calibrate("item sums",
        2 * p.itemClip(), changed, mu * Math.sqrt(sh.itemSums()));
    GaussianSketchNoise cNoise = GaussianSketchNoise.calibrate("item weights", Math.sqrt(2),
        changed, mu * Math.sqrt(sh.itemCounts()));
    RandomBits iBits = KeyStream.of(key, runLabel + "/biased/items/1").bits();
    List<BiasedAccount.Part> iParts = new ArrayList<>();
    double[] s = release(item[0], sNoise, iBits, iParts);
    double[] c = release(item[1], cNoise, iBits, iParts);
    spent.add(new BiasedAccount.Component("item biases", iParts));
    double[] s1 = s.clone();
    double[] c1 = c.clone();
    double prior = priorVariance(s, c, sNoise.sigma(), cNoise.sigma());
    double[] bias = shrink(s, c, sNoise.sigma(), cNoise.sigma());

    // 3. The users' spread: λ_u from the released (Σ clamp(ρ̂_i), a·count).
    double lambdaU = p.userShrinkage();
    double[] spread = null;
    if (p.estimatesUserShrinkage()) {
      GaussianSketchNoise uNoise = GaussianSketchNoise.calibrate("users' spread",
          spreadSensitivity(), 2, mu * Math.sqrt(sh.userSpread()));
      RandomBits uBits = KeyStream.of(key, runLabel + "/biased/spread").bits();
      List<BiasedAccount.Part> uParts = new ArrayList<>();
      spread = release(spreadSums(ratings, p, offset, bias), uNoise, uBits, uParts);
      spent.add(new BiasedAccount.Component("users' spread (lambda_u)", uParts));
      lambdaU = withOffsetNoise(userShrinkageOf(spread[0], spread[1], uNoise.sigma()),
          offsetVariance(p, gc, gSum.sigma(), gCount.sigma()), p.itemClip());
    }

    // 4. The model choice: the item effects are kept only when the users' clipped held-out
    // score of them against the user-only model g + c_i clears CHOICE_Z of its noise.
    GaussianSketchNoise chNoise = GaussianSketchNoise.calibrate("model choice",
        2 * choiceClip(p), 1, mu * Math.sqrt(sh.choice()));
    RandomBits chBits = KeyStream.of(key, runLabel + "/biased/choice").bits();
    List<BiasedAccount.Part> chParts = new ArrayList<>();
    double score = release(choiceSums(ratings, p, offset, lambdaU, s1, c1, sNoise.sigma(),
        cNoise.sigma(), prior), chNoise, chBits, chParts)[0];
    spent.add(new BiasedAccount.Component("model choice (item effects)", chParts));
    boolean itemEffects = score > CHOICE_Z * chNoise.sigma();
    if (!itemEffects) {
      bias = new double[d];
    }

    // 5. Frank–Wolfe on the residuals, gated by its first release.
    Ratings res = residualRatings(ratings, p, offset, bias, lambdaU);
    double muR = mu * Math.sqrt(sh.residual());
    int t = p.residual().iterationsFor(ratings.users(), d);
    PrivateFrankWolfe.ShareRun run = PrivateFrankWolfe.fitShare(res, p.residual(), muR, key,
        runLabel + "/biased/residual", true, progress);
    CompletionModel fw = run.model();
    String status;
    double[] s2 = null;
    double[] c2 = null;
    if (fw != null) {
      spent.add(new BiasedAccount.Component("residual Frank-Wolfe (" + t + " iterations)",
          run.parts()));
      status = "used: the first release's top eigenvalue cleared the signal test";
    } else {
      spent.add(new BiasedAccount.Component("residual signal test (Frank-Wolfe iteration 1)",
          run.parts()));
      status = String.format(Locale.ROOT, "not used: the first release's top eigenvalue was"
          + " below the signal test's %.4g (%.3f sigma sqrt(d)); its remaining share went to the"
          + " item biases", PrivateFrankWolfe.signalThreshold(run.plan().eigen().sigma(), d),
          PrivateFrankWolfe.signalThreshold(1, d) / Math.sqrt(d));
      if (t > 1) {
        double rest = muR * Math.sqrt((t - 1.0) / t);
        double fs = sh.itemSums() / (sh.itemSums() + sh.itemCounts());
        GaussianSketchNoise s2Noise = GaussianSketchNoise.calibrate("item sums (second)",
            2 * p.itemClip(), changed, rest * Math.sqrt(fs));
        GaussianSketchNoise c2Noise = GaussianSketchNoise.calibrate("item weights (second)",
            Math.sqrt(2), changed, rest * Math.sqrt(1 - fs));
        RandomBits bits2 = KeyStream.of(key, runLabel + "/biased/items/2").bits();
        List<BiasedAccount.Part> parts2 = new ArrayList<>();
        s2 = release(item[0], s2Noise, bits2, parts2);
        c2 = release(item[1], c2Noise, bits2, parts2);
        spent.add(new BiasedAccount.Component("item biases (second release)", parts2));
        double sigmaS = combine(s, sNoise.sigma(), s2, s2Noise.sigma());
        double sigmaC = combine(c, cNoise.sigma(), c2, c2Noise.sigma());
        bias = itemEffects ? shrink(s, c, sigmaS, sigmaC) : new double[d];
      }
      progress.accept(t);
    }
    BiasedAccount account = new BiasedAccount(p.privacy(), CompletionAccount.BIASED_RELATION, mu,
        spent, fw == null ? Optional.empty() : fw.diagnostics().account());
    // The premise of the guarantee: what the noise actually drawn spends is at most μ(ε, δ).
    if (!(account.muSpent() <= mu * (1 + BiasedAccount.TOLERANCE))) {
      throw new IllegalStateException("the releases spent mu = " + account.muSpent() + " > "
          + mu + " = mu(epsilon, delta)");
    }
    BiasedModel model = BiasedModel.of(p.ratingMin(), p.ratingMax(), p.maxRatingsPerUser(),
        lambdaU, offset, bias, fw, status, Optional.of(account));
    return new Traced(model, new Released(gs, gc, s1, c1, spread, score, s2, c2));
  }

  /** Releases {@code sum} with {@code noise} and records the release in {@code parts}. */
  private static double[] release(ExactSum sum, GaussianSketchNoise noise, RandomBits bits,
      List<BiasedAccount.Part> parts) {
    double[] out = sum.release(noise, bits);
    parts.add(new BiasedAccount.Part(noise.scale(out.length), 1));
    return out;
  }

  /** The non-private twin: the same estimators on the exact sums, Frank–Wolfe always used. */
  public static BiasedModel fitNonPrivate(Ratings ratings, BiasedParams p) {
    checkMatches(ratings, p);
    ExactSum[] global = globalSums(ratings, p);
    double offset = offsetOf(p, global[0].exact()[0], global[1].exact()[0]);
    ExactSum[] item = itemSums(ratings, p, offset);
    double[] bias = shrink(item[0].exact(), item[1].exact(), 0, 0);
    double lambdaU = p.userShrinkage();
    if (p.estimatesUserShrinkage()) {
      double[] spread = spreadSums(ratings, p, offset, bias).exact();
      lambdaU = userShrinkageOf(spread[0], spread[1], 0);
    }
    if (!(choiceSums(ratings, p, offset, lambdaU, item[0].exact(), item[1].exact(), 0, 0,
        Double.POSITIVE_INFINITY).exact()[0] > 0)) {
      bias = new double[ratings.items()];
    }
    CompletionModel fw = PrivateFrankWolfe.fitNonPrivate(
        residualRatings(ratings, p, offset, bias, lambdaU), p.residual());
    return BiasedModel.of(p.ratingMin(), p.ratingMax(), p.maxRatingsPerUser(), lambdaU, offset,
        bias, fw, "used (non-private)", Optional.empty());
  }

  private static void checkMatches(Ratings ratings, BiasedParams p) {
    int d = ratings.items();
    // A whole row is up to d ratings: RowClipping's margin and ExactSum's slack are derived for
    // rows of at most 10^6 entries (docs/privacy/completion.md §7).
    if (d > MAX_ITEMS) {
      throw new IllegalArgumentException("the biased model reads whole rows, and its bounds hold"
          + " for at most " + MAX_ITEMS + " items. Provided value: " + d);
    }
    if (ratings.maxPerUser() != d || ratings.clip() != p.rowBound(d)) {
      throw new IllegalArgumentException("ratings were bounded with " + ratings.maxPerUser()
          + " ratings per user, row bound " + ratings.clip() + " but the model needs every item ("
          + d + "), row bound " + p.rowBound(d) + ": build them with BiasedCompletion.ratings");
    }
  }

  /**
   * Σ_i (mean_i − mid) over users with ratings, each term in [−h, h] (ratings are clamped to the
   * range), and the number of such users. Exact sums ({@link ExactSum}).
   */
  static ExactSum[] globalSums(Ratings r, BiasedParams p) {
    ExactSum sum = new ExactSum(1, p.halfWidth());
    ExactSum count = new ExactSum(1, 1);
    int[] zero = {0};
    for (int i = 0; i < r.users(); i++) {
      int n = r.end(i) - r.start(i);
      if (n == 0) {
        continue;
      }
      double m = 0;
      for (int x = r.start(i); x < r.end(i); x++) {
        m += clamp(r.vals()[x], p) - p.midpoint();
      }
      sum.add(zero, 0, new double[] {Math.max(-p.halfWidth(), Math.min(p.halfWidth(), m / n))},
          1);
      count.addNonNegative(1);
    }
    return new ExactSum[] {sum, count};
  }

  /** g = mid + clamp(sum / max(count, 1), [−h, h]). */
  static double offsetOf(BiasedParams p, double sum, double count) {
    double m = sum / Math.max(count, 1);
    return p.midpoint() + Math.max(-p.halfWidth(), Math.min(p.halfWidth(), m));
  }

  /**
   * The exact item sums Σ_i w_i x_ij and weights Σ_i w_i: x_i = r_i − g − c0_i (c0_i the user's
   * own shrunk mean of r − g), scaled to ‖x_i‖₂ ≤ τ√n_i, w_i = 1/√n_i — so ‖w_i x_i‖₂ ≤ τ and
   * ‖w_i 1_Ω‖₂ = 1. Weighting by 1/√n_i maximises an item's total weight for a fixed per-user
   * norm (Cauchy–Schwarz).
   */
  static ExactSum[] itemSums(Ratings r, BiasedParams p, double offset) {
    int d = r.items();
    ExactSum sums = new ExactSum(d, p.itemClip());
    ExactSum weights = new ExactSum(d, 1);
    double[] x = new double[d];
    double[] ones = new double[d];
    for (int i = 0; i < r.users(); i++) {
      int n = r.end(i) - r.start(i);
      if (n == 0) {
        continue;
      }
      double w = itemContribution(r, i, p, offset, x);
      java.util.Arrays.fill(ones, 0, n, w);
      sums.add(r.cols(), r.start(i), x, n);
      weights.add(r.cols(), r.start(i), ones, n);
    }
    return new ExactSum[] {sums, weights};
  }

  /**
   * User i's contribution to the item sums, w_i x_i on her n_i items (written to {@code x}),
   * and her weight w_i = 1/√n_i: a function of her row and the released g only ({@link
   * #itemSums}; the model choice subtracts it to get the item effects without her).
   */
  private static double itemContribution(Ratings r, int i, BiasedParams p, double offset,
      double[] x) {
    int s = r.start(i);
    int n = r.end(i) - s;
    double own = 0;
    for (int k = 0; k < n; k++) {
      own += clamp(r.vals()[s + k], p) - offset;
    }
    own /= n + p.userShrinkage();
    double[] row = new double[n];
    for (int k = 0; k < n; k++) {
      row[k] = clamp(r.vals()[s + k], p) - offset - own;
    }
    double w = 1 / Math.sqrt(n);
    RowClipping.clipInPlace(row, p.itemClip() * Math.sqrt(n));
    for (int k = 0; k < n; k++) {
      x[k] = w * row[k];
    }
    return w;
  }

  /**
   * C = (max − min)²/64, the clip of each user's score in the model choice ({@link
   * #choiceSums}): a squared-error difference lies in [−(max − min)², (max − min)²]; 1/64 of
   * that keeps the noise (Δ = 2C) small. Measured on one benchmark split at ε = 1 and 5
   * against no clip beyond (max − min)²/16: /32 changes the exact score by under 4%, /64 by
   * 15–22% on Jester and under 1% on MovieLens, while each halving of C halves the noise.
   */
  static double choiceClip(BiasedParams p) {
    double w = p.ratingMax() - p.ratingMin();
    return w * w / 64;
  }

  /**
   * The model choice keeps the item effects when its released score exceeds this many times its
   * noise σ: when they are no better than the user-only model (score ≤ 0), the chance of keeping
   * them is at most Φ(−2) = 2.3%.
   */
  static final double CHOICE_Z = 2;
  /** The most items a whole row may span: the rounding margins' premise (RowClipping). */
  static final int MAX_ITEMS = 1_000_000;

  /**
   * The exact sum of the users' held-out scores of the item effects against the user-only
   * model. User i (n_i ≥ 2) computes, from her row and released values only: the item effects
   * without her, b⁽⁻ⁱ⁾_j = shrink(s̃_j − w_i x_ij, c̃_j − w_i) on her items (her own
   * contribution, {@link #itemContribution}, taken out of the released sums); for each of her
   * ratings j, both models' predictions from her other ratings, p⁰ = clamp(g + c⁰) with c⁰ =
   * Σ_{k≠j}(r_k − g)/(n_i − 1 + λ_u), and p¹ = clamp(g + b⁽⁻ⁱ⁾_j + c¹) with c¹ = Σ_{k≠j}(r_k −
   * g − b⁽⁻ⁱ⁾_k)/(n_i − 1 + λ_u); and d_i = clamp(mean_j [(r_j − p⁰)² − (r_j − p¹)²], [−C, C])
   * (C = {@link #choiceClip}). d_i &gt; 0 says the item effects predict her held-out ratings
   * better. Each user adds one scalar in [−C, C] (nothing with n_i &lt; 2), and another user's
   * d depends on her own row and the released values only, so replacing a user moves the sum by
   * at most 2C (docs/privacy/completion.md §8).
   */
  static ExactSum choiceSums(Ratings r, BiasedParams p, double offset, double lambdaU,
      double[] s, double[] c, double sigmaS, double sigmaC, double prior) {
    double clip = choiceClip(p);
    ExactSum sum = new ExactSum(1, clip);
    int[] zero = {0};
    double[] x = new double[r.items()];
    for (int i = 0; i < r.users(); i++) {
      int st = r.start(i);
      int n = r.end(i) - st;
      if (n < 2) {
        continue;
      }
      double w = itemContribution(r, i, p, offset, x);
      double[] b = new double[n];
      double sum0 = 0;
      double sum1 = 0;
      for (int k = 0; k < n; k++) {
        int j = r.cols()[st + k];
        b[k] = shrinkOne(s[j] - x[k], c[j] - w, sigmaS, sigmaC, prior);
        double y = clamp(r.vals()[st + k], p) - offset;
        sum0 += y;
        sum1 += y - b[k];
      }
      double den = n - 1 + lambdaU;
      double score = 0;
      for (int k = 0; k < n; k++) {
        double rating = clamp(r.vals()[st + k], p);
        double y = rating - offset;
        double p0 = clamp(offset + (sum0 - y) / den, p);
        double p1 = clamp(offset + b[k] + (sum1 - (y - b[k])) / den, p);
        score += (rating - p0) * (rating - p0) - (rating - p1) * (rating - p1);
      }
      sum.add(zero, 0, new double[] {Math.max(-clip, Math.min(clip, score / n))}, 1);
    }
    return sum;
  }

  /**
   * b_j = s_j / (c⁺_j + {@link #PRIOR_WEIGHT} + σ_s²/(c⁺_j·v)), c⁺_j = max(c_j, σ_c): the
   * posterior mean of b_j for s_j = c_j b_j + N(0, σ_s²) and a prior b_j ~ (0, v), with
   * v = mean over items with c_j &gt; 3σ_c of (s_j² − σ_s²)/c_j² (empirical Bayes; post-processing
   * of the released s, c). Without noise (σ = 0) it is s_j/(c_j + prior).
   */
  static double[] shrink(double[] s, double[] c, double sigmaS, double sigmaC) {
    double v = priorVariance(s, c, sigmaS, sigmaC);
    double[] b = new double[s.length];
    for (int j = 0; j < b.length; j++) {
      b[j] = shrinkOne(s[j], c[j], sigmaS, sigmaC, v);
    }
    return b;
  }

  /**
   * v of {@link #shrink}: the mean over items with c_j &gt; 3σ_c of (s_j² − σ_s²)/c_j², floored
   * at 0; +∞ without noise (σ_s = 0).
   */
  static double priorVariance(double[] s, double[] c, double sigmaS, double sigmaC) {
    if (sigmaS == 0) {
      return Double.POSITIVE_INFINITY;
    }
    double sum = 0;
    int n = 0;
    for (int j = 0; j < s.length; j++) {
      if (c[j] > 3 * sigmaC && c[j] > 0) {
        sum += (s[j] * s[j] - sigmaS * sigmaS) / (c[j] * c[j]);
        n++;
      }
    }
    return n == 0 ? 0 : Math.max(0, sum / n);
  }

  /** One item's b_j of {@link #shrink} under the prior variance v (0: no item bias). */
  static double shrinkOne(double s, double c, double sigmaS, double sigmaC, double v) {
    if (v == 0) {
      return 0; // no item shows a bias above the noise: all shrunk to 0
    }
    double cp = Math.max(c, sigmaC);
    double noise = sigmaS == 0 ? 0 : sigmaS * sigmaS / (Math.max(cp, 1e-300) * v);
    double den = Math.max(cp, 0) + PRIOR_WEIGHT + noise;
    return s / den;
  }

  /** −1/6: the lower clamp of ρ̂_i (a bound it meets anyway, ρ̂_i ≥ −1/n_i). */
  private static final double SPREAD_LOW = -1.0 / BiasedParams.SPREAD_MIN_RATINGS;

  /**
   * Δ of the users' spread, max(a − (−1/6), √2·a) = a + 1/6 (see {@link #spreadSums}); the max
   * keeps it right whatever a is, and a + 1/6 exceeds √2·a by 10⁻³ for a = 0.4, far beyond
   * rounding.
   */
  static double spreadSensitivity() {
    double a = BiasedParams.SPREAD_CLIP;
    return Math.max(a - SPREAD_LOW, Math.sqrt(2) * a);
  }

  /**
   * The exact sums of the users' spread: Σ_i clamp(ρ̂_i, [−1/6, a]) and a·#{i : n_i ≥ 6} (a =
   * {@link BiasedParams#SPREAD_CLIP}), over users with n_i ≥ 6
   * ({@link BiasedParams#SPREAD_MIN_RATINGS}). User i's e_ij = r_ij − g − b_j on her items (her
   * row and the released g, b), their mean ē_i and sample variance w_i, and ρ̂_i =
   * (ē_i²/w_i)·(n_i − 3)/(n_i − 1) − 1/n_i: if e_ij = β_i + N(0, s²) with β_i of variance τ²
   * over users, E[ē²] = τ² + s²/n and E[1/w] = (n − 1)/((n − 3)s²), so E ρ̂_i = τ²/s² = ρ (in
   * practice e_ij also carries the item biases' error and residual signal, so this is a
   * heuristic for utility; docs/privacy/completion.md §7). ρ̂_i ≥ −1/n_i ≥ −1/6, so the lower
   * clamp only makes that bound exact in floating point. Each user adds (clamp(ρ̂_i), a) or
   * nothing: two users' contributions differ by ≤ a + 1/6 (both counted: the counts cancel
   * exactly) or ≤ √2·a &lt; a + 1/6 (one counted), so Δ = a + 1/6 ({@link #spreadSensitivity}).
   */
  static ExactSum spreadSums(Ratings r, BiasedParams p, double offset, double[] bias) {
    double a = BiasedParams.SPREAD_CLIP;
    ExactSum sums = new ExactSum(2, 2 * a); // (ρ̂, a) has norm ≤ √2·a: never clipped
    int[] both = {0, 1};
    for (int i = 0; i < r.users(); i++) {
      int s = r.start(i);
      int n = r.end(i) - s;
      if (n < BiasedParams.SPREAD_MIN_RATINGS) {
        continue;
      }
      double mean = 0;
      for (int x = s; x < s + n; x++) {
        mean += clamp(r.vals()[x], p) - offset - bias[r.cols()[x]];
      }
      mean /= n;
      double w = 0;
      for (int x = s; x < s + n; x++) {
        double e = clamp(r.vals()[x], p) - offset - bias[r.cols()[x]] - mean;
        w += e * e;
      }
      w /= n - 1;
      double ratio = mean == 0 ? 0 : w == 0 ? Double.POSITIVE_INFINITY : mean * mean / w;
      double rho = ratio * (n - 3.0) / (n - 1.0) - 1.0 / n;
      sums.add(both, 0, new double[] {Math.max(SPREAD_LOW, Math.min(a, rho)), a}, 2);
    }
    return sums;
  }

  /**
   * λ_u = 1/E[ρ̄ | released], ρ̄ the mean of the clamped ρ̂_i over the counted users (a
   * statistic of the data in [−1/6, a]). The released (S, K) are (Σ clamp(ρ̂_i), a·N) plus
   * independent N(0, σ²) each; with a flat prior on the unknown N, S − ρ̄K/a ~ N(0, σ²(1 +
   * ρ̄²/a²)), and with a uniform prior on ρ̄ ∈ [0, a] the posterior mean is a one-dimensional
   * integral (post-processing of the release). Why 1/E[ρ̄]: a user with n ratings whose bias is
   * estimated as α·ē loses (1 − α)²τ² + α²s²/n in expected squared error, linear in ρ = τ²/s²,
   * so the best α is E[ρ]/(E[ρ] + 1/n), i.e. λ_u = 1/E[ρ] — which is 1/E[ρ̄] only if ρ̄
   * estimates ρ, as it does for e_ij = β_i + Gaussian noise without clamping: a heuristic for
   * utility (docs/privacy/completion.md §7). Without noise (σ = 0) ρ̄ = clamp(aS/K, [0, a]).
   * It is floored at 10⁻⁹ (λ_u ≤ 10⁹, no user bias in practice).
   */
  static double userShrinkageOf(double sum, double count, double sigma) {
    double a = BiasedParams.SPREAD_CLIP;
    double rho;
    if (sigma == 0) {
      rho = count > 0 ? Math.max(0, Math.min(a, a * sum / count)) : a / 2;
    } else {
      int points = 100_000;
      double[] logw = new double[points];
      double max = Double.NEGATIVE_INFINITY;
      for (int k = 0; k < points; k++) {
        double r = a * (k + 0.5) / points;
        double v = 1 + r * r / (a * a);
        double z = sum - r * count / a;
        logw[k] = -z * z / (2 * sigma * sigma * v) - 0.5 * Math.log(v);
        max = Math.max(max, logw[k]);
      }
      double num = 0;
      double den = 0;
      for (int k = 0; k < points; k++) {
        double w = Math.exp(logw[k] - max);
        num += w * a * (k + 0.5) / points;
        den += w;
      }
      rho = num / den;
    }
    return 1 / Math.max(rho, 1e-9);
  }

  /**
   * The variance of the released offset g's error, to first order: g − mid = s̃/c̃ with s̃ and c̃
   * of noise σ_s, σ_c, and |s/c| ≤ h, so Var ≈ (σ_s² + h²σ_c²)/max(c̃, 1)² (post-processing of
   * the released count and the public σ's).
   */
  static double offsetVariance(BiasedParams p, double count, double sigmaSum,
      double sigmaCount) {
    double c = Math.max(count, 1);
    double h = p.halfWidth();
    return (sigmaSum * sigmaSum + h * h * sigmaCount * sigmaCount) / (c * c);
  }

  /**
   * λ_u when the shrinkage target g is itself noisy: a user's bias shrunk toward a g off by e
   * (variance σ_g²) loses (1 − α)²(τ_u² + σ_g²) + α²s²/n, minimised at λ = s²/(τ_u² + σ_g²) =
   * 1/(1/λ_u + σ_g²/s²) (the derivation of {@link #userShrinkageOf} with σ_g² added to the
   * users' spread). s, the spread of one user's ratings around her mean, is not released; the
   * model's public guess for it is τ (the item clip, the root mean square of a user's centred
   * ratings). At ε = 0.1 this takes λ_u from ≈ 5 to ≈ 1–2 on the benchmark's sets, where the
   * offset's error is a large part of a rating's spread; at ε ≥ 1 it changes λ_u by under 5%.
   */
  static double withOffsetNoise(double lambdaU, double offsetVariance, double tau) {
    return 1 / (1 / lambdaU + offsetVariance / (tau * tau));
  }

  /**
   * Overwrites {@code a} with the inverse-variance mean of two independent noisy releases of the
   * same exact vector; returns its σ, 1/√(1/σ_a² + 1/σ_b²) (post-processing).
   */
  static double combine(double[] a, double sigmaA, double[] b, double sigmaB) {
    double wa = 1 / (sigmaA * sigmaA);
    double wb = 1 / (sigmaB * sigmaB);
    for (int j = 0; j < a.length; j++) {
      a[j] = (wa * a[j] + wb * b[j]) / (wa + wb);
    }
    return 1 / Math.sqrt(wa + wb);
  }

  /**
   * Every user's residuals r − g − b_j − c_i (c_i with λ_u = {@code userShrinkage}) on her
   * items, as {@link Ratings} bounded with the residual model's ξ and L (rows scaled to ‖·‖₂ ≤
   * L). User i's row is a function of her own row and the released (g, b, λ_u) only: the same as
   * {@link BiasedModel#predictUser} computes.
   */
  static Ratings residualRatings(Ratings r, BiasedParams p, double offset, double[] bias,
      double userShrinkage) {
    BiasedModel m = BiasedModel.of(p.ratingMin(), p.ratingMax(), p.maxRatingsPerUser(),
        userShrinkage, offset, bias, null, "", Optional.empty());
    int[] user = new int[r.size()];
    int[] item = new int[r.size()];
    double[] value = new double[r.size()];
    int out = 0;
    for (int i = 0; i < r.users(); i++) {
      Ratings.Row row = r.row(i);
      double[] z = m.residuals(row, m.userBias(row));
      for (int k = 0; k < z.length; k++) {
        user[out] = i;
        item[out] = row.items()[k];
        value[out++] = z[k];
      }
    }
    return Ratings.of(r.users(), r.items(), p.maxRatingsPerUser(), p.residual().clip(), user,
        item, value);
  }

  private static double clamp(double v, BiasedParams p) {
    return Math.max(p.ratingMin(), Math.min(p.ratingMax(), v));
  }
}
