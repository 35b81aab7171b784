package io.dplrf.bench;

import io.dplrf.deploy.oneshot.CompletionOneShot;
import io.dplrf.deploy.oneshot.CompletionOneShot.Triples;
import io.dplrf.release.completion.BiasedCompletion;
import io.dplrf.release.completion.BiasedModel;
import io.dplrf.release.completion.BiasedParams;
import io.dplrf.release.completion.CompletionParams;
import io.dplrf.release.completion.ItemMeans;
import io.dplrf.release.completion.PrivateFrankWolfe;
import io.dplrf.release.completion.Ratings;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * {@code dplrf bench completion}: test RMSE against ε of the biased private completion model
 * ({@link BiasedCompletion}: global offset, user biases, item effects kept or dropped by the
 * model choice, private Frank–Wolfe on the residuals, one budget) beside, from the same split in
 * the same run, the non-private global mean, per-user mean, item mean and user + item biases
 * ({@link CompletionOneShot#baselines}, from every training rating) and the user-level DP item
 * means. Every set on its full item set. Per run: a fresh split (real sets: 80/20, uniform;
 * synthetic: 4 test items per user) and fresh noise; ξ = 80 for the residual Frank–Wolfe; δ
 * fixed. Test keys only: nothing printed is labelled private.
 */
public final class CompletionBench {
  /** Ratings per user kept for training (paper 004 §4). */
  static final int XI = 80;

  /**
   * One benchmark dataset: all ratings, the public rating range [lo, hi] (declared to the model;
   * every method's predictions are clamped to it), the clip L of the DP item-means baseline
   * (which centres on the midpoint).
   */
  public record Dataset(String name, Triples all, int users, int items, double lo, double hi,
      double offset, double clip, boolean syntheticSplit) {}

  /**
   * Mean and standard deviation over runs of one method's test RMSE; {@code residualUsed}: in how
   * many runs the private model kept its Frank–Wolfe component (−1: not applicable).
   */
  public record Cell(String method, double epsilon, double mean, double sd, double seconds,
      int residualUsed, int itemEffectsUsed) {}

  /**
   * Public knobs of the model, as multiples of its defaults (1 = the default); {@code
   * userShrinkage} a fixed λ_u, or NaN for the default (estimated privately).
   */
  public record Knobs(double rowNorm, double itemClip, double userShrinkage, int iterations,
      double nuclearNorm) {
    public static final Knobs DEFAULT = new Knobs(1, 1, Double.NaN, 0, 1);
  }

  private final double delta;
  private final int runs;
  private final long seed;
  private final Knobs knobs;

  public CompletionBench(double delta, int runs, long seed, Knobs knobs) {
    this.delta = delta;
    this.runs = runs;
    this.seed = seed;
    this.knobs = knobs;
  }

  /**
   * The paper's synthetic set: Y* = u vᵀ with u, v uniform in [−1, 1] (so ‖Y*‖_∞ ≤ 1). Each user
   * gets 84 distinct random items: 4 (1% of 400) for the test set, 80 for training — the paper's
   * "1% of all entries held out, ≤ 80 of the rest per user", with exactly 4 test entries per user.
   */
  public static Dataset synthetic(int users, int items, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] u = new double[users];
    double[] v = new double[items];
    for (int i = 0; i < users; i++) {
      u[i] = 2 * rnd.nextDouble() - 1;
    }
    for (int j = 0; j < items; j++) {
      v[j] = 2 * rnd.nextDouble() - 1;
    }
    int test = Math.max(1, items / 100);
    int per = Math.min(items, XI + test);
    CompletionOneShot.TripleBuffer b = new CompletionOneShot.TripleBuffer();
    int[] perm = new int[items];
    for (int i = 0; i < users; i++) {
      for (int j = 0; j < items; j++) {
        perm[j] = j;
      }
      for (int x = 0; x < per; x++) {
        int y = x + rnd.nextInt(items - x);
        int t = perm[x];
        perm[x] = perm[y];
        perm[y] = t;
        b.add(i, perm[x], u[i] * v[perm[x]]);
      }
    }
    return new Dataset("synthetic rank-one " + users + " x " + items, b.toTriples(), users,
        items, -1, 1, 0, 3, true);
  }

  /** Ratings read from a file, ids already 0-based. */
  public static Dataset fromTriples(String name, Triples t, double lo, double hi, double scale,
      double shift, double clip) {
    double[] v = t.value().clone();
    int users = 0;
    int items = 0;
    for (int x = 0; x < v.length; x++) {
      v[x] = v[x] * scale + shift;
      users = Math.max(users, t.user()[x] + 1);
      items = Math.max(items, t.item()[x] + 1);
    }
    return new Dataset(name, new Triples(t.user(), t.item(), v), users, items, lo, hi,
        (lo + hi) / 2, clip, false);
  }

  /** The model's parameters for (ε, δ) on {@code ds}: the defaults scaled by the knobs. */
  BiasedParams params(Dataset ds, double epsilon) {
    BiasedParams p = BiasedParams.of(new PrivacyParams(epsilon, delta), XI, ds.lo(), ds.hi());
    CompletionParams r = p.residual();
    double l = r.clip() * knobs.rowNorm();
    double k = r.withNuclearNorm(0).nuclearNormFor(ds.users(), ds.items()) / r.clip() * l
        * knobs.nuclearNorm();
    r = new CompletionParams(r.privacy(), XI, l, knobs.iterations(), k,
        PrivateFrankWolfe.solverFor(ds.items()), r.ojaSteps(), r.beta());
    p = p.withResidual(r).withItemClip(p.itemClip() * knobs.itemClip());
    return Double.isNaN(knobs.userShrinkage()) ? p : p.withUserShrinkage(knobs.userShrinkage());
  }

  public List<Cell> run(Dataset ds, double[] epsilons, PrintStream out) {
    int methods = 2;
    double[][][] rmse = new double[epsilons.length][methods][runs];
    double[][][] secs = new double[epsilons.length][methods][runs];
    int[] used = new int[epsilons.length];
    int[] itemsUsed = new int[epsilons.length];
    double[][] base = new double[TRIVIAL.length][runs];
    double[][] baseSecs = new double[TRIVIAL.length][runs];
    for (int r = 0; r < runs; r++) {
      Triples[] split = split(ds, seed * 1000 + r);
      Triples train = split[0];
      Triples test = split[1];
      SecretKey key = SecretKey.forTesting(seed * 1000 + r);
      double[][] trivial = trivial(ds, train, test);
      for (int b = 0; b < TRIVIAL.length; b++) {
        base[b][r] = rmse(ds, trivial[b], test);
      }
      BiasedParams p1 = params(ds, 1);
      Ratings bounded = BiasedCompletion.ratings(ds.users(), ds.items(), p1, train.user(),
          train.item(), train.value());
      Triples centred = CompletionOneShot.shift(train, -ds.offset());
      Ratings clipped = Ratings.of(ds.users(), ds.items(), XI, ds.clip(), centred.user(),
          centred.item(), centred.value());
      for (int e = 0; e < epsilons.length; e++) {
        PrivacyParams privacy = new PrivacyParams(epsilons[e], delta);
        String label = "bench/completion/" + ds.name() + "/" + r + "/" + epsilons[e];
        long s0 = System.nanoTime();
        BiasedModel m = BiasedCompletion.fit(bounded, params(ds, epsilons[e]), key,
            label + "/biased");
        secs[e][0][r] = (System.nanoTime() - s0) / 1e9;
        rmse[e][0][r] = rmse(ds, CompletionOneShot.predict(m, bounded, test), test);
        used[e] += m.residual().isPresent() ? 1 : 0;
        itemsUsed[e] += m.usesItemEffects() ? 1 : 0;
        long s1 = System.nanoTime();
        ItemMeans.Estimate dp = ItemMeans.fit(clipped, privacy, key, label + "/means");
        secs[e][1][r] = (System.nanoTime() - s1) / 1e9;
        double[] pm = new double[test.size()];
        for (int x = 0; x < pm.length; x++) {
          pm[x] = dp.means()[test.item()[x]] + ds.offset();
        }
        rmse[e][1][r] = rmse(ds, pm, test);
      }
      out.printf(Locale.ROOT, "  %s: run %d/%d done (residual T = %d)%n", ds.name(), r + 1,
          runs, params(ds, 1).residual().iterationsFor(ds.users(), ds.items()));
    }
    List<Cell> cells = new ArrayList<>();
    for (int b = 0; b < TRIVIAL.length; b++) {
      cells.add(cell(TRIVIAL[b], Double.POSITIVE_INFINITY, base[b], baseSecs[b], -1, -1));
    }
    for (int e = 0; e < epsilons.length; e++) {
      cells.add(cell(MODEL, epsilons[e], rmse[e][0], secs[e][0], used[e], itemsUsed[e]));
      cells.add(cell("DP item means", epsilons[e], rmse[e][1], secs[e][1], -1, -1));
    }
    return cells;
  }

  /** The private model's column. */
  static final String MODEL = "private biased model";

  /** The non-private baselines, in the order {@link CompletionOneShot#baselines} gives them. */
  static final String[] TRIVIAL = CompletionOneShot.BASELINES;

  /** The baselines' predictions at the test pairs ({@link CompletionOneShot#baselines}). */
  static double[][] trivial(Dataset ds, Triples train, Triples test) {
    return CompletionOneShot.baselines(ds.users(), ds.items(), train, test);
  }

  /**
   * [train, test]: real sets a uniform {@link #TEST_FRACTION} of all ratings, from the run's
   * seed (the same split for every ε and method); synthetic, the first 1% of each user's.
   */
  private static Triples[] split(Dataset ds, long splitSeed) {
    CompletionOneShot.TripleBuffer train = new CompletionOneShot.TripleBuffer();
    CompletionOneShot.TripleBuffer test = new CompletionOneShot.TripleBuffer();
    Triples all = ds.all();
    SplittableRandom rnd = new SplittableRandom(splitSeed);
    int testPerUser = Math.max(1, ds.items() / 100);
    int seen = 0;
    int prevUser = -1;
    for (int x = 0; x < all.size(); x++) {
      boolean isTest;
      if (ds.syntheticSplit()) {
        seen = all.user()[x] == prevUser ? seen + 1 : 0;
        prevUser = all.user()[x];
        isTest = seen < testPerUser;
      } else {
        isTest = rnd.nextDouble() < TEST_FRACTION;
      }
      (isTest ? test : train).add(all.user()[x], all.item()[x], all.value()[x]);
    }
    return new Triples[] {train.toTriples(), test.toTriples()};
  }

  /** The share of a real set's ratings held out for the test: an 80/20 split. */
  static final double TEST_FRACTION = 0.2;

  /** RMSE of the predictions, clamped to the public rating range. */
  private static double rmse(Dataset ds, double[] predictions, Triples test) {
    double[] p = new double[predictions.length];
    for (int x = 0; x < p.length; x++) {
      p[x] = Math.max(ds.lo(), Math.min(ds.hi(), predictions[x]));
    }
    return CompletionOneShot.rmse(p, test.value());
  }

  private static Cell cell(String method, double eps, double[] values, double[] seconds,
      int residualUsed, int itemEffectsUsed) {
    double mean = 0;
    for (double v : values) {
      mean += v / values.length;
    }
    double ss = 0;
    for (double v : values) {
      ss += (v - mean) * (v - mean);
    }
    double sd = values.length > 1 ? Math.sqrt(ss / (values.length - 1)) : 0;
    double time = 0;
    for (double s : seconds) {
      time += s / seconds.length;
    }
    return new Cell(method, eps, mean, sd, time, residualUsed, itemEffectsUsed);
  }

  /** A Markdown table: one row per ε, one column per method (mean ± sd over runs). */
  public static void printTable(Dataset ds, int runs, List<Cell> cells, double[] epsilons,
      PrintStream out) {
    List<String> methods = cells.stream().filter(c -> Double.isFinite(c.epsilon()))
        .map(Cell::method).distinct().toList();
    out.printf(Locale.ROOT, "%n%s (%d users x %d items, %d ratings, range [%s, %s]; %d runs)%n%n",
        ds.name(), ds.users(), ds.items(), ds.all().size(), ds.lo(), ds.hi(), runs);
    StringBuilder h = new StringBuilder("| eps |");
    StringBuilder sep = new StringBuilder("|---|");
    List<String> fixed = cells.stream().filter(c -> !Double.isFinite(c.epsilon()))
        .map(Cell::method).toList();
    for (String m : fixed) {
      h.append(' ').append(m).append(" (non-private) |");
      sep.append("---|");
    }
    for (String m : methods) {
      h.append(' ').append(m).append(" |");
      sep.append("---|");
    }
    out.println(h);
    out.println(sep);
    for (double e : epsilons) {
      StringBuilder row = new StringBuilder("| " + e + " |");
      for (String m : fixed) {
        Cell c = cells.stream().filter(x -> x.method().equals(m)).findFirst().orElseThrow();
        row.append(String.format(Locale.ROOT, " %.4f ± %.4f |", c.mean(), c.sd()));
      }
      for (String m : methods) {
        Cell c = cells.stream().filter(x -> x.method().equals(m) && x.epsilon() == e)
            .findFirst().orElseThrow();
        row.append(String.format(Locale.ROOT, " %.4f ± %.4f |", c.mean(), c.sd()));
      }
      out.println(row);
    }
    for (Cell c : cells) {
      if (c.residualUsed() >= 0) {
        out.printf(Locale.ROOT, "eps %s: %s kept its item effects in %d and its residual"
            + " Frank-Wolfe in %d of %d runs%n", c.epsilon(), c.method(), c.itemEffectsUsed(),
            c.residualUsed(), runs);
      }
    }
    for (String m : methods) {
      double t = cells.stream().filter(x -> x.method().equals(m))
          .mapToDouble(Cell::seconds).average().orElse(0);
      out.printf(Locale.ROOT, "mean fit time %s: %.1f s%n", m, t);
    }
  }

  /** Writes the figure (one panel per dataset) as SVG. */
  public static void writeSvg(Path file, List<Dataset> sets, List<List<Cell>> cells,
      double[] epsilons) throws java.io.IOException {
    java.nio.file.Files.writeString(file, CompletionPlot.svg(sets, cells, epsilons));
  }
}
