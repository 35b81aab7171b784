package io.dplrf.deploy.cli;

import io.dplrf.deploy.io.Json;
import io.dplrf.deploy.io.MatrixInput;
import io.dplrf.deploy.io.OutputDirectory;
import io.dplrf.deploy.oneshot.CompletionOneShot;
import io.dplrf.deploy.oneshot.CompletionOneShot.Triples;
import io.dplrf.deploy.oneshot.OneShot;
import io.dplrf.deploy.oneshot.ReleaseDocument;
import io.dplrf.release.completion.BiasedAccount;
import io.dplrf.release.completion.BiasedCompletion;
import io.dplrf.release.completion.BiasedModel;
import io.dplrf.release.completion.BiasedParams;
import io.dplrf.release.completion.CompletionModel;
import io.dplrf.release.completion.CompletionParams;
import io.dplrf.release.completion.EigenSolver;
import io.dplrf.release.completion.PrivateFrankWolfe;
import io.dplrf.release.completion.Ratings;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.BufferedWriter;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code dplrf complete}: private matrix completion of a ratings file, evaluated on a test file.
 * The default model is {@link BiasedCompletion} (global offset, item biases, each user's own
 * bias, private Frank–Wolfe on the residuals; one (ε, δ) budget); {@code --model fw} is paper
 * 004's Algorithm 1 alone, centred on the range's midpoint. The user declares the public rating
 * range; predictions are clamped to it. Writes predictions.csv (user,item,
 * prediction for every test pair, in the test file's order) and release.json (mechanism,
 * relation, ε, δ, every noise scale); prints the test RMSE and, beside it, the trivial
 * predictors' on the same pairs ({@link #printBaselines}). With more than 2,000 items the
 * default solver is oja ({@link PrivateFrankWolfe#solverFor}). A private run needs --users/--items:
 * dimensions read from the data change with one user (δ = 1), so only a run that is not private
 * anyway (--no-noise, --seed) may read them, and its release says so. Training records with a
 * non-finite rating, a rating outside the declared scale or an id outside the catalogue are
 * dropped and counted on stderr with the first one's line ({@link Training}). On any other error: one line on stderr, a non-zero exit code and no output
 * directory.
 */
final class CompleteCommand {
  static final String USAGE = """
      usage: dplrf complete --train FILE --test FILE --rating-min A --rating-max B
                            --epsilon E --delta D --out DIR [--users M --items N]
                            [--model biased|fw] [--max-ratings 80] [--iterations T] [--clip L]
                            [--nuclear-norm K] [--solver auto|full|oja] [--oja-steps 100]
                            [--user-shrinkage auto|X] [--item-clip TAU] [--offset C]
                            [--key FILE] [--seed S] [--overwrite] [--no-noise]
        FILE            CSV lines user,item,rating (0-based ids, no header). Training records
                        with a non-finite rating, a rating outside [--rating-min, --rating-max]
                        or an id outside --users x --items are dropped and counted on stderr
                        (with the first one's line); a malformed line is an error
        --rating-min/--rating-max
                        the public rating scale (e.g. 0.5 and 5 for MovieLens stars); training
                        ratings outside it are dropped and counted, predictions are clamped to
                        it, and the defaults centre on it
        --users/--items public dimensions (the catalogue sizes), required unless --no-noise
                        or --seed: read from the data, one user could change them
        --model         biased (default): global offset + item biases + each user's own bias +
                        private Frank-Wolfe on the residuals, one budget; fw: Frank-Wolfe alone
        --max-ratings   xi: ratings per user in the residual Frank-Wolfe (biased: the first xi
                        of her items in id order, the rest of the model reads all of them; fw:
                        the first xi distinct items in file order)
        --iterations    Frank-Wolfe iterations (default: Corollary 3.1 of paper 004)
        --clip L        each user's (residual) row is scaled to Euclidean norm <= L
                        (default: biased (max-min)*sqrt(xi)/8, fw 5)
        --nuclear-norm  the FW constraint k (default sqrt(users*items)*L/sqrt(xi))
        --solver        auto (default): full up to 2000 items, else oja; full: Algorithm 1,
                        dense noisy d x d matrix; oja: Algorithm 2, linear in d
        --user-shrinkage  biased: lambda_u, a user's bias is sum(r-g-b)/(n+lambda_u). auto
                        (default): estimated privately from how much users' means vary, in
                        the same budget; a number fixes
                        it (no estimate)
        --item-clip     biased: tau, root mean square bound of a user's centred ratings in the
                        item sums (default (max-min)/4)
        --offset C      fw: a public constant subtracted before training and added back
                        (default the range's midpoint)
        --key FILE      secret key (default: $DPLRF_KEY or ~/.config/dplrf/secret.key)
        --seed S        a fixed test key instead: reproducible, NOT private
        --no-noise      the non-private twin of the model, NOT private
      """;

  private static final Set<String> OPTIONS = Set.of("train", "test", "epsilon", "delta", "out",
      "max-ratings", "iterations", "clip", "nuclear-norm", "solver", "oja-steps", "users",
      "items", "key", "seed", "offset", "rating-min", "rating-max", "model", "user-shrinkage",
      "item-clip");
  private static final Set<String> FLAGS = Set.of("overwrite", "no-noise");

  private CompleteCommand() {}

  static int run(String[] argv, PrintStream out) throws Exception {
    return run(argv, out, System.err);
  }

  static int run(String[] argv, PrintStream out, PrintStream err) throws Exception {
    Args a = Args.parse("complete", argv, 1, OPTIONS, FLAGS);
    Path trainFile = Path.of(a.required("train"));
    Path testFile = Path.of(a.required("test"));
    Path outDir = Path.of(a.required("out"));
    if (a.string("rating-min", null) == null || a.string("rating-max", null) == null) {
      throw new Args.UsageException("complete: declare the public rating scale with "
          + "--rating-min and --rating-max (e.g. 0.5 and 5 for MovieLens stars)");
    }
    double lo = a.requiredNumber("rating-min");
    double hi = a.requiredNumber("rating-max");
    PrivacyParams privacy =
        new PrivacyParams(a.requiredNumber("epsilon"), a.requiredNumber("delta"));
    String solverName = a.string("solver", "auto");
    if (!List.of("auto", "full", "oja").contains(solverName)) {
      throw new IllegalArgumentException(
          "solver must be auto, full or oja. Provided value: " + solverName);
    }
    boolean biased = switch (a.string("model", "biased")) {
      case "biased" -> true;
      case "fw" -> false;
      default -> throw new IllegalArgumentException(
          "model must be biased or fw. Provided value: " + a.string("model", ""));
    };
    int xi = a.integer("max-ratings", CompletionParams.DEFAULT_MAX_RATINGS);
    BiasedParams defaults = BiasedParams.of(privacy, xi, lo, hi);
    boolean shrinkageFixed = !a.string("user-shrinkage", "auto").equals("auto");
    boolean noNoise = a.flag("no-noise");
    Integer seed = a.integerOrNull("seed");
    boolean overwrite = a.flag("overwrite");
    if (!overwrite && Files.exists(outDir) && !FactorizeCommand.isEmptyDir(outDir)) {
      throw new IllegalArgumentException("output directory " + outDir
          + " exists and is not empty (use --overwrite to replace it)");
    }
    double offset = biased ? Double.NaN : a.number("offset", defaults.midpoint());
    Integer usersOpt = a.integerOrNull("users");
    Integer itemsOpt = a.integerOrNull("items");
    if ((usersOpt == null) != (itemsOpt == null)) {
      throw new Args.UsageException("complete: give both --users and --items, or neither");
    }
    if (usersOpt == null && !noNoise && seed == null) {
      throw new Args.UsageException("complete: give the public catalogue sizes --users M --items"
          + " N: read from the data, one user's ratings at a new largest id would change the"
          + " release's shape, which no noise hides");
    }
    Training training = readTraining(trainFile, usersOpt, itemsOpt, lo, hi);
    Triples raw = training.kept();
    Triples test = read(testFile);
    boolean dimsFromData = usersOpt == null;
    int users = usersOpt != null ? usersOpt : Math.max(maxPlusOne(raw.user()),
        maxPlusOne(test.user()));
    int items = itemsOpt != null ? itemsOpt : Math.max(maxPlusOne(raw.item()),
        maxPlusOne(test.item()));
    if (users == 0 || items == 0) {
      throw new IllegalArgumentException("the training file has no usable ratings");
    }
    training.report(err);
    checkRange(test, users, items, testFile);
    // The solver is a function of the public d only: full (dense) up to 2000 items, else oja.
    EigenSolver solver = switch (solverName) {
      case "full" -> EigenSolver.FULL;
      case "oja" -> EigenSolver.OJA;
      default -> PrivateFrankWolfe.solverFor(items);
    };
    CompletionParams params = new CompletionParams(privacy, xi,
        a.number("clip", biased ? defaults.residual().clip() : 5), a.integer("iterations", 0),
        a.number("nuclear-norm", 0), solver,
        a.integer("oja-steps", CompletionParams.DEFAULT_OJA_STEPS),
        CompletionParams.DEFAULT_BETA);
    BiasedParams bp = defaults.withResidual(params)
        .withItemClip(a.number("item-clip", defaults.itemClip()));
    if (shrinkageFixed) {
      bp = bp.withUserShrinkage(a.number("user-shrinkage", defaults.userShrinkage()));
    }
    SecretKey key = noNoise ? null
        : seed != null ? SecretKey.forTesting(seed) : FactorizeCommand.loadOrCreateKey(a, err);
    String runId = seed != null ? "seed-" + seed : OneShot.newRunId();
    boolean isPrivate = !noNoise && seed == null && !dimsFromData;
    if (dimsFromData && !noNoise) {
      err.println("dplrf complete: WARNING: --users/--items not given, so the dimensions ("
          + users + " x " + items + ") come from the data, which one user can change:"
          + " this release is NOT differentially private. Pass the public catalogue sizes.");
    }
    long start = System.nanoTime();
    double[] predictions;
    Map<String, Object> doc;
    Ratings ratings;
    String summary;
    if (biased) {
      ratings = BiasedCompletion.ratings(users, items, bp, raw.user(), raw.item(), raw.value());
      BiasedModel model = noNoise ? BiasedCompletion.fitNonPrivate(ratings, bp)
          : BiasedCompletion.fit(ratings, bp, key, "complete/" + runId);
      predictions = CompletionOneShot.predict(model, ratings, test);
      doc = biasedDocument(model, bp, users, items, isPrivate, noNoise, dimsFromData,
          shrinkageFixed, runId, key);
      summary = String.format(Locale.ROOT, "global offset %.4f, item effects %s, residual"
          + " Frank-Wolfe %s", model.offset(), model.usesItemEffects() ? "kept by the model"
          + " choice" : "dropped by the model choice (the user-only model g + c_i)",
          model.residualStatus());
    } else {
      Triples train = CompletionOneShot.shift(raw, -offset);
      ratings = Ratings.of(users, items, params.maxRatingsPerUser(), params.clip(),
          train.user(), train.item(), train.value());
      CompletionModel model = noNoise ? PrivateFrankWolfe.fitNonPrivate(ratings, params)
          : PrivateFrankWolfe.fit(ratings, params, key, "complete/" + runId);
      predictions = CompletionOneShot.predict(model, ratings, test);
      for (int x = 0; x < predictions.length; x++) {
        predictions[x] = Math.max(lo, Math.min(hi, predictions[x] + offset));
      }
      doc = document(model, params, users, items, isPrivate, noNoise, runId, key);
      doc.put("offset", offset);
      doc.put("ratingMin", lo);
      doc.put("ratingMax", hi);
      doc.put("dimensionsFromData", dimsFromData);
      summary = "T = " + model.iterations();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    double rmse = CompletionOneShot.rmse(predictions, test.value());
    OutputDirectory.write(outDir, overwrite, tmp -> {
      try (BufferedWriter w = Files.newBufferedWriter(tmp.resolve("predictions.csv"))) {
        for (int x = 0; x < test.size(); x++) {
          w.write(test.user()[x] + "," + test.item()[x] + "," + predictions[x]);
          w.newLine();
        }
      }
      Files.writeString(tmp.resolve("release.json"), Json.write(doc) + "\n");
    });
    String label = isPrivate ? "(" + privacy.epsilon() + ", " + privacy.delta() + ")-joint-DP"
        : noNoise ? "NOT PRIVATE (--no-noise)"
        : seed != null ? "NOT PRIVATE (--seed test key)"
        : "NOT PRIVATE (dimensions from the data)";
    String kept = biased ? "(xi = " + params.maxRatingsPerUser() + " bounds the residual"
        + " Frank-Wolfe only)" : "(" + ratings.dropped() + " beyond xi = "
        + params.maxRatingsPerUser() + " dropped)";
    out.printf(Locale.ROOT, "wrote %s: %s %s model, %d users x %d items, %d ratings kept %s,"
        + " %s solver, %s, %.1f s%n", outDir, label, biased ? "biased" : "Frank-Wolfe", users,
        items, ratings.size(), kept, solver.name().toLowerCase(Locale.ROOT), summary, seconds);
    out.printf(Locale.ROOT, "test RMSE %.6f over %d pairs%n", rmse, test.size());
    printBaselines(users, items, raw, test, lo, hi, out);
    return 0;
  }

  /**
   * The trivial predictors' test RMSE beside the model's ({@link CompletionOneShot#baselines}:
   * global mean, per-user mean, item mean, user + item biases), each fitted on every usable
   * training rating and clamped to the declared scale. They are exact statistics of the
   * training file, NOT private: printed for the operator, never written to the output
   * directory.
   */
  static void printBaselines(int users, int items, Triples train, Triples test, double lo,
      double hi, PrintStream out) {
    double[][] base = CompletionOneShot.baselines(users, items, train, test);
    StringBuilder b = new StringBuilder("baselines on the same pairs (NOT private, fitted on the"
        + " training ratings):");
    for (int k = 0; k < base.length; k++) {
      double[] p = base[k];
      for (int x = 0; x < p.length; x++) {
        p[x] = Math.max(lo, Math.min(hi, p[x]));
      }
      b.append(String.format(Locale.ROOT, "%s %s RMSE %.6f", k == 0 ? "" : ";",
          CompletionOneShot.BASELINES[k], CompletionOneShot.rmse(p, test.value())));
    }
    out.println(b);
  }

  /** release.json of the biased model: its public part (g, b) is in the account's terms. */
  static Map<String, Object> biasedDocument(BiasedModel model, BiasedParams p, int users,
      int items, boolean isPrivate, boolean noNoise, boolean dimsFromData,
      boolean shrinkageFixed, String runId, SecretKey key) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("format", "dplrf-release/1");
    doc.put("mechanism", noNoise ? "biased-frank-wolfe" : BiasedCompletion.MECHANISM);
    doc.put("reference", "global offset, item biases, local user biases (docs/privacy/"
        + "completion.md section 7) and Jain, Thakkar, Thakurta, Differentially Private Matrix"
        + " Completion Revisited, ICML 2018, Algorithm 1 on the residuals");
    doc.put("private", isPrivate);
    if (noNoise) {
      doc.put("warning", "--no-noise: the non-private twin. NOT differentially private.");
    } else if (dimsFromData) {
      doc.put("warning", "dimensions read from the data (no --users/--items): one user can "
          + "change them. NOT differentially private.");
    } else if (!isPrivate) {
      doc.put("warning", "--seed: noise from a fixed test key anyone can regenerate. "
          + "NOT differentially private.");
    }
    doc.put("dimensionsFromData", dimsFromData);
    model.account().ifPresent(acc -> {
      doc.put("relation", "one user (joint DP)");
      doc.put("epsilon", acc.privacy().epsilon());
      doc.put("delta", acc.privacy().delta());
      doc.put("mu", acc.mu());
      List<Map<String, Object>> parts = new ArrayList<>();
      for (BiasedAccount.Component c : acc.components()) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("component", c.name());
        e.put("mu", c.mu());
        List<Map<String, Object>> noise = new ArrayList<>();
        for (BiasedAccount.Part part : c.parts()) {
          NoiseScale s = part.noise();
          Map<String, Object> n = new LinkedHashMap<>();
          n.put("name", s.sketch());
          n.put("sigma", s.sigma());
          n.put("sensitivity", s.sensitivity());
          n.put("entries", s.entries());
          n.put("releases", part.releases());
          noise.add(n);
        }
        e.put("noise", noise);
        parts.add(e);
      }
      doc.put("components", parts);
    });
    doc.put("users", users);
    doc.put("items", items);
    doc.put("ratingMin", p.ratingMin());
    doc.put("ratingMax", p.ratingMax());
    doc.put("maxRatingsPerUser", p.maxRatingsPerUser());
    doc.put("userShrinkage", model.userShrinkage());
    doc.put("userShrinkageEstimated", userShrinkageSource(p, isPrivate, noNoise,
        shrinkageFixed));
    doc.put("itemClip", p.itemClip());
    doc.put("offset", model.offset());
    doc.put("itemBiases", model.itemBiases());
    doc.put("itemEffects", model.usesItemEffects() ? "kept by the model choice"
        : "dropped by the model choice");
    doc.put("residual", model.residualStatus());
    model.residual().ifPresent(r -> {
      doc.put("clip", r.clip());
      doc.put("nuclearNorm", r.nuclearNorm());
      doc.put("iterations", r.iterations());
      doc.put("solver", ReleaseDocument.describe(p.residual().solver()));
      doc.put("lambdaHat", ReleaseDocument.describe(r.diagnostics().lambdaHat()));
      doc.put("lambdaPrime", ReleaseDocument.describe(r.lambdaPrime()));
    });
    doc.put("runId", runId);
    if (key != null) {
      doc.put("keyFingerprint", key.fingerprint());
    }
    return doc;
  }

  /**
   * How λ_u was set, for release.json: "privately" only in a private run; the private mechanism
   * in a run that is not private (a --seed test key, dimensions from the data) says so.
   */
  static String userShrinkageSource(BiasedParams p, boolean isPrivate, boolean noNoise,
      boolean shrinkageFixed) {
    if (shrinkageFixed) {
      return "fixed by the user";
    }
    return noNoise ? "from the exact sums (non-private)" : isPrivate ? "privately"
        : "by the private mechanism, but this release is NOT private (see warning)";
  }

  /**
   * The training records that can be used, and what was dropped. A record with a non-finite
   * rating or an id outside the declared catalogue ([0, --users) x [0, --items), or a negative
   * id) is one user's record: it is dropped, counted and reported on stderr, and the run goes on.
   * If such a record aborted the run, whether a model is released at all would depend on one
   * user's record, which no (epsilon, delta) covers; dropping it changes that user's row only,
   * which the relation does. The counts and the first offending line are about the raw file (not
   * private) and go to stderr only, never into release.json or predictions.csv. Format errors
   * still abort the run before anything is computed: a line that is not a record at all (wrong
   * field count, a token that is not a number, a header), an id beyond the int range, a Matrix
   * Market index above the declared size. They are operator errors about the file, outside the
   * guarantee, which is stated for well-formed files.
   */
  record Training(Triples kept, Path file, long nonFinite, long firstNonFinite, long outside,
      long firstOutside, String catalogue, long offScale, long firstOffScale, String scale) {
    void report(PrintStream err) {
      if (nonFinite + outside + offScale == 0) {
        return;
      }
      StringBuilder b = new StringBuilder("dplrf complete: dropped ")
          .append(nonFinite + outside + offScale).append(" training record(s) that cannot be"
              + " used: ");
      if (nonFinite > 0) {
        b.append(nonFinite).append(" with a non-finite rating (first at ").append(file)
            .append(':').append(firstNonFinite).append(')');
      }
      if (offScale > 0) {
        b.append(nonFinite > 0 ? "; " : "").append(offScale).append(" with a rating outside ")
            .append(scale).append(" (first at ").append(file).append(':').append(firstOffScale)
            .append(')');
      }
      if (outside > 0) {
        b.append(nonFinite + offScale > 0 ? "; " : "").append(outside).append(" with an id outside ")
            .append(catalogue).append(" (first at ").append(file).append(':')
            .append(firstOutside).append(')');
      }
      err.println(b.append(". These counts describe the raw file and are not private; they"
          + " are not in the release."));
    }
  }

  static Training readTraining(Path file, Integer users, Integer items, double lo, double hi)
      throws Exception {
    CompletionOneShot.TripleBuffer b = new CompletionOneShot.TripleBuffer();
    long[] nonFinite = {0, 0};
    long[] outside = {0, 0};
    long[] offScale = {0, 0};
    MatrixInput.open(file).forEachRecord((line, u, j, v) -> {
      if (!Double.isFinite(v)) {
        nonFinite[1] = nonFinite[0]++ == 0 ? line : nonFinite[1];
      } else if (v < lo || v > hi) {
        offScale[1] = offScale[0]++ == 0 ? line : offScale[1];
      } else if (u < 0 || j < 0 || users != null && u >= users || items != null && j >= items) {
        outside[1] = outside[0]++ == 0 ? line : outside[1];
      } else {
        b.add(u, j, v);
      }
    });
    String catalogue = users == null ? "the non-negative ids"
        : "--users " + users + " x --items " + items;
    return new Training(b.toTriples(), file, nonFinite[0], nonFinite[1], outside[0], outside[1],
        catalogue, offScale[0], offScale[1],
        "[--rating-min " + lo + ", --rating-max " + hi + "]");
  }

  private static Triples read(Path file) throws Exception {
    CompletionOneShot.TripleBuffer b = new CompletionOneShot.TripleBuffer();
    MatrixInput.open(file).forEach(b::add);
    return b.toTriples();
  }

  private static int maxPlusOne(int[] ids) {
    int m = -1;
    for (int id : ids) {
      m = Math.max(m, id);
    }
    return m + 1;
  }

  private static void checkRange(Triples t, int users, int items, Path file) {
    for (int x = 0; x < t.size(); x++) {
      if (t.user()[x] >= users || t.item()[x] >= items) {
        throw new IllegalArgumentException(file + ": pair " + (x + 1) + " (" + t.user()[x] + ","
            + t.item()[x] + ") is outside --users " + users + " x --items " + items);
      }
    }
  }

  static Map<String, Object> document(CompletionModel model, CompletionParams params, int users,
      int items, boolean isPrivate, boolean noNoise, String runId, SecretKey key) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("format", "dplrf-release/1");
    doc.put("mechanism", model.diagnostics().mechanism());
    doc.put("reference", "Jain, Thakkar, Thakurta, Differentially Private Matrix Completion "
        + "Revisited, ICML 2018, Algorithm " + (params.solver() == EigenSolver.FULL ? "1" : "1 + 2"));
    doc.put("private", isPrivate);
    if (noNoise) {
      doc.put("warning", "--no-noise: non-private Frank-Wolfe. NOT differentially private.");
    } else if (!isPrivate) {
      doc.put("warning", "--seed: noise from a fixed test key anyone can regenerate. "
          + "NOT differentially private.");
    }
    model.diagnostics().account().ifPresent(acc -> {
      doc.put("relation", "one user (joint DP)");
      doc.put("epsilon", acc.privacy().epsilon());
      doc.put("delta", acc.privacy().delta());
      doc.put("rho", acc.rho());
      doc.put("accounting", ReleaseDocument.describe(acc));
    });
    doc.put("users", users);
    doc.put("items", items);
    doc.put("maxRatingsPerUser", params.maxRatingsPerUser());
    doc.put("clip", params.clip());
    doc.put("nuclearNorm", model.nuclearNorm());
    doc.put("iterations", model.iterations());
    doc.put("solver", ReleaseDocument.describe(params.solver()));
    if (params.solver() == EigenSolver.OJA) {
      doc.put("ojaSteps", params.ojaSteps());
    }
    doc.put("beta", params.beta());
    doc.put("lambdaHat", ReleaseDocument.describe(model.diagnostics().lambdaHat()));
    doc.put("lambdaPrime", ReleaseDocument.describe(model.lambdaPrime()));
    doc.put("runId", runId);
    if (key != null) {
      doc.put("keyFingerprint", key.fingerprint());
    }
    return doc;
  }
}
