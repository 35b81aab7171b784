package io.dplrf.deploy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.io.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompleteCommandTest {
  @TempDir Path dir;
  private Path key;
  private Path train;
  private Path test;

  record Run(int code, String out, String err) {}

  /** A rank-one 300 × 12 ratings matrix u_i·v_j, 6 ratings per user; test pairs elsewhere. */
  @BeforeEach
  void setUp() throws IOException {
    key = dir.resolve("secret.key");
    train = dir.resolve("train.csv");
    test = dir.resolve("test.csv");
    StringBuilder tr = new StringBuilder();
    StringBuilder te = new StringBuilder();
    for (int i = 0; i < 300; i++) {
      for (int x = 0; x < 7; x++) {
        int j = (i + 5 * x) % 12;
        double r = (1 + i % 4) * (1 + j % 3) / 4.0;
        (x < 6 ? tr : te).append(i).append(',').append(j).append(',').append(r).append('\n');
      }
    }
    Files.writeString(train, tr);
    Files.writeString(test, te);
  }

  private Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Cli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8));
  }

  private String[] args(Path out, String... extra) {
    List<String> a = new ArrayList<>(List.of("complete", "--train", train.toString(), "--test",
        test.toString(), "--epsilon", "1", "--delta", "1e-6", "--out", out.toString(), "--key",
        key.toString(), "--iterations", "4", "--rating-min", "0", "--rating-max", "3",
        "--users", "300", "--items", "12"));
    a.addAll(Arrays.asList(extra));
    return a.toArray(String[]::new);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> json(Path out) throws IOException {
    return (Map<String, Object>) Json.parse(Files.readString(out.resolve("release.json")));
  }

  @Test
  void complete_writesOnePredictionPerTestPairInOrder_andAReleaseDocument() throws IOException {
    Path out = dir.resolve("out");
    Run r = run(args(out));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("test RMSE"), r.out());
    assertTrue(r.out().contains("(1.0, 1.0E-6)-joint-DP"), r.out());
    List<String> pred = Files.readAllLines(out.resolve("predictions.csv"));
    List<String> pairs = Files.readAllLines(test);
    assertEquals(pairs.size(), pred.size());
    for (int x = 0; x < pairs.size(); x++) {
      String[] p = pairs.get(x).split(",");
      String[] q = pred.get(x).split(",");
      assertEquals(p[0] + "," + p[1], q[0] + "," + q[1], "line " + x);
      assertTrue(Double.isFinite(Double.parseDouble(q[2])));
    }
    Map<String, Object> doc = json(out);
    assertEquals("private-biased-frank-wolfe", doc.get("mechanism"));
    assertEquals(true, doc.get("private"));
    assertEquals(false, doc.get("dimensionsFromData"));
    assertEquals("one user (joint DP)", doc.get("relation"));
    assertEquals(1.0, ((Number) doc.get("epsilon")).doubleValue());
    assertEquals(12, ((List<?>) doc.get("itemBiases")).size());
    List<?> parts = (List<?>) doc.get("components");
    assertTrue(parts.size() >= 3, parts.toString());
    double mu2 = 0;
    for (Object c : parts) {
      double mu = ((Number) ((Map<?, ?>) c).get("mu")).doubleValue();
      mu2 += mu * mu;
    }
    assertEquals(((Number) doc.get("mu")).doubleValue(), Math.sqrt(mu2), 1e-9,
        "the components spend the whole budget, no more");
    assertEquals("privately", doc.get("userShrinkageEstimated"));
    assertTrue(parts.stream().anyMatch(c -> String.valueOf(((Map<?, ?>) c).get("component"))
        .startsWith("users' spread")), parts.toString());
    for (String line : Files.readAllLines(out.resolve("predictions.csv"))) {
      double p = Double.parseDouble(line.split(",")[2]);
      assertTrue(p >= 0 && p <= 3, "clamped to the declared range: " + line);
    }
    assertTrue(r.err().isEmpty(), r.err());
  }

  @Test
  void complete_withAFixedUserShrinkage_makesNoSpreadRelease() throws IOException {
    Path out = dir.resolve("fixed");
    Run r = run(args(out, "--user-shrinkage", "3"));
    assertEquals(0, r.code(), r.err());
    Map<String, Object> doc = json(out);
    assertEquals("fixed by the user", doc.get("userShrinkageEstimated"));
    assertEquals(3.0, ((Number) doc.get("userShrinkage")).doubleValue());
    assertFalse(doc.get("components").toString().contains("spread"), doc.toString());
  }

  /**
   * "privately" is written only for a private run: a --seed run says the mechanism ran but the
   * release is not private. ξ bounds the residual Frank–Wolfe only, so with --max-ratings 5 the
   * spread (which reads all of a user's ratings) is still estimated.
   */
  @Test
  void complete_labelsHowTheUserShrinkageWasSet_honestly() throws IOException {
    Path seeded = dir.resolve("seeded");
    List<String> a = new ArrayList<>(Arrays.asList(args(seeded)));
    int k = a.indexOf("--key");
    a.set(k, "--seed");
    a.set(k + 1, "5");
    Run r = run(a.toArray(String[]::new));
    assertEquals(0, r.code(), r.err());
    Map<String, Object> doc = json(seeded);
    assertEquals(false, doc.get("private"));
    assertEquals("by the private mechanism, but this release is NOT private (see warning)",
        doc.get("userShrinkageEstimated"));
    Path few = dir.resolve("few");
    Run f = run(args(few, "--max-ratings", "5"));
    assertEquals(0, f.code(), f.err());
    Map<String, Object> fewDoc = json(few);
    assertEquals("privately", fewDoc.get("userShrinkageEstimated"), fewDoc.toString());
    assertTrue(fewDoc.get("components").toString().contains("spread"), fewDoc.toString());
  }

  /**
   * A training rating outside the declared scale is dropped and counted, with its line, on
   * stderr (never clamped silently); the run goes on, and its model is the model without it.
   */
  @Test
  void complete_dropsAndCountsOutOfScaleRatings_withTheFirstLine() throws IOException {
    Path extra = dir.resolve("extra.csv");
    Files.writeString(extra, Files.readString(train) + "4,0,3.5\n5,1,-1\n");
    long lines = Files.readAllLines(train).size();
    List<String> a = new ArrayList<>(Arrays.asList(args(dir.resolve("x"), "--seed", "3")));
    a.set(a.indexOf(train.toString()), extra.toString());
    int k = a.indexOf("--key");
    a.remove(k + 1);
    a.remove(k);
    Run r = run(a.toArray(String[]::new));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("2 with a rating outside [--rating-min 0.0, --rating-max 3.0]"
        + " (first at " + extra + ":" + (lines + 1) + ")"), r.err());
    Run clean = run(args(dir.resolve("y"), "--seed", "3"));
    assertEquals(Files.readString(dir.resolve("y").resolve("predictions.csv")),
        Files.readString(dir.resolve("x").resolve("predictions.csv")));
    assertFalse(clean.err().contains("rating outside"), clean.err());
  }

  /**
   * Beside the model's test RMSE, complete prints the trivial predictors' on the same pairs,
   * fitted on the training ratings: global mean, per-user mean, item mean, user + item biases.
   * Checked against the global mean computed here from the training file.
   */
  @Test
  void complete_printsTheTrivialPredictorsBesideTheModel() throws IOException {
    Run r = run(args(dir.resolve("b")));
    assertEquals(0, r.code(), r.err());
    double sum = 0;
    List<String> tr = Files.readAllLines(train);
    for (String line : tr) {
      sum += Double.parseDouble(line.split(",")[2]);
    }
    double g = sum / tr.size();
    double se = 0;
    List<String> te = Files.readAllLines(test);
    for (String line : te) {
      double e = Double.parseDouble(line.split(",")[2]) - g;
      se += e * e;
    }
    String expected = String.format(java.util.Locale.ROOT, "global mean RMSE %.6f",
        Math.sqrt(se / te.size()));
    assertTrue(r.out().contains(expected), expected + " in " + r.out());
    for (String name : new String[] {"per-user mean RMSE", "item mean RMSE",
        "user + item biases RMSE"}) {
      assertTrue(r.out().contains(name), name + " in " + r.out());
    }
  }

  /**
   * With more than 2,000 items the default solver is oja (the dense one would need a d × d
   * matrix), so the run completes instead of refusing; --solver full still refuses.
   */
  @Test
  void complete_withMoreThan2000Items_picksTheOjaSolver() throws IOException {
    String[] big = args(dir.resolve("big"), "--seed", "2", "--oja-steps", "3");
    big[Arrays.asList(big).indexOf("--items") + 1] = "2500";
    Run r = run(big);
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("oja solver"), r.out());
    Run small = run(args(dir.resolve("small"), "--seed", "2"));
    assertTrue(small.out().contains("full solver"), small.out());
    List<String> full = new ArrayList<>(Arrays.asList(big));
    full.set(full.indexOf(dir.resolve("big").toString()), dir.resolve("full").toString());
    full.addAll(List.of("--solver", "full"));
    Run refused = run(full.toArray(String[]::new));
    assertEquals(2, refused.code(), refused.out());
    assertTrue(refused.err().contains("oja"), refused.err());
  }

  @Test
  void complete_fwModel_isAlgorithm1CentredOnTheMidpoint() throws IOException {
    Path out = dir.resolve("fw");
    Run r = run(args(out, "--model", "fw"));
    assertEquals(0, r.code(), r.err());
    Map<String, Object> doc = json(out);
    assertEquals("private-frank-wolfe", doc.get("mechanism"));
    assertEquals(1.5, ((Number) doc.get("offset")).doubleValue());
    assertEquals(4, ((Number) doc.get("iterations")).intValue());
    assertTrue(((Number) doc.get("rho")).doubleValue() > 0);
  }

  @Test
  void complete_withoutTheRatingRange_isRefused() {
    Path out = dir.resolve("norange");
    List<String> a = new ArrayList<>(Arrays.asList(args(out)));
    int at = a.indexOf("--rating-min");
    a.subList(at, at + 4).clear();
    Run r = run(a.toArray(String[]::new));
    assertEquals(2, r.code());
    assertTrue(r.err().contains("--rating-min and --rating-max"), r.err());
    assertFalse(Files.exists(out));
  }

  /** Dimensions read from the data change with one user (δ = 1): a private run refuses them. */
  @Test
  void complete_withoutDimensions_isRefusedWithOneLineNamingTheFlags() {
    Path out = dir.resolve("dims");
    List<String> a = new ArrayList<>(Arrays.asList(args(out)));
    int at = a.indexOf("--users");
    a.subList(at, at + 4).clear();
    Run r = run(a.toArray(String[]::new));
    assertEquals(2, r.code(), r.err());
    String err = r.err().strip();
    assertEquals(1, err.lines().count(), err);
    assertTrue(err.contains("--users") && err.contains("--items"), err);
    assertFalse(Files.exists(out), "no release of a shape read from the data");
  }

  /** A --seed run (not private anyway) may read the dimensions; its release is never private. */
  @Test
  void complete_seedRunWithDimensionsFromTheData_isLabelledNotPrivate() throws IOException {
    Path out = dir.resolve("dims-seed");
    List<String> a = new ArrayList<>(Arrays.asList(args(out, "--seed", "7")));
    int at = a.indexOf("--users");
    a.subList(at, at + 4).clear();
    Run r = run(a.toArray(String[]::new));
    assertEquals(0, r.code(), r.err());
    Map<String, Object> doc = json(out);
    assertEquals(false, doc.get("private"));
    assertEquals(true, doc.get("dimensionsFromData"));
    assertTrue(String.valueOf(doc.get("warning")).contains("NOT differentially private"));
  }

  @Test
  void complete_withNoNoiseOrSeed_isLabelledNotPrivate() throws IOException {
    Path a = dir.resolve("a");
    assertEquals(0, run(args(a, "--no-noise")).code());
    assertEquals(false, json(a).get("private"));
    assertFalse(json(a).containsKey("epsilon"));
    Path b = dir.resolve("b");
    assertEquals(0, run(args(b, "--seed", "4", "--model", "fw", "--solver", "oja",
        "--oja-steps", "5")).code());
    assertEquals(false, json(b).get("private"));
    assertTrue(String.valueOf(json(b).get("warning")).contains("NOT differentially private"));
    assertEquals(5, ((Number) json(b).get("ojaSteps")).intValue());
  }

  @Test
  void complete_badInput_failsWithOneLineAndNoOutputDirectory() throws IOException {
    Path bad = dir.resolve("bad.csv");
    Files.writeString(bad, "0,1,2\n1,x,3\n");
    Path out = dir.resolve("out-bad");
    List<String> a = new ArrayList<>(Arrays.asList(args(out)));
    a.set(a.indexOf(train.toString()), bad.toString());
    Run r = run(a.toArray(String[]::new));
    assertEquals(1, r.code());
    assertTrue(r.err().contains("bad.csv:2"), r.err());
    assertEquals(1, r.err().strip().lines().count(), r.err());
    assertFalse(Files.exists(out));

    Run e = run(args(out, "--epsilon", "0"));
    assertEquals(2, e.code());
    assertFalse(Files.exists(out));
    Run s = run(args(out, "--solver", "lanczos"));
    assertEquals(2, s.code());
    assertTrue(s.err().contains("solver must be auto, full or oja"), s.err());
    Run m = run(args(out, "--max-ratings", "0"));
    assertEquals(2, m.code());
    assertFalse(Files.exists(out));
  }

  /**
   * Training records with a non-finite rating or an id outside the declared catalogue are
   * dropped, counted on stderr (with the first offending line) and never mentioned in the
   * release; the run equals one on the file without them (same test key).
   */
  @Test
  void complete_dropsUnusableTrainingRecords_andMatchesTheCleanRun() throws IOException {
    Path dirty = dir.resolve("dirty.csv");
    List<String> lines = new ArrayList<>(Files.readAllLines(train));
    lines.add(3, "5,2,NaN");
    lines.add(7, "300,1,2");
    lines.add(9, "4,12,1");
    lines.add(10, "7,3,inf");
    lines.add("-1,0,1");
    Files.write(dirty, lines);
    Path clean = dir.resolve("clean");
    Path out = dir.resolve("dropped");
    Run a = run(args(clean, "--seed", "5"));
    List<String> d = new ArrayList<>(Arrays.asList(args(out, "--seed", "5")));
    d.set(d.indexOf(train.toString()), dirty.toString());
    Run b = run(d.toArray(String[]::new));
    assertEquals(0, a.code(), a.err());
    assertEquals(0, b.code(), b.err());
    assertTrue(b.err().contains("dropped 5 training record(s)"), b.err());
    assertTrue(b.err().contains("2 with a non-finite rating (first at " + dirty + ":4)"),
        b.err());
    assertTrue(b.err().contains("3 with an id outside --users 300 x --items 12 (first at "
        + dirty + ":8)"), b.err());
    assertEquals(1, b.err().strip().lines().count(), b.err());
    assertEquals(Files.readString(clean.resolve("predictions.csv")),
        Files.readString(out.resolve("predictions.csv")));
    Map<String, Object> ja = json(clean);
    Map<String, Object> jb = json(out);
    ja.remove("runId");
    jb.remove("runId");
    assertEquals(ja, jb, "the release is that of the clean file");
  }

  @Test
  void complete_refusesANonEmptyOutputDirectoryWithoutOverwrite() throws IOException {
    Path out = dir.resolve("taken");
    Files.createDirectories(out);
    Files.writeString(out.resolve("x"), "keep");
    Run r = run(args(out));
    assertEquals(2, r.code());
    assertEquals("keep", Files.readString(out.resolve("x")));
  }
}
