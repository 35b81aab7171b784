package io.dplrf.deploy.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.io.Json;
import io.dplrf.deploy.io.Npy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PcaCommandTest {
  @TempDir Path dir;
  private Path key;
  private Path csv;

  record Run(int code, String out, String err) {}

  @BeforeEach
  void setUp() throws IOException {
    key = dir.resolve("secret.key");
    csv = dir.resolve("rows.csv");
    StringBuilder sb = new StringBuilder("# one user per line\n");
    for (int i = 0; i < 40; i++) {
      // strong first direction (1,1,0,0,0), weaker second; row 0 is long and gets clipped
      double a = (i == 0 ? 50 : 1) * ((i % 7) - 3);
      double b = 0.2 * ((i % 3) - 1);
      sb.append(a).append(',').append(a).append(',').append(b).append(",0,").append(-b).append('\n');
    }
    Files.writeString(csv, sb);
  }

  private Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Cli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private String[] args(Path in, Path out, String mechanism, String... extra) {
    List<String> a = new ArrayList<>(List.of("pca", "--input", in.toString(), "--rank", "2",
        "--epsilon", "1", "--delta", "1e-6", "--mechanism", mechanism, "--out", out.toString(),
        "--key", key.toString(), "--clip", "10"));
    a.addAll(List.of(extra));
    return a.toArray(String[]::new);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> release(Path out) throws IOException {
    return (Map<String, Object>) Json.parse(Files.readString(out.resolve("release.json")));
  }

  /**
   * The service's utility fields, in units of S.npy (eigenvalues of AᵀA): reliableRank counts
   * exactly the values above noiseFloor, and stderr warns in words exactly when it is 0. 4,000
   * rows along (1, 1, 0, 0, 0) of norm 9.9 (clip 10) give an eigenvalue ≈ 3.9·10⁵, far above the
   * floor at ε = 1 (about 2·10³ for analyze-gauss, 10⁴ for ata-sketch at d = 5); the 40-row file
   * at ε = 10⁻³ (floor 10³ times higher) has no value the floor lets through, or the warning.
   */
  @ParameterizedTest
  @ValueSource(strings = {"analyze-gauss", "ata-sketch"})
  void pca_writesTheUtilityFields_andWarnsExactlyWhenTheReliableRankIsZero(String mechanism)
      throws IOException {
    Path strongCsv = dir.resolve("strong.csv");
    Files.writeString(strongCsv, "7,7,0,0,0\n".repeat(4000));
    Path out = dir.resolve("u-" + mechanism);
    Run r = run(args(strongCsv, out, mechanism));
    assertEquals(0, r.code(), r.err());
    Map<?, ?> u = utilityConsistentWithWarning(out, r);
    assertTrue(((Number) u.get("reliableRank")).intValue() >= 1, u.toString());

    Path weakOut = dir.resolve("n-" + mechanism);
    List<String> a = new ArrayList<>(List.of(args(csv, weakOut, mechanism)));
    a.set(a.indexOf("--epsilon") + 1, "1e-3");
    Run weak = run(a.toArray(String[]::new));
    assertEquals(0, weak.code(), weak.err());
    utilityConsistentWithWarning(weakOut, weak);
  }

  /** reliableRank = the count of values above noiseFloor; the warning iff it is 0. */
  private static Map<?, ?> utilityConsistentWithWarning(Path out, Run r) throws IOException {
    Map<?, ?> u = (Map<?, ?>) release(out).get("utility");
    double floor = ((Number) u.get("noiseFloor")).doubleValue();
    assertTrue(floor > 0, u.toString());
    List<?> values = (List<?>) u.get("singularValues");
    long above = values.stream().filter(x -> ((Number) x).doubleValue() > floor).count();
    assertEquals(above, ((Number) u.get("reliableRank")).longValue(), u.toString());
    assertEquals(values.size(), ((List<?>) u.get("aboveFloor")).size());
    assertEquals(above == 0, r.err().contains("reliable rank 0") && r.err().contains("noise alone"),
        "warning iff reliable rank 0: " + r.err() + " " + u);
    return u;
  }

  @ParameterizedTest
  @ValueSource(strings = {"analyze-gauss", "ata-sketch"})
  void pca_writesOrthonormalV_S_andAReleaseWithoutTheRowCount(String mechanism) throws IOException {
    Path out = dir.resolve("out-" + mechanism);
    Run r = run(args(csv, out, mechanism));
    assertEquals(0, r.code(), r.err());
    int[] shape = new int[2];
    double[] v = Npy.readDoubles(out.resolve("V.npy"), shape);
    assertArrayEquals(new int[] {5, 2}, shape);
    for (int a = 0; a < 2; a++) {
      for (int b = 0; b < 2; b++) {
        double dot = 0;
        for (int i = 0; i < 5; i++) {
          dot += v[i * 2 + a] * v[i * 2 + b];
        }
        assertEquals(a == b ? 1 : 0, dot, 1e-9);
      }
    }
    double[] s = Npy.readDoubles(out.resolve("S.npy"), new int[1]);
    assertEquals(2, s.length);
    assertTrue(s[0] >= s[1] && s[1] >= 0);
    Map<String, Object> doc = release(out);
    assertEquals(mechanism, doc.get("mechanism"));
    assertEquals(true, doc.get("private"));
    assertEquals(5L, ((Number) doc.get("cols")).longValue());
    assertEquals(true, doc.get("dimensionsFromData"));
    assertTrue(String.valueOf(doc.get("neighbouringRelation")).contains("one row"));
    assertTrue(String.valueOf(doc.get("rows")).startsWith("not released"));
    String json = Files.readString(out.resolve("release.json"));
    assertFalse(json.matches("(?s).*:\\s*40(\\.0)?\\s*[,}\\n].*"),
        "the exact row count 40 must not appear as a value in release.json: " + json);
    assertTrue(doc.containsKey("noise") && doc.containsKey("calibration"));
    assertTrue(r.out().contains("40 rows read, 1 clipped"), r.out());
  }

  @Test
  void analyzeGauss_releaseStatesSigmaAndSensitivityCSquared() throws IOException {
    Path out = dir.resolve("ag");
    assertEquals(0, run(args(csv, out, "analyze-gauss")).code());
    @SuppressWarnings("unchecked")
    Map<String, Object> e = (Map<String, Object>) ((List<Object>) release(out).get("noise")).get(0);
    assertEquals("E", e.get("sketch"));
    double sens = ((Number) e.get("sensitivity")).doubleValue();
    assertEquals(100.0, sens, 1e-6, "C^2 with C = 10, plus the grid slack");
    assertTrue(((Number) e.get("sigma")).doubleValue() > sens);
    assertEquals(15L, ((Number) e.get("entries")).longValue(), "d(d+1)/2 for d = 5");
  }

  @ParameterizedTest
  @ValueSource(strings = {"smooth-sensitivity", "smooth-sensitivity-pure"})
  void smoothSensitivity_writesOrthonormalV_noS_andAReleaseWithNothingDataDependent(String mechanism)
      throws IOException {
    Path out = dir.resolve("out-" + mechanism);
    Run r = run(args(csv, out, mechanism));
    assertEquals(0, r.code(), r.err());
    int[] shape = new int[2];
    double[] v = Npy.readDoubles(out.resolve("V.npy"), shape);
    assertArrayEquals(new int[] {5, 2}, shape);
    for (int a = 0; a < 2; a++) {
      for (int b = 0; b < 2; b++) {
        double dot = 0;
        for (int i = 0; i < 5; i++) {
          dot += v[i * 2 + a] * v[i * 2 + b];
        }
        assertEquals(a == b ? 1 : 0, dot, 1e-9);
      }
    }
    assertFalse(Files.exists(out.resolve("S.npy")), "a subspace only");
    Map<String, Object> doc = release(out);
    assertEquals(mechanism, doc.get("mechanism"));
    assertTrue(String.valueOf(doc.get("neighbouringRelation")).contains("one row x added or removed"));
    assertTrue(String.valueOf(doc.get("relationProved")).startsWith("add/remove one row"));
    assertTrue(String.valueOf(doc.get("sensitivity")).contains("Procrustes"));
    assertTrue(String.valueOf(doc.get("S")).startsWith("not released"));
    assertTrue(String.valueOf(doc.get("noise")).contains("NOT released"));
    @SuppressWarnings("unchecked")
    Map<String, Object> cal = (Map<String, Object>) doc.get("calibration");
    assertTrue(((Number) cal.get("beta")).doubleValue() > 0);
    assertEquals(mechanism.endsWith("pure") ? 0.0 : 1e-6, ((Number) doc.get("delta")).doubleValue());
    String json = Files.readString(out.resolve("release.json"));
    assertFalse(json.contains("\"gap\"") || json.contains("smoothBound") || json.contains("localBound"),
        "data-dependent values must not be released: " + json);
    assertEquals(java.util.Set.of("variant", "epsilon", "delta", "clip", "dimension", "rank",
        "epsilonSliding", "deltaSliding", "epsilonDilation", "deltaDilation", "beta",
        "slidingFactor", "gridStep", "scaleFloor"), cal.keySet(), "the plan is data-independent");
    assertTrue(r.out().contains("not private, for you only: eigengap"), r.out());
  }

  @Test
  void smoothSensitivity_aboveMaxDim_isRefusedBeforeReadingRows_exit2() {
    Path out = dir.resolve("big");
    Run r = run(args(csv, out, "smooth-sensitivity", "--max-dim", "4"));
    assertEquals(2, r.code());
    assertTrue(r.err().contains("d = 5 exceeds --max-dim 4"), r.err());
    assertFalse(Files.exists(out));
    Run other = run(args(csv, out, "analyze-gauss", "--max-dim", "4"));
    assertEquals(2, other.code());
    assertTrue(other.err().contains("--max-dim applies to smooth-sensitivity only"), other.err());
  }

  private String[] localRobustArgs(Path out, String... extra) {
    List<String> a = new ArrayList<>(List.of("pca", "--input", csv.toString(), "--rank", "2",
        "--epsilon", "1", "--delta", "1e-6", "--mechanism", "local-robust", "--out",
        out.toString(), "--clip", "10"));
    a.addAll(List.of(extra));
    return a.toArray(String[]::new);
  }

  @Test
  void localRobust_writesOrthonormalV_noS_andAPureEpsilonReleaseWithEveryScale() throws IOException {
    String seed = "cd".repeat(32);
    Path out = dir.resolve("lr");
    Run r = run(localRobustArgs(out, "--seed", seed));
    assertEquals(0, r.code(), r.err());
    int[] shape = new int[2];
    double[] v = Npy.readDoubles(out.resolve("V.npy"), shape);
    assertArrayEquals(new int[] {5, 2}, shape);
    for (int a = 0; a < 2; a++) {
      for (int b = 0; b < 2; b++) {
        double dot = 0;
        for (int i = 0; i < 5; i++) {
          dot += v[i * 2 + a] * v[i * 2 + b];
        }
        assertEquals(a == b ? 1 : 0, dot, 1e-9);
      }
    }
    assertFalse(Files.exists(out.resolve("S.npy")), "S is in sketch units: not released");
    Map<String, Object> doc = release(out);
    assertEquals("local-robust", doc.get("mechanism"));
    assertEquals(0.0, ((Number) doc.get("delta")).doubleValue());
    assertEquals(seed, doc.get("publicSeed"));
    assertEquals("l1", doc.get("clipNorm"));
    assertEquals(40L, ((Number) doc.get("users")).longValue(), "m is a protocol parameter");
    assertEquals(5L, ((Number) doc.get("sketchCols")).longValue(), "t = min(4k, m, d)");
    assertEquals(10L, ((Number) doc.get("sketchRows")).longValue(), "v = 2t");
    assertTrue(String.valueOf(doc.get("neighbouringRelation")).startsWith("one row, local"));
    @SuppressWarnings("unchecked")
    Map<String, Object> noise = (Map<String, Object>) doc.get("noise");
    for (String part : new String[] {"Yr", "Z"}) {
      double sens = ((Number) noise.get("perReportSensitivity" + part)).doubleValue();
      double b = ((Number) noise.get("perReportLaplaceScale" + part)).doubleValue();
      assertTrue(sens >= 2 * 10 * 1e-3 && sens / b <= 0.5 && sens / b > 0.5 * (1 - 1e-6),
          part + ": sensitivity " + sens + ", scale " + b + " (epsilon/2 each)");
    }
    assertTrue(doc.containsKey("calibration") && doc.containsKey("sensitivity"));
    assertTrue(r.out().contains("1 rows with l1 norm above 10"), r.out());
    assertFalse(Files.exists(key), "local-robust must not create a secret key");
    Path again = dir.resolve("lr2");
    assertEquals(0, run(localRobustArgs(again, "--seed", seed)).code());
    assertEquals(doc.get("protocolId"), release(again).get("protocolId"));
    assertEquals(noise, release(again).get("noise"), "the scales depend on the public seed only");
  }

  @Test
  void localRobust_badOptions_areParameterErrors_andWriteNothing() {
    String[][] bad = {
        {"--key", "k"}, {"--p", "2"}, {"--p", "0.5"}, {"--stable-clip", "0"},
        {"--sketch-cols", "6"}, {"--sketch-rows", "1"}, {"--alpha", "0.5"}, {"--seed", "xyz"},
        {"--max-dim", "10"}};
    for (int n = 0; n < bad.length; n++) {
      Path out = dir.resolve("bad" + n);
      Run r = run(localRobustArgs(out, bad[n]));
      assertEquals(2, r.code(), String.join(" ", bad[n]) + ": " + r.err());
      assertFalse(r.err().isBlank());
      assertFalse(Files.exists(out), String.join(" ", bad[n]) + " left an output directory");
    }
    Run pElsewhere = run(args(csv, dir.resolve("x"), "analyze-gauss", "--p", "1.5"));
    assertEquals(2, pElsewhere.code());
    assertTrue(pElsewhere.err().contains("--p and --stable-clip apply to local-robust only"),
        pElsewhere.err());
    Run rankAboveRows = run("pca", "--input", csv.toString(), "--rank", "5", "--epsilon", "1",
        "--delta", "1e-6", "--mechanism", "local-robust", "--out", dir.resolve("y").toString(),
        "--cols", "5");
    assertEquals(0, rankAboveRows.code(), "k = d = 5 <= m = 40 is fine: " + rankAboveRows.err());
  }

  private String[] localArgs(Path out, String... extra) {
    List<String> a = new ArrayList<>(List.of("pca", "--input", csv.toString(), "--rank", "2",
        "--epsilon", "1", "--delta", "1e-6", "--mechanism", "local", "--out", out.toString(),
        "--clip", "10"));
    a.addAll(List.of(extra));
    return a.toArray(String[]::new);
  }

  @Test
  void local_writesOrthonormalV_S_andAReleaseWithThePublicSeedButNotTheRowCount() throws IOException {
    String seed = "ab".repeat(32);
    Path out = dir.resolve("local");
    Run r = run(localArgs(out, "--seed", seed, "--sketch-cols", "4"));
    assertEquals(0, r.code(), r.err());
    int[] shape = new int[2];
    double[] v = Npy.readDoubles(out.resolve("V.npy"), shape);
    assertArrayEquals(new int[] {5, 2}, shape);
    for (int a = 0; a < 2; a++) {
      for (int b = 0; b < 2; b++) {
        double dot = 0;
        for (int i = 0; i < 5; i++) {
          dot += v[i * 2 + a] * v[i * 2 + b];
        }
        assertEquals(a == b ? 1 : 0, dot, 1e-9);
      }
    }
    double[] s = Npy.readDoubles(out.resolve("S.npy"), new int[1]);
    assertTrue(s.length == 2 && s[0] >= s[1] && s[1] >= 0);
    Map<String, Object> doc = release(out);
    assertEquals("local", doc.get("mechanism"));
    assertEquals(seed, doc.get("publicSeed"));
    assertEquals(4L, ((Number) doc.get("sketchCols")).longValue());
    assertTrue(String.valueOf(doc.get("neighbouringRelation")).startsWith("local"));
    assertTrue(String.valueOf(doc.get("rows")).startsWith("not released"));
    @SuppressWarnings("unchecked")
    Map<String, Object> noise = (Map<String, Object>) doc.get("noise");
    double sens = ((Number) noise.get("perReportSensitivity")).doubleValue();
    assertEquals(Math.sqrt(2) * 100, sens, 1e-6 * sens, "sqrt(2) C^2 with C = 10");
    String json = Files.readString(out.resolve("release.json"));
    assertFalse(json.matches("(?s).*:\\s*40(\\.0)?\\s*[,}\\n].*"),
        "the exact row count 40 must not appear as a value in release.json: " + json);
    assertTrue(r.out().contains("40 reports summed, 1 rows longer than 10"), r.out());
    assertFalse(Files.exists(key), "local must not create a secret key");
    // The same public seed gives the same protocol (a server and its clients agree on it).
    Path again = dir.resolve("local2");
    assertEquals(0, run(localArgs(again, "--seed", seed, "--sketch-cols", "4")).code());
    assertEquals(doc.get("protocolId"), release(again).get("protocolId"));
  }

  @Test
  void local_refusesAKey_aSeedForOtherMechanisms_andSketchColsBelowK() {
    Run withKey = run(localArgs(dir.resolve("a"), "--key", key.toString()));
    assertEquals(2, withKey.code());
    assertTrue(withKey.err().contains("--key does not apply to local"), withKey.err());
    Run seedElsewhere = run(args(csv, dir.resolve("b"), "analyze-gauss", "--seed", "ab".repeat(32)));
    assertEquals(2, seedElsewhere.code());
    assertTrue(seedElsewhere.err().contains("--seed applies to local and local-robust only"), seedElsewhere.err());
    Run narrow = run(localArgs(dir.resolve("c"), "--sketch-cols", "1"));
    assertEquals(2, narrow.code());
    assertTrue(narrow.err().contains("sketch-cols (t) must be in k..d"), narrow.err());
    Run badSeed = run(localArgs(dir.resolve("d"), "--seed", "xyz"));
    assertEquals(2, badSeed.code());
    assertFalse(Files.exists(dir.resolve("a")) || Files.exists(dir.resolve("c")));
  }

  @Test
  void unknownMechanism_isAParameterError() {
    Run r = run(args(csv, dir.resolve("x"), "priv2"));
    assertEquals(2, r.code());
    assertTrue(r.err().contains("mechanism must be one of analyze-gauss, ata-sketch"), r.err());
  }

  @Test
  void raggedRow_isAnInputErrorNamingFileAndLine_andWritesNothing() throws IOException {
    Path bad = dir.resolve("bad.csv");
    Files.writeString(bad, "1,2,3\n4,5,6\n7,8\n");
    Path out = dir.resolve("o");
    Run r = run(args(bad, out, "analyze-gauss"));
    assertEquals(1, r.code());
    assertTrue(r.err().contains("bad.csv:3: expected 3 values per row, found 2"), r.err());
    assertFalse(Files.exists(out));
  }

  @Test
  void nonFiniteValue_isAnInputErrorNamingTheLine() throws IOException {
    Path bad = dir.resolve("nan.csv");
    Files.writeString(bad, "1,2,3\n4,NaN,6\n");
    Run r = run(args(bad, dir.resolve("o"), "analyze-gauss"));
    assertEquals(1, r.code());
    assertTrue(r.err().contains("nan.csv:2:"), r.err());
  }

  @Test
  void rankAboveDimension_andBadEpsilon_areParameterErrors() {
    Run r = run("pca", "--input", csv.toString(), "--rank", "6", "--epsilon", "1", "--delta", "1e-6",
        "--mechanism", "analyze-gauss", "--out", dir.resolve("o").toString(), "--key", key.toString());
    assertEquals(2, r.code());
    assertTrue(r.err().contains("rank (k) must be <= the dimension d = 5"), r.err());
    Run e = run("pca", "--input", csv.toString(), "--rank", "2", "--epsilon", "0", "--delta", "1e-6",
        "--mechanism", "analyze-gauss", "--out", dir.resolve("o").toString(), "--key", key.toString());
    assertEquals(2, e.code());
    assertTrue(e.err().contains("epsilon"), e.err());
  }

  @Test
  void matrixMarketRows_andExplicitCols_areAccepted() throws IOException {
    Path mtx = dir.resolve("a.mtx");
    Files.writeString(mtx, """
        %%MatrixMarket matrix coordinate real general
        4 3 5
        1 1 1.0
        2 2 2.0
        4 1 0.5
        1 3 -1.0
        2 2 1.0
        """);
    Path out = dir.resolve("mm");
    Run r = run(args(mtx, out, "analyze-gauss", "--cols", "3"));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("3 rows read"), r.out()); // row 3 is empty and skipped
    assertEquals(false, release(out).get("dimensionsFromData"));
  }

  @Test
  void existingNonEmptyOutput_isRefusedWithoutOverwrite() throws IOException {
    Path out = dir.resolve("full");
    Files.createDirectories(out);
    Files.writeString(out.resolve("keep"), "x");
    Run r = run(args(csv, out, "analyze-gauss"));
    assertEquals(2, r.code());
    assertTrue(Files.exists(out.resolve("keep")));
    assertEquals(0, run(args(csv, out, "analyze-gauss", "--overwrite")).code());
  }
}
