package io.dplrf.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code dplrf serve} as a child JVM ({@code java -cp <this test's class path>
 * io.dplrf.deploy.Main serve --name value ...}), its output captured to a file. The ports (0 =
 * free) are read from the service's start-up banner.
 */
final class ChildService {
  private static final Pattern HTTP = Pattern.compile("pull releases:\\s+http://[^:/]+:(\\d+)/");
  private static final Pattern OPERATOR = Pattern.compile("operator:\\s+http://[^:/]+:(\\d+)/metrics");

  final Process process;
  final Path log;
  private int httpPort = -1;
  private int operatorPort = -1;

  private ChildService(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Starts the child; returns once its banner shows both ports (or fails with its output). */
  static ChildService start(Map<String, String> settings, Path log, Duration timeout) throws IOException {
    ChildService child = launch(settings, log);
    Process p = child.process;
    Poll.until("the child's banner (ports) in " + log, timeout, () -> {
      if (!p.isAlive()) {
        throw new AssertionError("child exited with " + p.exitValue() + ":\n" + child.output());
      }
      return child.readPorts();
    }, found -> found);
    return child;
  }

  /** Starts the child without waiting for anything. */
  static ChildService launch(Map<String, String> settings, Path log) throws IOException {
    return launch("io.dplrf.deploy.Main", List.of(), Map.of(), settings, log);
  }

  /**
   * Starts {@code mainClass serve --name value ...} (a main of this class path that runs {@code
   * dplrf serve}, e.g. {@link CrashPointMain}) with {@code jvmOptions} and with {@code env} added
   * to the environment.
   */
  static ChildService launch(String mainClass, List<String> jvmOptions, Map<String, String> env,
      Map<String, String> settings, Path log) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m"));
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass, "serve"));
    settings.forEach((name, value) -> {
      cmd.add("--" + name);
      cmd.add(value);
    });
    ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
    b.environment().putAll(env);
    return new ChildService(b.start(), log);
  }

  /** Waits until the child exits by itself and returns its exit status (fails on timeout). */
  int awaitExit(Duration timeout) throws IOException, InterruptedException {
    if (!process.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
      throw new AssertionError("child still running after " + timeout.toSeconds() + " s:\n"
          + output());
    }
    return process.exitValue();
  }

  private boolean readPorts() throws IOException {
    String out = output();
    Matcher h = HTTP.matcher(out);
    Matcher o = OPERATOR.matcher(out);
    if (h.find() && o.find()) {
      httpPort = Integer.parseInt(h.group(1));
      operatorPort = Integer.parseInt(o.group(1));
      return true;
    }
    return false;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  String output() throws IOException {
    return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
  }

  String api(String path) {
    return "http://127.0.0.1:" + httpPort + path;
  }

  String operator(String path) {
    return "http://127.0.0.1:" + operatorPort + path;
  }

  /** kill -9 (no shutdown hook, no final snapshot) and wait until the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }
}
