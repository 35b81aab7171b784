package io.dplrf.deploy.serve.completion;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.cli.Cli;
import io.dplrf.deploy.io.Json;
import io.dplrf.ingest.RatingsStore;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service's completion mode and {@code dplrf complete} are one model: on the same ratings,
 * with the same key and noise label and at the same (ε, δ) — the service's per-run ε_run, given
 * to {@code complete} as {@code --epsilon} — the service's fit releases exactly what {@code
 * complete} writes to release.json (global offset, item biases, λ_u, residual status, and every
 * component of the account with each noise scale it drew) and serves exactly the predictions
 * {@code complete} writes. A service that split the budget otherwise, took other defaults,
 * omitted a release's noise or drew it from another stream differs bit for bit.
 */
class ServiceMatchesCompleteTest {
  private static final CompletionRuns.Progress NONE = (done, total) -> { };
  @TempDir Path dir;

  /** Writes the store's committed ratings as complete's CSV, in the store's order. */
  private static List<RatingsStore.UserRatings> writeTrain(RatingsStore s, Path file)
      throws Exception {
    List<RatingsStore.UserRatings> users = new ArrayList<>();
    StringBuilder csv = new StringBuilder();
    s.forEachUser(r -> {
      users.add(r);
      for (int k = 0; k < r.size(); k++) {
        csv.append(r.user()).append(',').append(r.items()[k]).append(',').append(r.values()[k])
            .append('\n');
      }
    });
    Files.writeString(file, csv);
    return users;
  }

  /** Every (user, item) of the users 0, 17 and 59, as complete's test file. */
  private static void writeTest(Path file) throws Exception {
    StringBuilder csv = new StringBuilder();
    for (int u : new int[] {0, 17, 59}) {
      for (int j = 0; j < CompletionFitTest.ITEMS; j++) {
        csv.append(u).append(',').append(j).append(",3\n");
      }
    }
    Files.writeString(file, csv);
  }

  /** Runs {@code dplrf complete} with {@code --seed 5} and returns release.json. */
  private Map<String, Object> complete(Path train, Path test, Path out, double epsilon,
      String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("complete", "--train", train.toString(),
        "--test", test.toString(), "--rating-min", "" + CompletionFitTest.LO, "--rating-max",
        "" + CompletionFitTest.HI, "--epsilon", Double.toString(epsilon), "--delta", "1e-6",
        "--users", "" + CompletionFitTest.USERS, "--items", "" + CompletionFitTest.ITEMS,
        "--max-ratings", "" + CompletionFitTest.XI, "--iterations", "3", "--seed", "5",
        "--out", out.toString()));
    args.addAll(List.of(extra));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = Cli.run(args.toArray(new String[0]),
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
    @SuppressWarnings("unchecked")
    Map<String, Object> doc = (Map<String, Object>) Json.parse(
        Files.readString(out.resolve("release.json")));
    return doc;
  }

  /** complete's predictions.csv, in the test file's order. */
  private static double[] predictions(Path out) throws Exception {
    return Files.readAllLines(out.resolve("predictions.csv")).stream()
        .mapToDouble(l -> Double.parseDouble(l.split(",")[2])).toArray();
  }

  /** The service's scores at the test file's pairs. */
  private static double[] scores(CompletionRuns.Model m, RatingsStore s) throws Exception {
    double[] out = new double[3 * CompletionFitTest.ITEMS];
    int x = 0;
    for (int u : new int[] {0, 17, 59}) {
      double[] row = m.scores(s.ratings(u));
      for (int j = 0; j < CompletionFitTest.ITEMS; j++) {
        out[x++] = row[j];
      }
    }
    return out;
  }

  @Test
  void biasedFit_releasesAndPredictsExactlyWhatCompleteDoes_atTheRunsEpsilon() throws Exception {
    CompletionBudget budget = new CompletionBudget(1, 1e-6, 4);
    try (RatingsStore s = CompletionFitTest.store(dir.resolve("store"))) {
      Path train = dir.resolve("train.csv");
      Path test = dir.resolve("test.csv");
      writeTrain(s, train);
      writeTest(test);
      Map<String, Object> doc = complete(train, test, dir.resolve("out"),
          budget.epsilonPerRun());
      assertEquals(Boolean.FALSE, doc.get("private"), "--seed: a test key");
      // complete --seed S labels its noise complete/seed-S: the service's fit with that label.
      ServedBiasedModel m = (ServedBiasedModel) CompletionFit.create(CompletionFitTest.config(),
          SecretKey.forTesting(5)).fit(s, "complete/seed-5", NONE);
      Map<String, Object> pub = m.publicJson();
      assertEquals(doc.get("mechanism"), pub.get("mechanism"));
      assertEquals(doc.get("offset"), pub.get("offset"), "global offset g");
      assertArrayEquals(vector(doc.get("itemBiases")), (double[]) pub.get("itemBiases"), 0.0,
          "item biases");
      assertEquals(doc.get("userShrinkage"), pub.get("userShrinkage"), "lambda_u");
      assertEquals(doc.get("itemClip"), pub.get("itemClip"), "tau");
      @SuppressWarnings("unchecked")
      Map<String, Object> residual = (Map<String, Object>) pub.get("residual");
      assertEquals(doc.get("residual"), residual.get("status"));
      @SuppressWarnings("unchecked")
      Map<String, Object> account = (Map<String, Object>) pub.get("account");
      assertEquals(doc.get("epsilon"), account.get("epsilon"));
      assertEquals(doc.get("mu"), account.get("mu"));
      // Every component, in order, with every noise scale: the budget's split.
      // (Both through the parser: it reads every number as a Double.)
      assertEquals(Json.write(doc.get("components")),
          Json.write(Json.parse(Json.write(account.get("components")))));
      assertTrue(((List<?>) doc.get("components")).size() >= 4, "" + doc.get("components"));
      assertArrayEquals(predictions(dir.resolve("out")), scores(m, s), 0.0, "predictions");
    }
  }

  @Test
  void frankWolfeFit_predictsExactlyWhatCompleteModelFwDoes() throws Exception {
    CompletionBudget budget = new CompletionBudget(1, 1e-6, 4);
    try (RatingsStore s = CompletionFitTest.store(dir.resolve("store"))) {
      Path train = dir.resolve("train.csv");
      Path test = dir.resolve("test.csv");
      writeTrain(s, train);
      writeTest(test);
      Map<String, Object> doc = complete(train, test, dir.resolve("out"),
          budget.epsilonPerRun(), "--model", "fw");
      ServedFrankWolfeModel m = (ServedFrankWolfeModel) CompletionFit.create(
          CompletionFitTest.config("completion-model", "fw"), SecretKey.forTesting(5))
          .fit(s, "complete/seed-5", NONE);
      assertEquals(doc.get("offset"), m.offset(), "complete's default --offset");
      assertEquals(doc.get("clip"), m.model().clip(), "complete's default L");
      assertEquals(doc.get("nuclearNorm"), m.model().nuclearNorm());
      assertEquals(doc.get("mechanism"), m.publicJson().get("mechanism"));
      assertEquals(doc.get("rho"), m.model().diagnostics().account().orElseThrow().rho());
      assertArrayEquals(predictions(dir.resolve("out")), scores(m, s), 0.0, "predictions");
    }
  }

  private static double[] vector(Object json) {
    return ((List<?>) json).stream().mapToDouble(x -> ((Number) x).doubleValue()).toArray();
  }
}
