package io.dplrf.bench;

import io.dplrf.deploy.oneshot.CompletionOneShot;
import io.dplrf.deploy.oneshot.CompletionOneShot.Triples;
import io.dplrf.release.completion.CompletionModel;
import io.dplrf.release.completion.CompletionParams;
import io.dplrf.release.completion.EigenSolver;
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
 * {@code dplrf bench completion}: paper 004's Figure 2 protocol — test RMSE against ε for private
 * Frank–Wolfe (Algorithm 1, and with Algorithm 2's Oja solver), beside the non-private FW
 * baseline, a user-level DP item-means baseline and the constant (offset) predictor, all from the
 * same split in the same run. Per run: a fresh 1% test split and fresh noise; ≤ ξ = 80 training
 * ratings per user; δ fixed. Test keys only: nothing printed is labelled private.
 */
public final class CompletionBench {
  /** Ratings per user kept for training (paper 004 §4). */
  static final int XI = 80;

  /**
   * One benchmark dataset: all ratings, the public rating range [lo, hi] (predictions are clamped
   * to it, post-processing), the public offset subtracted before training, the clip L.
   */
  public record Dataset(String name, Triples all, int users, int items, double lo, double hi,
      double offset, double clip, boolean syntheticSplit) {}

  /** Mean and standard deviation over runs of one method's test RMSE. */
  public record Cell(String method, double epsilon, double mean, double sd, double seconds) {}

  private final double delta;
  private final int runs;
  private final long seed;
  private final int iterations;
  private final int ojaSteps;

  public CompletionBench(double delta, int runs, long seed, int iterations, int ojaSteps) {
    this.delta = delta;
    this.runs = runs;
    this.seed = seed;
    this.iterations = iterations;
    this.ojaSteps = ojaSteps;
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

  public List<Cell> run(Dataset ds, double[] epsilons, boolean oja, PrintStream out) {
    int methods = 3 + (oja ? 1 : 0);
    double[][][] rmse = new double[epsilons.length + 1][methods][runs];
    double[][][] secs = new double[epsilons.length + 1][methods][runs];
    for (int r = 0; r < runs; r++) {
      Triples[] split = split(ds, seed * 1000 + r);
      Triples train = CompletionOneShot.shift(split[0], -ds.offset());
      Triples test = split[1];
      Ratings ratings = Ratings.of(ds.users(), ds.items(), XI, ds.clip(), train.user(),
          train.item(), train.value());
      SecretKey key = SecretKey.forTesting(seed * 1000 + r);
      CompletionParams base = CompletionParams.of(new PrivacyParams(1, delta), XI, ds.clip())
          .withIterations(iterations);
      double[] constant = new double[test.size()];
      rmse[0][1][r] = rmse(ds, constant, test); // the offset itself
      long t0 = System.nanoTime();
      CompletionModel np = PrivateFrankWolfe.fitNonPrivate(ratings, base);
      secs[0][0][r] = (System.nanoTime() - t0) / 1e9;
      rmse[0][0][r] = rmse(ds, CompletionOneShot.predict(np, ratings, test), test);
      for (int e = 0; e < epsilons.length; e++) {
        PrivacyParams privacy = new PrivacyParams(epsilons[e], delta);
        CompletionParams p = new CompletionParams(privacy, XI, ds.clip(), iterations, 0,
            EigenSolver.FULL, ojaSteps, CompletionParams.DEFAULT_BETA);
        String label = "bench/completion/" + ds.name() + "/" + r + "/" + epsilons[e];
        long s0 = System.nanoTime();
        CompletionModel full = PrivateFrankWolfe.fit(ratings, p, key, label + "/full");
        secs[e + 1][0][r] = (System.nanoTime() - s0) / 1e9;
        rmse[e + 1][0][r] = rmse(ds, CompletionOneShot.predict(full, ratings, test), test);
        long s1 = System.nanoTime();
        ItemMeans.Release means = ItemMeans.fit(ratings, privacy, key, label + "/means");
        secs[e + 1][1][r] = (System.nanoTime() - s1) / 1e9;
        double[] pm = new double[test.size()];
        for (int x = 0; x < pm.length; x++) {
          pm[x] = means.means()[test.item()[x]];
        }
        rmse[e + 1][1][r] = rmse(ds, pm, test);
        if (oja) {
          long s2 = System.nanoTime();
          CompletionModel o = PrivateFrankWolfe.fit(ratings,
              p.withSolver(EigenSolver.OJA, ojaSteps), key, label + "/oja");
          secs[e + 1][3][r] = (System.nanoTime() - s2) / 1e9;
          rmse[e + 1][3][r] = rmse(ds, CompletionOneShot.predict(o, ratings, test), test);
        }
      }
      out.printf(Locale.ROOT, "  %s: run %d/%d done (T = %d)%n", ds.name(), r + 1, runs,
          np.iterations());
    }
    List<Cell> cells = new ArrayList<>();
    cells.add(cell("non-private FW", Double.POSITIVE_INFINITY, rmse[0][0], secs[0][0]));
    cells.add(cell("constant (offset)", Double.POSITIVE_INFINITY, rmse[0][1], secs[0][1]));
    for (int e = 0; e < epsilons.length; e++) {
      cells.add(cell("private FW", epsilons[e], rmse[e + 1][0], secs[e + 1][0]));
      if (oja) {
        cells.add(cell("private FW (Oja)", epsilons[e], rmse[e + 1][3], secs[e + 1][3]));
      }
      cells.add(cell("DP item means", epsilons[e], rmse[e + 1][1], secs[e + 1][1]));
    }
    return cells;
  }

  /** [train, test]: 1% of all ratings, uniformly (or, synthetic, the first 1% of each user's). */
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
        isTest = rnd.nextDouble() < 0.01;
      }
      (isTest ? test : train).add(all.user()[x], all.item()[x], all.value()[x]);
    }
    return new Triples[] {train.toTriples(), test.toTriples()};
  }

  /** RMSE of offset + prediction, clamped to the public rating range. */
  private static double rmse(Dataset ds, double[] centred, Triples test) {
    double[] p = new double[centred.length];
    for (int x = 0; x < p.length; x++) {
      p[x] = Math.max(ds.lo(), Math.min(ds.hi(), centred[x] + ds.offset()));
    }
    return CompletionOneShot.rmse(p, test.value());
  }

  private static Cell cell(String method, double eps, double[] values, double[] seconds) {
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
    return new Cell(method, eps, mean, sd, time);
  }

  /** A Markdown table: one row per ε, one column per method (mean ± sd over runs). */
  public static void printTable(Dataset ds, int runs, List<Cell> cells, double[] epsilons,
      PrintStream out) {
    List<String> methods = cells.stream().filter(c -> Double.isFinite(c.epsilon()))
        .map(Cell::method).distinct().toList();
    out.printf(Locale.ROOT, "%n%s (%d users x %d items, %d ratings; L = %s; %d runs)%n%n",
        ds.name(), ds.users(), ds.items(), ds.all().size(), ds.clip(), runs);
    StringBuilder h = new StringBuilder("| eps |");
    StringBuilder sep = new StringBuilder("|---|");
    for (String m : methods) {
      h.append(' ').append(m).append(" |");
      sep.append("---|");
    }
    out.println(h);
    out.println(sep);
    for (double e : epsilons) {
      StringBuilder row = new StringBuilder("| " + e + " |");
      for (String m : methods) {
        Cell c = cells.stream().filter(x -> x.method().equals(m) && x.epsilon() == e)
            .findFirst().orElseThrow();
        row.append(String.format(Locale.ROOT, " %.4f ± %.4f |", c.mean(), c.sd()));
      }
      out.println(row);
    }
    for (Cell c : cells) {
      if (!Double.isFinite(c.epsilon())) {
        out.printf(Locale.ROOT, "%s (no privacy): %.4f ± %.4f%n", c.method(), c.mean(), c.sd());
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
