package io.dplrf.deploy.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FactorizeCommandTest {
  @TempDir Path dir;
  private Path key;
  private Path input;

  /** Result of one CLI invocation. */
  record Run(int code, String out, String err) {}

  @BeforeEach
  void setUp() throws IOException {
    key = dir.resolve("secret.key");
    input = dir.resolve("a.csv");
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 30; i++) {
      for (int j = 0; j < 25; j++) {
        double x = (i % 5 + 1) * (j % 3 + 1) + (i == j ? 2 : 0);
        sb.append(i).append(',').append(j).append(',').append(x).append('\n');
      }
    }
    Files.writeString(input, sb);
  }

  private Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Cli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private String[] args(Path in, Path out, String... extra) {
    List<String> a = new ArrayList<>(Arrays.asList(argsWithoutDimensions(in, out)));
    a.addAll(List.of("--rows", "30", "--cols", "25"));
    a.addAll(Arrays.asList(extra));
    return a.toArray(String[]::new);
  }

  private String[] argsWithoutDimensions(Path in, Path out, String... extra) {
    List<String> a = new ArrayList<>(List.of("factorize", "--input", in.toString(), "--rank", "2",
        "--epsilon", "1", "--delta", "1e-6", "--mechanism", "priv2", "--out", out.toString(),
        "--key", key.toString()));
    a.addAll(Arrays.asList(extra));
    return a.toArray(String[]::new);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> releaseJson(Path out) throws IOException {
    return (Map<String, Object>) Json.parse(Files.readString(out.resolve("release.json")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mechanisms")
  void factorize_writesFactorsAndAReleaseDocument(String mechanism) throws IOException {
    Path out = dir.resolve("out-" + mechanism);
    Run r = run(replace(args(input, out), "priv2", mechanism));
    assertEquals(0, r.code(), r.err());
    int[] shape = new int[2];
    double[] u = Npy.readDoubles(out.resolve("U.npy"), shape);
    assertEquals(30, shape[0]);
    assertEquals(2, shape[1]);
    // Columns of U are orthonormal.
    for (int a = 0; a < 2; a++) {
      for (int b = 0; b < 2; b++) {
        double dot = 0;
        for (int i = 0; i < 30; i++) {
          dot += u[i * 2 + a] * u[i * 2 + b];
        }
        assertEquals(a == b ? 1 : 0, dot, 1e-9);
      }
    }
    Npy.readDoubles(out.resolve("V.npy"), shape);
    assertEquals(25, shape[0]);
    int[] s1 = new int[1];
    assertEquals(2, Npy.readDoubles(out.resolve("S.npy"), s1).length);
    Map<String, Object> doc = releaseJson(out);
    assertEquals(Boolean.TRUE, doc.get("private"));
    assertEquals(1.0, doc.get("epsilon"));
    assertEquals(mechanism, doc.get("mechanism"));
    assertTrue(doc.containsKey("calibration"), "every noise scale is written");
    assertTrue(Files.readString(out.resolve("release.json")).contains("sigma"));
  }

  static Stream<Arguments> mechanisms() {
    return Stream.of(Arguments.of("priv1"), Arguments.of("priv2"), Arguments.of("priv2-sparse"),
        Arguments.of("input-perturbation"), Arguments.of("robust-lra"));
  }

  @ParameterizedTest(name = "{0} p={1}")
  @MethodSource("robust")
  void robust_releaseJsonNamesRelationPNoiseAndSensitivity(String mechanism, String p)
      throws IOException {
    Path out = dir.resolve("out-" + mechanism + p);
    Run r = run(replace(args(input, out, "--p", p), "priv2", mechanism));
    assertEquals(0, r.code(), r.err());
    Map<String, Object> doc = releaseJson(out);
    assertEquals(mechanism, doc.get("mechanism"));
    assertEquals(Double.parseDouble(p), doc.get("p"));
    assertEquals(0.0, doc.get("delta"), "pure epsilon-DP");
    assertTrue(((String) doc.get("neighbouringRelation")).startsWith("entrywise l1"));
    @SuppressWarnings("unchecked")
    Map<String, Object> cal = (Map<String, Object>) doc.get("calibration");
    for (String part : mechanism.equals("robust-pca") ? List.of("yr", "z") : List.of("yr", "yc", "z")) {
      @SuppressWarnings("unchecked")
      Map<String, Object> noise = (Map<String, Object>) cal.get(part);
      assertTrue((Double) noise.get("l1Sensitivity") > 0, part);
      assertTrue(noise.containsKey("grid"), part);
    }
    int[] shape = new int[2];
    double[] v = Npy.readDoubles(out.resolve("V.npy"), shape);
    assertEquals(25, shape[0]);
    assertEquals(2, shape[1]);
    for (int a = 0; a < 2; a++) {
      for (int b = 0; b < 2; b++) {
        double dot = 0;
        for (int j = 0; j < 25; j++) {
          dot += v[j * 2 + a] * v[j * 2 + b];
        }
        assertEquals(a == b ? 1 : 0, dot, 1e-9, "V orthonormal");
      }
    }
    assertEquals(mechanism.equals("robust-lra"), Files.exists(out.resolve("U.npy")));
  }

  static Stream<Arguments> robust() {
    return Stream.of(Arguments.of("robust-lra", "1"), Arguments.of("robust-lra", "1.5"),
        Arguments.of("robust-pca", "1"), Arguments.of("robust-pca", "1.2"));
  }

  @ParameterizedTest(name = "p={0}")
  @MethodSource("badP")
  void robust_pOutsideOneToTwo_exits2WithAClearMessage(String p) {
    Path out = dir.resolve("bad-p");
    Run r = run(replace(args(input, out, "--p", p), "priv2", "robust-lra"));
    assertEquals(2, r.code());
    assertTrue(r.err().contains("p must be"), r.err()); // "in [1, 2)" or "a finite number"
    assertFalse(Files.exists(out));
  }

  static Stream<Arguments> badP() {
    return Stream.of(Arguments.of("2"), Arguments.of("0.5"), Arguments.of("NaN"));
  }

  @Test
  void p_forAnL2Mechanism_isAUsageError() {
    Run r = run(args(input, dir.resolve("o"), "--p", "1"));
    assertEquals(2, r.code());
    assertTrue(r.err().contains("apply to robust-lra and robust-pca only"), r.err());
  }

  @Test
  void robust_l1RegressionAndUnclippedSketches_areSelectable() throws IOException {
    Path out = dir.resolve("l1");
    Run r = run(replace(args(input, out, "--regression", "l1", "--stable-clip", "inf"), "priv2",
        "robust-lra"));
    assertEquals(0, r.code(), r.err());
    @SuppressWarnings("unchecked")
    Map<String, Object> cal = (Map<String, Object>) releaseJson(out).get("calibration");
    assertTrue(cal.containsKey("stableClip") && cal.get("stableClip") == null, "inf as null: " + cal);
    Run bad = run(replace(args(input, dir.resolve("l3"), "--regression", "l3"), "priv2",
        "robust-pca"));
    assertEquals(2, bad.code());
    assertTrue(bad.err().contains("regression must be one of l2, l1"), bad.err());
  }

  private static String[] replace(String[] a, String from, String to) {
    return Arrays.stream(a).map(x -> x.equals(from) ? to : x).toArray(String[]::new);
  }

  @Test
  void twoRuns_drawIndependentRandomness() throws IOException {
    Path o1 = dir.resolve("o1");
    Path o2 = dir.resolve("o2");
    assertEquals(0, run(args(input, o1)).code());
    assertEquals(0, run(args(input, o2)).code());
    assertNotEquals(releaseJson(o1).get("runId"), releaseJson(o2).get("runId"));
    assertFalse(Arrays.equals(Files.readAllBytes(o1.resolve("S.npy")), Files.readAllBytes(o2.resolve("S.npy"))),
        "two runs must not share noise");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mechanisms")
  void csvWithoutDimensions_isRefusedWithOneLineNamingTheFlags(String mechanism) {
    Path out = dir.resolve("no-dims");
    Run r = run(replace(argsWithoutDimensions(input, out), "priv2", mechanism));
    assertEquals(2, r.code(), r.err());
    String err = r.err().strip();
    assertEquals(1, err.lines().count(), err);
    assertTrue(err.contains("--rows") && err.contains("--cols"), err);
    assertFalse(Files.exists(out), "no release of a shape read from the data");
  }

  @Test
  void noNoiseWithoutDimensions_readsThemFromTheDataAndIsLabelledNotPrivate() throws IOException {
    Path out = dir.resolve("nn-dims");
    Run r = run(argsWithoutDimensions(input, out, "--no-noise"));
    assertEquals(0, r.code(), r.err());
    Map<String, Object> doc = releaseJson(out);
    assertEquals(true, doc.get("dimensionsFromData"));
    assertEquals(30, ((Number) doc.get("rows")).intValue());
    assertEquals(Boolean.FALSE, doc.get("private"), "a shape read from the data is never private");
  }

  @Test
  void privateRelease_declaresItsDimensionsPublic() throws IOException {
    Path out = dir.resolve("dims");
    assertEquals(0, run(args(input, out)).code());
    Map<String, Object> doc = releaseJson(out);
    assertEquals(Boolean.TRUE, doc.get("private"));
    assertEquals(false, doc.get("dimensionsFromData"));
  }

  @Test
  void sketchLargerThanTheDataReadShape_errorDoesNotPrintTheShape() {
    // t = 31 > m = 30 rows, read from the data (--no-noise): the error must not print 30 or 25.
    Run r = run(argsWithoutDimensions(input, dir.resolve("big-t"), "--no-noise",
        "--sketch-cols", "31"));
    assertEquals(2, r.code(), r.err());
    String err = r.err().strip();
    assertEquals(1, err.lines().count(), err);
    assertTrue(err.contains("--rows"), err);
    assertFalse(err.contains("30") || err.contains("25"), "the data's shape leaked: " + err);
  }

  /**
   * release.json carries the service's utility fields (UtilityReport#toJsonFields): noiseFloor,
   * aboveFloor and reliableRank, which counts exactly the singular values above the floor, and
   * stderr warns in words exactly when it is 0. The floor scales as 1/ε: below 10³ for every
   * mechanism at 30×25 and ε = 1, so below 10⁻³ at ε = 10⁶, where the test matrix's top
   * direction stands far above it; at ε = 10⁻³ it is about 10³ times higher than at ε = 1.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("mechanisms")
  void utilityFields_countTheValuesAboveTheFloor_andRankZeroIsAWarning(String mechanism)
      throws IOException {
    Path strong = dir.resolve("strong-" + mechanism);
    Run s = run(replace(replace(args(input, strong), "priv2", mechanism), "1", "1e6"));
    assertEquals(0, s.code(), s.err());
    Map<?, ?> su = utilityConsistentWithWarning(strong, s);
    assertTrue(((Number) su.get("reliableRank")).intValue() >= 1, su.toString());

    Path weak = dir.resolve("weak-" + mechanism);
    Run r = run(replace(replace(args(input, weak), "priv2", mechanism), "1", "1e-3"));
    assertEquals(0, r.code(), r.err());
    utilityConsistentWithWarning(weak, r);
    assertEquals(1e-3, ((Number) releaseJson(weak).get("epsilon")).doubleValue());
  }

  /** reliableRank = the count of values above noiseFloor; the warning iff it is 0. */
  private static Map<?, ?> utilityConsistentWithWarning(Path out, Run r) throws IOException {
    Map<?, ?> u = (Map<?, ?>) releaseJson(out).get("utility");
    double floor = ((Number) u.get("noiseFloor")).doubleValue();
    List<?> values = (List<?>) u.get("singularValues");
    long above = values.stream().filter(x -> ((Number) x).doubleValue() > floor).count();
    assertEquals(above, ((Number) u.get("reliableRank")).longValue(), u.toString());
    assertEquals(values.size(), ((List<?>) u.get("aboveFloor")).size());
    assertEquals(above == 0, r.err().contains("reliable rank 0") && r.err().contains("noise alone"),
        "warning iff reliable rank 0: " + r.err() + " " + u);
    return u;
  }

  @Test
  void noNoise_refusesToClaimPrivacy() throws IOException {
    Path out = dir.resolve("nn");
    assertEquals(0, run(args(input, out, "--no-noise")).code());
    Map<String, Object> doc = releaseJson(out);
    assertEquals(Boolean.FALSE, doc.get("private"));
    assertFalse(doc.containsKey("epsilon"));
    assertFalse(doc.containsKey("calibration"));
    assertTrue(((String) doc.get("warning")).contains("NOT differentially private"));
  }

  /**
   * Every update is clamped to |delta| <= C before sketching, as the service clamps: the test
   * matrix (entries 1..17) at C = 1 factorizes as the all-ones matrix does (compared without
   * noise), the count goes to the terminal only, and stderr says what happened.
   */
  @Test
  void updatesAboveTheClip_areClamped_countedOnTheTerminalOnly() throws IOException {
    StringBuilder ones = new StringBuilder();
    long above = 0;
    for (int i = 0; i < 30; i++) {
      for (int j = 0; j < 25; j++) {
        ones.append(i).append(',').append(j).append(",1\n");
        above += (i % 5 + 1) * (j % 3 + 1) + (i == j ? 2 : 0) > 1 ? 1 : 0;
      }
    }
    Path onesFile = Files.writeString(dir.resolve("ones.csv"), ones);
    Path clamped = dir.resolve("clamped");
    Run r = run(args(input, clamped, "--no-noise"));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("750 updates read, " + above + " clamped to |delta| <= 1.0"),
        r.out());
    assertTrue(r.err().contains(above + " of 750 updates exceeded --clip 1.0"), r.err());
    assertFalse(Files.readString(clamped.resolve("release.json")).contains(Long.toString(above)));
    Path reference = dir.resolve("ones");
    assertEquals(0, run(args(onesFile, reference, "--no-noise")).code());
    int[] shape = new int[1];
    // The all-ones matrix has rank one, which any sketch recovers exactly: the runs' different
    // sketching matrices leave rounding alone (relative 1e-12 covers a few hundred double
    // operations of unit size).
    assertArrayEquals(Npy.readDoubles(reference.resolve("S.npy"), shape),
        Npy.readDoubles(clamped.resolve("S.npy"), shape), 1e-12 * Math.sqrt(750));

    Path wide = dir.resolve("wide");
    Run w = run(args(input, wide, "--no-noise", "--clip", "17"));
    assertTrue(w.out().contains("750 updates read, 0 clamped"), w.out());
    assertFalse(w.err().contains("exceeded --clip"), w.err());
    assertTrue(Npy.readDoubles(wide.resolve("S.npy"), shape)[0]
        > 5 * Npy.readDoubles(clamped.resolve("S.npy"), shape)[0]);
  }

  static Stream<Arguments> badInvocations() {
    return Stream.of(
        Arguments.of("missing file", "nofile.csv", List.of(), "nofile.csv"),
        Arguments.of("malformed line", "0,1\n", List.of(), ":1:"),
        Arguments.of("index out of range", "0,0,1\n40,0,2\n", List.of("--rows", "30", "--cols", "25"), ":2:"),
        Arguments.of("negative index", "0,-1,1\n", List.of(), ":1:"),
        Arguments.of("NaN", "0,0,NaN\n", List.of(), ":1:"),
        Arguments.of("infinite", "0,0,1e999\n", List.of(), ":1:"),
        Arguments.of("k larger than the sketch allows", null, List.of("--rank", "99"), "rank"),
        Arguments.of("epsilon <= 0", null, List.of("--epsilon", "0"), "epsilon"),
        Arguments.of("delta >= 1", null, List.of("--delta", "1"), "delta"),
        Arguments.of("delta <= 0", null, List.of("--delta", "-1e-6"), "delta"),
        Arguments.of("unknown mechanism", null, List.of("--mechanism", "magic"), "mechanism"),
        Arguments.of("unknown option", null, List.of("--bogus", "1"), "--bogus"),
        Arguments.of("non-numeric epsilon", null, List.of("--epsilon", "one"), "--epsilon"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInvocations")
  void badInput_givesOneLineErrorNonZeroExitAndNoOutputDirectory(
      String what, String fileContent, List<String> overrides, String mentioned) throws IOException {
    Path in = input;
    if (fileContent != null && !fileContent.endsWith(".csv")) {
      in = dir.resolve("bad.csv");
      Files.writeString(in, fileContent);
    } else if (fileContent != null) {
      in = dir.resolve(fileContent);
    }
    Path out = dir.resolve("out");
    String[] a = args(in, out);
    List<String> list = new ArrayList<>(Arrays.asList(a));
    for (int x = 0; x < overrides.size(); x += 2) {
      int at = list.indexOf(overrides.get(x));
      if (at >= 0) {
        list.set(at + 1, overrides.get(x + 1));
      } else {
        list.add(overrides.get(x));
        list.add(overrides.get(x + 1));
      }
    }
    Run r = run(list.toArray(String[]::new));
    assertNotEquals(0, r.code(), what);
    String err = r.err().strip();
    assertEquals(1, err.lines().count(), "one line: " + err);
    assertTrue(err.contains(mentioned), what + ": '" + err + "' should mention " + mentioned);
    assertFalse(err.contains("Exception"), "no stack traces or exception names: " + err);
    assertFalse(Files.exists(out), what + ": no output directory");
    try (Stream<Path> s = Files.list(dir)) {
      assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith(".out")), "no temp dirs left");
    }
  }

  /**
   * The relation (docs/privacy/l1-units.md): without --mechanism, priv2-sparse under entrywise
   * ℓ1; --relation frobenius selects priv2 with the χ² factors; priv2 under entrywise ℓ1 spends
   * no δ on its matrices; priv2-sparse refuses frobenius, which it does not protect.
   */
  @Test
  void relation_choosesTheMechanismAndItsCalibration() throws IOException {
    List<String> base = new ArrayList<>(List.of("factorize", "--input", input.toString(), "--rank",
        "2", "--epsilon", "1", "--delta", "1e-6", "--key", key.toString(), "--rows", "30",
        "--cols", "25"));
    Path plain = dir.resolve("plain");
    List<String> a = new ArrayList<>(base);
    a.addAll(List.of("--out", plain.toString()));
    assertEquals(0, run(a.toArray(String[]::new)).code());
    assertEquals("priv2-sparse", releaseJson(plain).get("mechanism"));
    assertEquals("entrywise-l1", releaseJson(plain).get("relation"));

    Path frob = dir.resolve("frob");
    a = new ArrayList<>(base);
    a.addAll(List.of("--out", frob.toString(), "--relation", "frobenius"));
    assertEquals(0, run(a.toArray(String[]::new)).code());
    assertEquals("priv2", releaseJson(frob).get("mechanism"));
    assertEquals("frobenius", releaseJson(frob).get("relation"));
    assertTrue(calibration(frob).get("jlDeltaShare") instanceof Number n && n.doubleValue() > 0);

    Path l1 = dir.resolve("l1");
    assertEquals(0, run(args(input, l1, "--relation", "entrywise-l1")).code());
    assertEquals("priv2", releaseJson(l1).get("mechanism"));
    assertEquals(0.0, ((Number) calibration(l1).get("jlDeltaShare")).doubleValue());

    Run refused = run(replace(args(input, dir.resolve("no"), "--relation", "frobenius"), "priv2",
        "priv2-sparse"));
    assertEquals(2, refused.code(), refused.err());
    assertTrue(refused.err().contains("priv2-sparse cannot protect frobenius neighbours"),
        refused.err());
    assertFalse(Files.exists(dir.resolve("no")));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> calibration(Path out) throws IOException {
    return (Map<String, Object>) releaseJson(out).get("calibration");
  }
}
