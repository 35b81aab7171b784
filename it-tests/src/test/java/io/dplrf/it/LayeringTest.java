package io.dplrf.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Enforces the layering of docs/design.md §1 on the main sources (the Maven module
 * graph enforces the rest), on imports and on fully qualified names in code alike:
 *
 * <ul>
 *   <li>modules: Kafka types only in ingest and deploy, ojAlgo only in release, HTTP only in
 *       deploy, RocksDB only in ingest (completion mode's ratings store), the client library (what
 *       producers embed) on sketch-store alone;
 *   <li>packages, as their package-info files state: each service mode in a package of its own
 *       that imports no other mode, {@code Modes} the only other class that names a mode package or
 *       asks which mode runs; {@code http} serves what it is handed and reads no sketch or
 *       configuration; {@code config}, {@code metrics}, {@code io} and {@code kafka} import nothing
 *       of the service above them; Kafka's server classes only in {@code deploy.kafka};
 *   <li>no java.util.Random / nextGaussian / Math.random anywhere in main code (private noise must
 *       come from the keystream — in the client, the stream of a SecureRandom-seeded ephemeral key,
 *       which this rule allows: SecureRandom is not java.util.Random's weak generator).
 * </ul>
 */
class LayeringTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static final Map<String, List<String>> FORBIDDEN = Map.of(
      "sketch-store", List.of("org.apache.kafka", "org.rocksdb", "org.ojalgo", "com.sun.net.httpserver", "io.micrometer", "io.dplrf.release", "io.dplrf.ingest", "io.dplrf.deploy"),
      "release", List.of("org.apache.kafka", "org.rocksdb", "com.sun.net.httpserver", "io.micrometer", "io.dplrf.ingest", "io.dplrf.deploy"),
      "ingest", List.of("org.ojalgo", "com.sun.net.httpserver", "io.dplrf.release", "io.dplrf.deploy"),
      // RocksDB only behind ingest's RatingsStore (completion mode's ratings store).
      "deploy", List.of("org.rocksdb"),
      "client", List.of("org.apache.kafka", "org.rocksdb", "org.ojalgo", "com.sun.net.httpserver", "java.net.http",
          "io.micrometer", "io.dplrf.release", "io.dplrf.ingest", "io.dplrf.deploy"));

  private static final Pattern WEAK_RANDOM =
      Pattern.compile("new\\s+Random\\s*\\(|java\\.util\\.Random;|nextGaussian\\s*\\(|Math\\.random\\s*\\(");

  private static List<Path> mainSources(String module) throws IOException {
    Path dir = ROOT.resolve(module).resolve("src/main/java");
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.toString().endsWith(".java")).toList();
    }
  }

  private static final String DEPLOY = "deploy/src/main/java/io/dplrf/deploy/";
  private static final List<String> MODE_PACKAGES = List.of(
      "io.dplrf.deploy.serve.tree", "io.dplrf.deploy.serve.local", "io.dplrf.deploy.serve.completion");

  /**
   * A package rule: main sources under {@code dir} (relative to the root; a file path for a rule
   * on one file) must not name any of {@code forbidden}, except the files in {@code exempt}.
   */
  private record PackageRule(String dir, List<String> forbidden, List<String> exempt) {}

  private static final List<PackageRule> PACKAGE_RULES = List.of(
      new PackageRule(DEPLOY + "serve/tree/", without(MODE_PACKAGES, "io.dplrf.deploy.serve.tree"), List.of()),
      new PackageRule(DEPLOY + "serve/local/", without(MODE_PACKAGES, "io.dplrf.deploy.serve.local"), List.of()),
      new PackageRule(DEPLOY + "serve/completion/",
          without(MODE_PACKAGES, "io.dplrf.deploy.serve.completion"), List.of()),
      // The seam: only Modes names a mode package.
      new PackageRule(DEPLOY + "serve/", MODE_PACKAGES,
          List.of(DEPLOY + "serve/Modes.java", DEPLOY + "serve/tree/", DEPLOY + "serve/local/",
              DEPLOY + "serve/completion/")),
      new PackageRule(DEPLOY + "http/", List.of("io.dplrf.deploy.serve", "io.dplrf.deploy.config",
          "io.dplrf.deploy.cli", "io.dplrf.deploy.oneshot", "io.dplrf.deploy.kafka", "io.dplrf.ingest",
          "io.dplrf.sketch.tree", "io.dplrf.sketch.noise", "io.dplrf.sketch.randomness", "org.apache.kafka"),
          List.of()),
      new PackageRule(DEPLOY + "config/", List.of("io.dplrf.deploy.serve", "io.dplrf.deploy.http",
          "io.dplrf.deploy.cli", "io.dplrf.deploy.metrics", "io.dplrf.deploy.kafka", "io.dplrf.ingest",
          "org.apache.kafka", "com.sun.net.httpserver", "org.eclipse.jetty"), List.of()),
      new PackageRule(DEPLOY + "metrics/", List.of("io.dplrf.deploy.serve", "io.dplrf.deploy.http",
          "io.dplrf.deploy.config", "io.dplrf.deploy.cli"), List.of()),
      new PackageRule(DEPLOY + "io/", List.of("io.dplrf.deploy.serve", "io.dplrf.deploy.http",
          "io.dplrf.deploy.config", "io.dplrf.deploy.cli", "io.dplrf.deploy.oneshot", "io.dplrf.ingest",
          "io.dplrf.release", "io.dplrf.sketch.noise", "io.dplrf.sketch.randomness", "org.apache.kafka"),
          List.of()),
      new PackageRule(DEPLOY + "kafka/", List.of("io.dplrf"), List.of()),
      // Which mode runs is asked in Modes, nowhere else.
      new PackageRule("deploy/src/main/java/", List.of("ServiceConfig.Mode", "mode()"),
          List.of(DEPLOY + "config/", DEPLOY + "serve/Modes.java")),
      new PackageRule("deploy/src/main/java/", List.of("kafka.server", "org.apache.kafka.metadata",
          "org.apache.kafka.server", "org.apache.kafka.raft"), List.of(DEPLOY + "kafka/")),
      new PackageRule("ingest/src/main/java/", List.of("kafka.server", "org.apache.kafka.metadata",
          "org.apache.kafka.server", "org.apache.kafka.raft"), List.of()));

  private static List<String> without(List<String> all, String one) {
    return all.stream().filter(x -> !x.equals(one)).toList();
  }

  @Test
  void modulesNameOnlyWhatTheirLayerAllows() throws IOException {
    List<String> violations = new ArrayList<>();
    for (var e : FORBIDDEN.entrySet()) {
      List<Path> files = mainSources(e.getKey());
      assertTrue(!files.isEmpty() || e.getKey().equals("ingest"), "no sources found for " + e.getKey());
      for (Path f : files) {
        violations.addAll(references(f, e.getValue()));
      }
    }
    assertTrue(violations.isEmpty(), "layering violations:\n" + String.join("\n", violations));
  }

  @Test
  void packagesNameOnlyWhatTheirPackageInfoAllows() throws IOException {
    List<String> violations = new ArrayList<>();
    for (PackageRule rule : PACKAGE_RULES) {
      Path dir = ROOT.resolve(rule.dir());
      assertTrue(Files.isDirectory(dir), "no such package: " + rule.dir());
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path f : s.filter(p -> p.toString().endsWith(".java")).toList()) {
          String rel = ROOT.relativize(f).toString();
          if (rule.exempt().stream().noneMatch(rel::startsWith)) {
            violations.addAll(references(f, rule.forbidden()));
          }
        }
      }
    }
    assertTrue(violations.isEmpty(), "package rule violations:\n" + String.join("\n", violations));
  }

  @Test
  void aReferenceInCode_isFound_whetherImportedOrFullyQualified_butNotInComments() {
    List<String> forbidden = List.of("org.apache.kafka", "ServiceConfig.Mode");
    assertEquals(1, referencesIn(List.of("import org.apache.kafka.clients.Foo;"), forbidden).size());
    assertEquals(1, referencesIn(List.of("    var c = new org.apache.kafka.clients.Foo();"), forbidden).size());
    assertEquals(1, referencesIn(List.of("  if (m == ServiceConfig.Mode.ROWS) {"), forbidden).size());
    assertEquals(1, referencesIn(List.of("    switch (this.config.mode()) {"), List.of("mode()")).size());
    assertEquals(0, referencesIn(List.of("/**", " * {@link org.apache.kafka.clients.Foo}", " */",
        "  // org.apache.kafka.clients is named here only in a comment",
        "  int x; /* ServiceConfig.Mode */ int y; // ServiceConfig.Mode in a trailing comment",
        "  String s = \"org.apache.kafka.clients // not code\";"), forbidden).size());
    assertEquals(0, referencesIn(List.of("  x.localMode();"), List.of("mode()")).size());
    assertEquals(0, referencesIn(List.of("import io.dplrf.deploy.serve.treeish.X;"),
        List.of("io.dplrf.deploy.serve.tree")).size(), "a package prefix must end at a dot");
  }

  /** The lines of {@code f}'s code (comments stripped) that name one of {@code forbidden}. */
  private static List<String> references(Path f, List<String> forbidden) throws IOException {
    return referencesIn(Files.readAllLines(f), forbidden).stream()
        .map(v -> ROOT.relativize(f) + ":" + v).toList();
  }

  static List<String> referencesIn(List<String> lines, List<String> forbidden) {
    List<String> out = new ArrayList<>();
    boolean inBlockComment = false;
    for (int i = 0; i < lines.size(); i++) {
      String code = lines.get(i).replaceAll("\"([^\"\\\\]|\\\\.)*\"", "\"\"");
      if (inBlockComment) {
        int end = code.indexOf("*/");
        if (end < 0) {
          continue;
        }
        code = code.substring(end + 2);
        inBlockComment = false;
      }
      code = code.replaceAll("/\\*.*?\\*/", "");
      int open = code.indexOf("/*");
      if (open >= 0) {
        code = code.substring(0, open);
        inBlockComment = true;
      }
      code = code.replaceAll("//.*", "");
      if (code.startsWith("package ")) {
        continue;
      }
      for (String name : forbidden) {
        // A name must stand alone: io.dplrf.deploy.serve.tree must not match ...serve.treeish,
        // nor mode() match localMode().
        Pattern p = Pattern.compile("(?<!\\w)" + Pattern.quote(name) + "(?!\\w)");
        if (p.matcher(code).find()) {
          out.add((i + 1) + ": " + lines.get(i).trim());
        }
      }
    }
    return out;
  }

  @Test
  void mainCodeNeverUsesWeakRandomness() throws IOException {
    List<String> violations = new ArrayList<>();
    for (String module : List.of("sketch-store", "client", "release", "ingest", "deploy")) {
      for (Path f : mainSources(module)) {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          String code = lines.get(i).replaceAll("//.*", "");
          if (!code.trim().startsWith("*") && WEAK_RANDOM.matcher(code).find()) {
            violations.add(ROOT.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).trim());
          }
        }
      }
    }
    assertTrue(violations.isEmpty(), "weak randomness in main code:\n" + String.join("\n", violations));
  }
}
