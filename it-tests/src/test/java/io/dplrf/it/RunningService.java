package io.dplrf.it;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.serve.Service;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code dplrf serve} in this JVM on the suite's broker ({@code bootstrap-servers} given, so no
 * embedded broker of its own), with its own topic and temporary state directory and free ports.
 * Closing it stops the service and deletes the state directory.
 */
final class RunningService implements AutoCloseable {
  final String topic;
  final Path stateDir;
  final Service service;

  private RunningService(String topic, Path stateDir, Service service) {
    this.topic = topic;
    this.stateDir = stateDir;
    this.service = service;
  }

  /**
   * Starts a service on {@code topic} (which the caller has created); {@code settings} are
   * dplrf serve flags (names without dashes) added to / overriding the defaults here.
   */
  static RunningService start(KafkaEnvironment kafka, String topic, Path stateDir,
      Map<String, String> settings) throws Exception {
    return start(kafka, topic, stateDir, settings, System.out);
  }

  /** As above, with the service's own log (its standard output) going to {@code log}. */
  static RunningService start(KafkaEnvironment kafka, String topic, Path stateDir,
      Map<String, String> settings, java.io.PrintStream log) throws Exception {
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("bootstrap-servers", kafka.bootstrapServers());
    flags.put("topic", topic);
    flags.put("state-dir", stateDir.toString());
    flags.put("http-port", "0");
    flags.put("operator-port", "0");
    flags.putAll(settings);
    ServiceConfig config = ServiceConfig.load(null, Map.of(), flags);
    return new RunningService(topic, stateDir, Service.start(config, log));
  }

  /** Settings from name, value pairs. */
  static Map<String, String> settings(String... nameValue) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int x = 0; x < nameValue.length; x += 2) {
      out.put(nameValue[x], nameValue[x + 1]);
    }
    return out;
  }

  String api(String path) {
    return "http://127.0.0.1:" + service.httpPort() + path;
  }

  String operator(String path) {
    return "http://127.0.0.1:" + service.operatorPort() + path;
  }

  /** GET /admin/ingest. */
  Map<String, Object> ingest() throws Exception {
    return Http.object(operator("/admin/ingest"));
  }

  /**
   * GET /admin/ingest without what moves by the second or with the process — the loop's state,
   * its broker contact, the open epoch's clock — leaving the exact counts and the checksum that
   * a restart must restore.
   */
  Map<String, Object> exactCounts() throws Exception {
    Map<String, Object> m = new java.util.LinkedHashMap<>(ingest());
    m.remove("state");
    m.remove("broker");
    m.remove("openEpoch");
    return m;
  }

  /** GET /metrics (Prometheus text). */
  String metrics() throws Exception {
    Http.Answer a = Http.get(operator("/metrics"));
    if (a.status() != 200) {
      throw new IOException("/metrics answered " + a);
    }
    return a.body();
  }

  @Override
  public void close() throws IOException {
    try {
      service.close();
    } finally {
      deleteTree(stateDir);
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /**
   * The value of the Prometheus sample {@code name{label="value"}} (or {@code name} without
   * labels when {@code label} is null), or NaN if the scrape has no such sample.
   */
  static double sample(String scrape, String name, String label, String value) {
    Pattern p = Pattern.compile("^" + Pattern.quote(name) + "(\\{[^}]*\\})?\\s+(\\S+)$", Pattern.MULTILINE);
    Matcher m = p.matcher(scrape);
    while (m.find()) {
      String labels = m.group(1) == null ? "" : m.group(1);
      if (label == null || labels.contains(label + "=\"" + value + "\"")) {
        return Double.parseDouble(m.group(2));
      }
    }
    return Double.NaN;
  }
}
