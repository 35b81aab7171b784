package io.dplrf.it;

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
 * Enforces the layering of DESIGN.md and STYLE.md 6 on the main sources (the Maven module graph
 * enforces the rest): Kafka types only in ingest and deploy, ojAlgo only in release, HTTP only in
 * deploy (and Jetty only in its HTTP transport), RocksDB only in ingest (completion mode's ratings store), the client library (what producers embed) on sketch-store alone, and no
 * java.util.Random / nextGaussian / Math.random anywhere in main code (private noise must come
 * from the keystream — in the client, the stream of a SecureRandom-seeded ephemeral key, which
 * this rule allows: SecureRandom is not java.util.Random's weak generator).
 */
class LayeringTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static final Map<String, List<String>> FORBIDDEN = Map.of(
      "sketch-store", List.of("org.apache.kafka", "org.rocksdb", "org.ojalgo", "com.sun.net.httpserver", "org.eclipse.jetty", "io.micrometer", "io.dplrf.release", "io.dplrf.ingest", "io.dplrf.deploy"),
      "release", List.of("org.apache.kafka", "org.rocksdb", "com.sun.net.httpserver", "org.eclipse.jetty", "io.micrometer", "io.dplrf.ingest", "io.dplrf.deploy"),
      "ingest", List.of("org.ojalgo", "com.sun.net.httpserver", "org.eclipse.jetty", "io.dplrf.release", "io.dplrf.deploy"),
      // RocksDB only behind ingest's RatingsStore (completion mode's ratings store); the HTTP
      // listeners are Jetty's (jettyOnlyUnderTheRouter below), not the JDK's server.
      "deploy", List.of("org.rocksdb", "com.sun.net.httpserver"),
      "client", List.of("org.apache.kafka", "org.rocksdb", "org.ojalgo", "com.sun.net.httpserver", "org.eclipse.jetty", "java.net.http",
          "io.micrometer", "io.dplrf.release", "io.dplrf.ingest", "io.dplrf.deploy"));

  /**
   * The files of deploy that may import Jetty: the transport under the router. Routes, handlers
   * and everything else in the service see only the router's own types, so the server library
   * can change without touching them.
   */
  private static final List<String> JETTY_TRANSPORT = List.of(
      "deploy/src/main/java/io/dplrf/deploy/http/Server.java",
      "deploy/src/main/java/io/dplrf/deploy/http/HeaderDeadline.java",
      "deploy/src/main/java/io/dplrf/deploy/http/JsonErrors.java");

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

  @Test
  void modulesImportOnlyWhatTheirLayerAllows() throws IOException {
    List<String> violations = new ArrayList<>();
    for (var e : FORBIDDEN.entrySet()) {
      List<Path> files = mainSources(e.getKey());
      assertTrue(!files.isEmpty() || e.getKey().equals("ingest"), "no sources found for " + e.getKey());
      for (Path f : files) {
        for (String line : Files.readAllLines(f)) {
          if (line.startsWith("import ")) {
            for (String prefix : e.getValue()) {
              if (line.contains(" " + prefix + ".") || line.contains("static " + prefix + ".")) {
                violations.add(ROOT.relativize(f) + ": " + line);
              }
            }
          }
        }
      }
    }
    assertTrue(violations.isEmpty(), "layering violations:\n" + String.join("\n", violations));
  }

  @Test
  void jettyOnlyUnderTheRouter() throws IOException {
    List<String> violations = new ArrayList<>();
    List<String> found = new ArrayList<>();
    for (Path f : mainSources("deploy")) {
      String file = ROOT.relativize(f).toString().replace('\\', '/');
      for (String line : Files.readAllLines(f)) {
        if (line.startsWith("import org.eclipse.jetty.")) {
          found.add(file);
          if (!JETTY_TRANSPORT.contains(file)) {
            violations.add(file + ": " + line);
          }
        }
      }
    }
    assertTrue(found.containsAll(JETTY_TRANSPORT), "the transport imports Jetty: " + found);
    assertTrue(violations.isEmpty(), "Jetty outside the HTTP transport:\n" + String.join("\n", violations));
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
