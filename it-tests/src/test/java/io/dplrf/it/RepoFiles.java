package io.dplrf.it;

import io.dplrf.deploy.io.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Files of the repository checked by tests (docker-compose.yml, deploy/prometheus, deploy/grafana):
 * the repository root, found from the working directory whatever module the test runs in, and
 * YAML (SnakeYAML, safe constructor) and JSON (dplrf's own parser) readers with typed access.
 */
final class RepoFiles {
  private RepoFiles() {}

  /**
   * The repository root: the nearest directory at or above the working directory holding the
   * Maven wrapper, the parent pom and the it-tests module.
   */
  static Path root() {
    Path start = Path.of("").toAbsolutePath().normalize();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isRegularFile(dir.resolve("pom.xml"))
          && Files.isDirectory(dir.resolve("it-tests"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no repository root (mvnw, pom.xml, it-tests/) at or above " + start);
  }

  static Path file(String relative) {
    Path p = root().resolve(relative);
    if (!Files.isRegularFile(p)) {
      throw new AssertionError("missing file " + relative + " (looked at " + p + ")");
    }
    return p;
  }

  /** A YAML document as Maps, Lists, Strings, numbers and Booleans (anchors resolved). */
  static Object yaml(String relative) {
    try {
      String text = Files.readString(file(relative), StandardCharsets.UTF_8);
      return new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Object json(String relative) {
    try {
      return Json.parse(Files.readString(file(relative), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- typed access; a wrong shape is a test failure naming where -----------------------------

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object v, String where) {
    if (!(v instanceof Map)) {
      throw new AssertionError(where + ": expected a mapping, found " + describe(v));
    }
    return (Map<String, Object>) v;
  }

  static Map<String, Object> map(Map<String, Object> m, String key, String where) {
    return map(m.get(key), where + "." + key);
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object v, String where) {
    if (!(v instanceof List)) {
      throw new AssertionError(where + ": expected a list, found " + describe(v));
    }
    return (List<Object>) v;
  }

  static List<Object> list(Map<String, Object> m, String key, String where) {
    return list(m.get(key), where + "." + key);
  }

  static String string(Map<String, Object> m, String key, String where) {
    Object v = m.get(key);
    if (v == null) {
      throw new AssertionError(where + "." + key + ": missing");
    }
    return v.toString();
  }

  private static String describe(Object v) {
    return v == null ? "nothing" : v.getClass().getSimpleName() + " " + v;
  }
}
