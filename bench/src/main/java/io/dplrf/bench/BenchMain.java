package io.dplrf.bench;

import io.dplrf.deploy.cli.Args;
import io.dplrf.deploy.cli.Cli;
import io.dplrf.deploy.io.SyntheticMatrix;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.release.Errors;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * {@code dplrf bench …}: the benchmarks, in their own jar outside the production one (the launcher
 * runs {@code bench/target/dplrf-bench.jar} for {@code ./dplrf bench}). Each prints our figure
 * beside a baseline measured in the same run. The accuracy benchmarks use a fixed test key
 * (--seed) so runs are reproducible; nothing they print is labelled private.
 */
public final class BenchMain {
  static final String USAGE = """
      usage: dplrf bench accuracy  [--rows 2000] [--cols 3000] [--rank 10] [--max-entry 50]
                                   [--epsilons 0.5,1,2,4] [--delta 1e-6] [--clip 1]
                                   [--sketch-cols t] [--sketch-rows v] [--alpha 0.25] [--seed 1]
                                   [--mechanisms input-perturbation,priv1,priv2,priv2-sparse]
             dplrf bench movielens [--data ../shared/data/movielens-latest-small/ratings.csv]
                                   [--rank 10] [--epsilons 0.5,1,2,4] [--delta 1e-6] [--clip 5] ...
             dplrf bench pca       [--data ../shared/data/uci-optdigits] [--rank 10]
                                   [--epsilons 0.1,0.5,1,2,5] [--delta 1e-6] [--seeds 5]
                                   [--rows 5000] [--cols 64]   (synthetic sets)
                                   [--large-rows 100000]       (a larger gapped set; 0: none)
                                   [--mechanisms analyze-gauss,ata-sketch,smooth-sensitivity,
                                                 smooth-sensitivity-pure,local,local-robust]
             dplrf bench completion [--datasets synthetic,jester,movielens] [--synthetic-users 100000]
                                   [--epsilons 0.1,0.5,1,2,5] [--delta 1e-6] [--runs 3] [--seed 1]
                                   [--iterations 0 (Corollary 3.1)] [--row-norm-factor 1]
                                   [--nuclear-norm-factor 1] [--item-clip-factor 1]
                                   [--user-shrinkage auto|X] [--jester FILE] [--movielens FILE]
                                   [--svg FILE]
             dplrf bench paper     [--alphas 0.1,0.2,0.3,0.4,0.5] [--ks 1,2,4,6,8,12,16]
                                   [--epsilon 1] [--delta 1e-6] [--clip 1] [--max-entry 10]
                                   [--runs 1] [--seed 1] [--svg FILE] [--noiseless]
             dplrf bench robust    [--rows 500] [--cols 400] [--rank 5] [--epsilons 1,4,16]
                                   [--p 1] [--clip 1] [--outlier-rate 0.01] [--outlier-factor 100]
                                   [--data ../shared/data/uci-optdigits] [--sketch-cols t]
                                   [--sketch-rows v] [--stable-clips 1,inf] [--seed 1]
             dplrf bench ingest    [--rows 100000] [--cols 100000] [--rank 10] [--updates 50000000]
                                   [--mechanism priv2-sparse|priv2|priv1] [--batch 64] [--seed 1]
                                   [--rounds 3] [--warm-up-rounds 2]
             dplrf bench release   [--rows 100000] [--cols 100000] [--rank 10] [--sketch-cols 100]
                                   [--sketch-rows 400] [--epsilon 1] [--delta 1e-6] [--epochs 4]
                                   [--repeats 3] [--seed 1]
             dplrf bench update    [--rows 100000] [--cols 100000] [--rank 10] [--sketch-cols 100]
                                   [--sketch-rows 400] [--updates 20000000] [--rounds 2] [--seed 1]
             dplrf bench noise     [--sigma 1.5] [--samples 20000000] [--rounds 3] [--seed 1]
             dplrf bench continual [--rows 200] [--cols 150] [--rank 5] [--epochs 64,1024]
                                   [--updates-per-entry 1] [--epsilon 1] [--delta 1e-6] [--seed 1]
             dplrf bench continual --cost [--rows 100000] [--cols 100000] [--rank 10]
                                   [--epochs 1024] [--updates 1000000 (per epoch)] [--closes 3]
             dplrf bench range     [--rows 100000] [--cols 100000] [--rank 10] [--epochs 8]
                                   [--updates 100000 (per epoch)] [--from 2] [--to 7] [--seed 1]
             dplrf bench http      [--slow 48 (per port)] [--interval-ms 1000] [--seconds 15]
                                   [--pace-ms 50] [--rounds 2]
      """;

  private static final Set<String> OPTIONS = Set.of("rows", "cols", "rank", "max-entry", "epsilons",
      "delta", "clip", "sketch-cols", "sketch-rows", "alpha", "seed", "data", "mechanisms", "updates",
      "epochs", "mechanism", "batch", "rounds", "seeds", "large-rows", "datasets", "synthetic-users",
      "runs", "iterations", "oja-steps", "jester", "movielens", "svg", "p", "outlier-rate",
      "outlier-factor", "stable-clips", "epsilon", "repeats", "warm-up-rounds", "from", "to",
      "sigma", "samples", "releases", "row-norm-factor", "nuclear-norm-factor",
      "item-clip-factor", "user-shrinkage", "updates-per-entry", "closes", "slow", "seconds",
      "pace-ms", "interval-ms", "alphas", "ks");

  private BenchMain() {}

  /** {@code java -jar dplrf-bench.jar bench <which> [options]}, as the launcher runs it. */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] argv, PrintStream out, PrintStream err) {
    if (argv.length == 0 || !argv[0].equals("bench")) {
      err.print(USAGE);
      return 2;
    }
    if (argv.length > 1 && (argv[1].equals("--help") || argv[1].equals("-h"))) {
      out.print(USAGE);
      return 0;
    }
    return Cli.guarded("bench", err, () -> bench(argv, out));
  }

  private static int bench(String[] argv, PrintStream out) throws Exception {
    if (argv.length < 2) {
      throw new Args.UsageException("bench: which benchmark? accuracy, movielens, pca, robust,"
          + " completion, paper, ingest, release, update, noise, range, continual or http");
    }
    String which = argv[1];
    Args a = Args.parse("bench " + which, argv, 2, OPTIONS, Set.of("cost", "noiseless"));
    if (which.equals("completion")) {
      return completion(a, out);
    }
    if (which.equals("paper")) {
      return paper(a, out);
    }
    int k = a.integer("rank", 10);
    if (which.equals("pca")) {
      return pca(a, k, out);
    }
    if (which.equals("robust")) {
      return robust(a, out);
    }
    if (which.equals("update")) {
      new UpdateBench(new SketchSizes(a.integer("rows", 100_000), a.integer("cols", 100_000), k,
          a.integer("sketch-cols", 100), a.integer("sketch-rows", 400)),
          Long.parseLong(a.string("updates", "20000000")), a.integer("seed", 1))
          .run(a.integer("rounds", 2), out);
      return 0;
    }
    if (which.equals("noise")) {
      new NoiseBench(a.number("sigma", 1.5), Long.parseLong(a.string("samples", "20000000")),
          a.integer("seed", 1)).run(a.integer("rounds", 3), out);
      return 0;
    }
    if (which.equals("http")) {
      new HttpBench(a.integer("slow", 48), a.integer("seconds", 15), a.integer("pace-ms", 50),
          a.integer("rounds", 2), a.integer("interval-ms", 1000)).run(out);
      return 0;
    }
    if (which.equals("continual") && a.flag("cost")) {
      new ContinualBench(a.integer("rows", 100_000), a.integer("cols", 100_000), k, 1, 1, 1e-6,
          a.integer("seed", 1)).cost(SketchSizes.of(a.integer("rows", 100_000),
          a.integer("cols", 100_000), k, null, null, SketchSizes.DEFAULT_ALPHA),
          Integer.parseInt(a.string("epochs", "1024")), Long.parseLong(a.string("updates",
          "1000000")), a.integer("closes", 3), out);
      return 0;
    }
    if (which.equals("continual")) {
      int[] epochs = Arrays.stream(a.string("epochs", "64,1024").split(","))
          .mapToInt(x -> Integer.parseInt(x.trim())).toArray();
      new ContinualBench(a.integer("rows", 200), a.integer("cols", 150), a.integer("rank", 5),
          a.integer("updates-per-entry", 1), a.number("epsilon", 1), a.number("delta", 1e-6), a.integer("seed", 1)).run(epochs, out);
      return 0;
    }
    if (which.equals("range")) {
      new RangeBench(SketchSizes.of(a.integer("rows", 100_000), a.integer("cols", 100_000), k,
          null, null, SketchSizes.DEFAULT_ALPHA), a.integer("epochs", 8),
          Long.parseLong(a.string("updates", "100000")), a.integer("from", 2), a.integer("to", 7),
          a.integer("seed", 1)).run(out);
      return 0;
    }
    if (which.equals("release")) {
      new ReleaseBench(new SketchSizes(a.integer("rows", 100_000), a.integer("cols", 100_000), k,
          a.integer("sketch-cols", 100), a.integer("sketch-rows", 400)), a.number("epsilon", 1),
          a.number("delta", 1e-6), a.integer("epochs", 4), a.integer("repeats", 3),
          a.integer("seed", 1)).run(out);
      return 0;
    }
    double[] eps = Arrays.stream(a.string("epsilons", "0.5,1,2,4").split(","))
        .mapToDouble(s -> Double.parseDouble(s.trim())).toArray();
    double delta = a.number("delta", 1e-6);
    long seed = a.integer("seed", 1);
    SecretKey key = SecretKey.forTesting(seed);
    List<Mechanism> mechanisms = Arrays.stream(
            a.string("mechanisms", "input-perturbation,priv1,priv2,priv2-sparse").split(","))
        .map(String::trim).map(name -> Mechanism.parse("mechanisms", name, Mechanism.of(
            Mechanism.Use.LOW_RANK, Mechanism.Use.LOW_RANK_STREAM))).toList();
    if (which.equals("ingest")) {
      new IngestBench(a.integer("rows", 100_000), a.integer("cols", 100_000), k,
          Long.parseLong(a.string("updates", "50000000")), a.string("mechanism", "priv2-sparse"),
          a.integer("batch", 64), seed)
          .run(a.integer("warm-up-rounds", 2), a.integer("rounds", 3), out);
      return 0;
    }
    Dense matrix;
    String name;
    double clip;
    double best;
    switch (which) {
      case "accuracy" -> {
        int m = a.integer("rows", 2000);
        int n = a.integer("cols", 3000);
        double maxEntry = a.number("max-entry", 50);
        matrix = SyntheticMatrix.lowRank(m, n, k, maxEntry, seed);
        name = "synthetic rank-" + k + " matrix, entries up to " + maxEntry;
        clip = a.number("clip", 1);
        best = 0; // exactly rank k
      }
      case "movielens" -> {
        Path data = Path.of(a.string("data", "../shared/data/movielens-latest-small/ratings.csv"));
        if (!Files.isReadable(data)) {
          throw new IllegalArgumentException("cannot read MovieLens ratings at " + data + " (--data FILE)");
        }
        matrix = Datasets.movieLens(data);
        name = "MovieLens latest-small users x movies ratings (" + data + ")";
        clip = a.number("clip", 5);
        best = Errors.bestRankKError(matrix, k);
      }
      default -> throw new Args.UsageException("bench: unknown benchmark '" + which + "'");
    }
    new AccuracyBench(name, matrix, k, delta, clip, a.integerOrNull("sketch-cols"),
        a.integerOrNull("sketch-rows"), a.number("alpha", SketchSizes.DEFAULT_ALPHA), key)
        .run(eps, best, mechanisms, out);
    return 0;
  }

  private static int completion(Args a, PrintStream out) throws Exception {
    double[] eps = Arrays.stream(a.string("epsilons", "0.1,0.5,1,2,5").split(","))
        .mapToDouble(s -> Double.parseDouble(s.trim())).toArray();
    List<CompletionBench.Dataset> sets = new java.util.ArrayList<>();
    for (String name : a.string("datasets", "synthetic,jester,movielens").split(",")) {
      switch (name.trim()) {
        case "synthetic" -> sets.add(CompletionBench.synthetic(
            a.integer("synthetic-users", 100_000), 400, a.integer("seed", 1)));
        case "jester" -> { // ratings in [-10, 10] rescaled to [0, 5] as in paper 004 §4
          Path f = Path.of(a.string("jester",
              "../shared/data/jester-2-subset/jester_ratings_users1-1000.csv"));
          sets.add(CompletionBench.fromTriples("Jester subset", Datasets.ratingTriples(f, 0),
              0, 5, 0.25, 2.5, 10));
        }
        case "movielens" -> {
          Path f = Path.of(a.string("movielens",
              "../shared/data/movielens-latest-small/ratings.csv"));
          sets.add(CompletionBench.fromTriples("MovieLens small, all items",
              Datasets.ratingTriples(f, 0), 0.5, 5, 1, 0, 10));
        }
        default -> throw new IllegalArgumentException(
            "datasets are synthetic, jester, movielens. Provided value: " + name);
      }
    }
    int runs = a.integer("runs", 3);
    CompletionBench bench = new CompletionBench(a.number("delta", 1e-6), runs,
        a.integer("seed", 1), new CompletionBench.Knobs(a.number("row-norm-factor", 1),
            a.number("item-clip-factor", 1),
            a.string("user-shrinkage", "auto").equals("auto") ? Double.NaN
                : a.number("user-shrinkage", 0),
            a.integer("iterations", 0), a.number("nuclear-norm-factor", 1)));
    List<List<CompletionBench.Cell>> all = new java.util.ArrayList<>();
    for (CompletionBench.Dataset ds : sets) {
      List<CompletionBench.Cell> cells = bench.run(ds, eps, out);
      CompletionBench.printTable(ds, runs, cells, eps, out);
      all.add(cells);
    }
    String svg = a.string("svg", null);
    if (svg != null) {
      CompletionBench.writeSvg(Path.of(svg), sets, all, eps);
      out.println("wrote " + svg);
    }
    return 0;
  }

  /**
   * Paper 002's Figure 1 (docs/benchmarks-paper.md): panels a–d, additive error against α on
   * i.i.d. matrices, dplrf's sketch mechanisms beside Hardt–Roth; panels e–f, the local
   * mechanism against Theorem 5 as k grows.
   */
  private static int paper(Args a, PrintStream out) throws Exception {
    double[] alphas = Arrays.stream(a.string("alphas", "0.1,0.2,0.3,0.4,0.5").split(","))
        .mapToDouble(s -> Double.parseDouble(s.trim())).toArray();
    int[] ks = Arrays.stream(a.string("ks", "1,2,4,6,8,12,16").split(","))
        .mapToInt(s -> Integer.parseInt(s.trim())).toArray();
    double eps = a.number("epsilon", 1);
    PaperBench bench = new PaperBench(new io.dplrf.sketch.params.PrivacyParams(eps,
        a.number("delta", 1e-6)), a.number("clip", 1), a.number("max-entry", 10),
        a.integer("runs", 1), a.integer("seed", 1), a.flag("noiseless"));
    List<PaperBench.AlphaPanel> alphaPanels = List.of(
        new PaperBench.AlphaPanel("a", 300, 300, 5), new PaperBench.AlphaPanel("b", 300, 300, 10),
        new PaperBench.AlphaPanel("c", 300, 900, 5), new PaperBench.AlphaPanel("d", 300, 900, 10));
    List<PaperBench.LocalPanel> localPanels = List.of(
        new PaperBench.LocalPanel("e", 20_000, 32, eps),
        new PaperBench.LocalPanel("f", 200_000, 32, eps));
    long t0 = System.nanoTime();
    List<PaperBench.Cell> cells = new java.util.ArrayList<>(bench.alpha(alphaPanels, alphas, out));
    cells.addAll(bench.local(localPanels, ks, out));
    out.printf("%n(%.0f s)%n", (System.nanoTime() - t0) / 1e9);
    String svg = a.string("svg", null);
    if (svg != null) {
      PaperBench.writeSvg(Path.of(svg), PaperBench.svg(alphaPanels, alphas, localPanels, ks,
          cells));
      out.println("wrote " + svg);
    }
    return 0;
  }

  /** Synthetic rank-k and optdigits, each with injected gross outliers (docs/benchmarks-robust.md). */
  private static int robust(Args a, PrintStream out) throws Exception {
    int k = a.integer("rank", 5);
    double[] eps = Arrays.stream(a.string("epsilons", "1,4,16").split(","))
        .mapToDouble(s -> Double.parseDouble(s.trim())).toArray();
    long seed = a.integer("seed", 1);
    double rate = a.number("outlier-rate", 0.01);
    double factor = a.number("outlier-factor", 100);
    int m = a.integer("rows", 500);
    int n = a.integer("cols", 400);
    List<RobustBench.Data> sets = new java.util.ArrayList<>();
    sets.add(RobustBench.withOutliers("synthetic rank-" + k, SyntheticMatrix.lowRank(m, n, k, 10, seed),
        rate, factor, seed + 1));
    Path data = Path.of(a.string("data", "../shared/data/uci-optdigits"));
    if (Files.isReadable(data.resolve("optdigits.tra"))) {
      double[][] rows = PcaBench.optdigits(data, false).rows(); // raw pixel counts 0..16
      sets.add(RobustBench.withOutliers("optdigits (raw counts) " + data, new Dense(rows.length, rows[0].length,
          Arrays.stream(rows).flatMapToDouble(Arrays::stream).toArray()), rate, factor, seed + 2));
    } else {
      out.println("(optdigits not readable at " + data + ": synthetic set only; --data DIR)");
    }
    double[] stableClips = Arrays.stream(a.string("stable-clips", "1,inf").split(","))
        .mapToDouble(s -> s.trim().equals("inf") ? Double.POSITIVE_INFINITY
            : Double.parseDouble(s.trim())).toArray();
    new RobustBench(k, a.number("delta", 1e-6), a.number("clip", 1), a.number("p", 1), stableClips,
        a.integerOrNull("sketch-cols"), a.integerOrNull("sketch-rows"),
        SecretKey.forTesting(seed)).run(sets, eps, out);
    return 0;
  }

  private static int pca(Args a, int k, PrintStream out) throws Exception {
    double[] eps = Arrays.stream(a.string("epsilons", "0.1,0.5,1,2,5").split(","))
        .mapToDouble(s -> Double.parseDouble(s.trim())).toArray();
    Path data = Path.of(a.string("data", "../shared/data/uci-optdigits"));
    if (!Files.isReadable(data.resolve("optdigits.tra"))) {
      throw new IllegalArgumentException("cannot read optdigits at " + data + " (--data DIR)");
    }
    int n = a.integer("rows", 5000);
    int d = a.integer("cols", 64);
    List<PcaBench.Data> sets = new java.util.ArrayList<>(List.of(PcaBench.optdigits(data),
        PcaBench.synthetic(n, d, k, true, 1), PcaBench.synthetic(n, d, k, false, 2)));
    int large = a.integer("large-rows", 100_000);
    if (large > 0) { // where smooth sensitivity's n-dependence shows: same law, 20x the rows
      PcaBench.Data g = PcaBench.synthetic(large, d, k, true, 3);
      sets.add(new PcaBench.Data(g.name() + ", " + large / 1000 + "k rows", g.rows()));
    }
    List<Mechanism> mechs = Arrays.stream(a.string("mechanisms",
            "analyze-gauss,ata-sketch,smooth-sensitivity,smooth-sensitivity-pure,local,local-robust")
        .split(",")).map(String::trim).map(name -> Mechanism.parse("mechanisms", name,
            Mechanism.of(Mechanism.Use.ROW_PCA, Mechanism.Use.LOCAL_PCA))).toList();
    new PcaBench(k, a.number("delta", 1e-6), a.integer("seeds", 5)).run(sets, eps, mechs, out);
    return 0;
  }
}
