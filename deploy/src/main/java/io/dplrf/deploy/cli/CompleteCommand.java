package io.dplrf.deploy.cli;

import io.dplrf.deploy.io.Json;
import io.dplrf.deploy.io.MatrixInput;
import io.dplrf.deploy.io.OutputDirectory;
import io.dplrf.deploy.oneshot.CompletionOneShot;
import io.dplrf.deploy.oneshot.CompletionOneShot.Triples;
import io.dplrf.deploy.oneshot.OneShot;
import io.dplrf.deploy.oneshot.ReleaseDocument;
import io.dplrf.release.completion.CompletionModel;
import io.dplrf.release.completion.CompletionParams;
import io.dplrf.release.completion.EigenSolver;
import io.dplrf.release.completion.PrivateFrankWolfe;
import io.dplrf.release.completion.Ratings;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.BufferedWriter;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code dplrf complete}: private Frank–Wolfe matrix completion (paper 004) of a ratings file,
 * evaluated on a test file. Writes predictions.csv (user,item,prediction for every test pair, in
 * the test file's order) and release.json (mechanism, relation, ε, δ, every noise scale,
 * iterations, ρ); prints the test RMSE. On any error: one line on stderr, a non-zero exit code
 * and no output directory.
 */
final class CompleteCommand {
  static final String USAGE = """
      usage: dplrf complete --train FILE --test FILE --epsilon E --delta D --out DIR
                            [--max-ratings 80] [--iterations T] [--clip L] [--nuclear-norm K]
                            [--solver full|oja] [--oja-steps 100] [--users M --items N]
                            [--offset C] [--key FILE] [--seed S] [--overwrite] [--no-noise]
        FILE            CSV lines user,item,rating (0-based ids, no header)
        --max-ratings   xi: ratings kept per user (first xi distinct items in file order)
        --iterations    Frank-Wolfe iterations (default: Corollary 3.1 of the paper)
        --clip L        each user's ratings are scaled to Euclidean norm <= L (default 5)
        --nuclear-norm  the FW constraint k (default sqrt(users*items)*L/sqrt(xi))
        --solver        full: Algorithm 1, dense noisy d x d matrix; oja: Algorithm 2
        --offset C      a public constant (e.g. the rating scale's midpoint) subtracted from
                        every rating before training and added to every prediction (default 0)
        --users/--items public dimensions (default: largest id in train or test + 1)
        --key FILE      secret key (default: $DPLRF_KEY or ~/.config/dplrf/secret.key)
        --seed S        a fixed test key instead: reproducible, NOT private
        --no-noise      the non-private Frank-Wolfe baseline, NOT private
      """;

  private static final Set<String> OPTIONS = Set.of("train", "test", "epsilon", "delta", "out",
      "max-ratings", "iterations", "clip", "nuclear-norm", "solver", "oja-steps", "users",
      "items", "key", "seed", "offset");
  private static final Set<String> FLAGS = Set.of("overwrite", "no-noise");

  private CompleteCommand() {}

  static int run(String[] argv, PrintStream out) throws Exception {
    Args a = Args.parse("complete", argv, 1, OPTIONS, FLAGS);
    Path trainFile = Path.of(a.required("train"));
    Path testFile = Path.of(a.required("test"));
    Path outDir = Path.of(a.required("out"));
    PrivacyParams privacy =
        new PrivacyParams(a.requiredNumber("epsilon"), a.requiredNumber("delta"));
    EigenSolver solver = switch (a.string("solver", "full")) {
      case "full" -> EigenSolver.FULL;
      case "oja" -> EigenSolver.OJA;
      default -> throw new IllegalArgumentException(
          "solver must be full or oja. Provided value: " + a.string("solver", ""));
    };
    CompletionParams params = new CompletionParams(privacy,
        a.integer("max-ratings", CompletionParams.DEFAULT_MAX_RATINGS), a.number("clip", 5),
        a.integer("iterations", 0), a.number("nuclear-norm", 0), solver,
        a.integer("oja-steps", CompletionParams.DEFAULT_OJA_STEPS),
        CompletionParams.DEFAULT_BETA);
    boolean noNoise = a.flag("no-noise");
    Integer seed = a.integerOrNull("seed");
    boolean overwrite = a.flag("overwrite");
    if (!overwrite && Files.exists(outDir) && !FactorizeCommand.isEmptyDir(outDir)) {
      throw new IllegalArgumentException("output directory " + outDir
          + " exists and is not empty (use --overwrite to replace it)");
    }
    double offset = a.number("offset", 0);
    Triples train = CompletionOneShot.shift(read(trainFile), -offset);
    Triples test = read(testFile);
    Integer usersOpt = a.integerOrNull("users");
    Integer itemsOpt = a.integerOrNull("items");
    if ((usersOpt == null) != (itemsOpt == null)) {
      throw new Args.UsageException("complete: give both --users and --items, or neither");
    }
    int users = usersOpt != null ? usersOpt : Math.max(maxPlusOne(train.user()),
        maxPlusOne(test.user()));
    int items = itemsOpt != null ? itemsOpt : Math.max(maxPlusOne(train.item()),
        maxPlusOne(test.item()));
    if (users == 0 || items == 0) {
      throw new IllegalArgumentException("the training file has no ratings");
    }
    checkRange(test, users, items, testFile);
    Ratings ratings = Ratings.of(users, items, params.maxRatingsPerUser(), params.clip(),
        train.user(), train.item(), train.value());
    SecretKey key = noNoise ? null
        : seed != null ? SecretKey.forTesting(seed) : SecretKey.loadOrCreate(
            FactorizeCommand.keyPath(a));
    String runId = seed != null ? "seed-" + seed : OneShot.newRunId();
    long start = System.nanoTime();
    CompletionModel model = noNoise ? PrivateFrankWolfe.fitNonPrivate(ratings, params)
        : PrivateFrankWolfe.fit(ratings, params, key, "complete/" + runId);
    double seconds = (System.nanoTime() - start) / 1e9;
    double[] predictions = CompletionOneShot.predict(model, ratings, test);
    for (int x = 0; x < predictions.length; x++) {
      predictions[x] += offset;
    }
    double rmse = CompletionOneShot.rmse(predictions, test.value());
    boolean isPrivate = !noNoise && seed == null;
    Map<String, Object> doc = document(model, params, users, items, isPrivate, noNoise, runId,
        key);
    doc.put("offset", offset);
    OutputDirectory.write(outDir, overwrite, tmp -> {
      try (BufferedWriter w = Files.newBufferedWriter(tmp.resolve("predictions.csv"))) {
        for (int x = 0; x < test.size(); x++) {
          w.write(test.user()[x] + "," + test.item()[x] + "," + predictions[x]);
          w.newLine();
        }
      }
      Files.writeString(tmp.resolve("release.json"), Json.write(doc) + "\n");
    });
    out.printf(Locale.ROOT, "wrote %s: %s, %d users x %d items, %d ratings kept "
        + "(%d beyond xi = %d dropped, %d rows clipped to L = %s), T = %d, %.1f s%n", outDir,
        isPrivate ? "(" + privacy.epsilon() + ", " + privacy.delta() + ")-joint-DP"
            : noNoise ? "NOT PRIVATE (--no-noise)" : "NOT PRIVATE (--seed test key)",
        users, items, ratings.size(), ratings.dropped(), params.maxRatingsPerUser(),
        ratings.clippedRows(), params.clip(), model.iterations(), seconds);
    out.printf(Locale.ROOT, "test RMSE %.6f over %d pairs%n", rmse, test.size());
    return 0;
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
