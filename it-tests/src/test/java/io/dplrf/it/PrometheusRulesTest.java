package io.dplrf.it;

import static io.dplrf.it.RepoFiles.list;
import static io.dplrf.it.RepoFiles.map;
import static io.dplrf.it.RepoFiles.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The alert rules of docs/operations.md §9 ({@value #ALERTS}) as Prometheus itself reads them:
 * {@code promtool check rules}, and {@code promtool test rules} on {@value #TESTS}, which shows
 * every alert firing on the series that should fire it and quiet on a healthy instance beside
 * them. Skipped without promtool, except in CI.
 */
class PrometheusRulesTest {
  static final String ALERTS = "deploy/prometheus/alerts.yml";
  static final String TESTS = "deploy/prometheus/alerts.test.yml";

  private static String promtool(String... args) throws Exception {
    Path promtool = PrometheusTools.require("promtool");
    List<String> command = new java.util.ArrayList<>(List.of(promtool.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).directory(RepoFiles.root().toFile())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "promtool ends");
    assertEquals(0, p.exitValue(), String.join(" ", args) + ":\n" + out);
    return out;
  }

  @Test
  void promtool_checksTheRules() throws Exception {
    String out = promtool("check", "rules", ALERTS);
    assertTrue(out.contains("SUCCESS: " + ComposeFilesTest.alertRules().size() + " rules found"),
        out);
  }

  @Test
  void promtool_testsEveryAlert_firingAndQuiet() throws Exception {
    assertTrue(promtool("test", "rules", TESTS).contains("SUCCESS"));
  }

  /**
   * The test file covers every alert: each has a case where it fires, whose input has an instance
   * that stays quiet (one not among the expected alerts).
   */
  @Test
  void theRuleTests_coverEveryAlert_withAQuietInstance() {
    Set<String> alerts = new TreeSet<>();
    for (Map<String, Object> r : ComposeFilesTest.alertRules()) {
      alerts.add(string(r, "alert", ALERTS));
    }
    Set<String> covered = new TreeSet<>();
    Map<String, Object> file = map(RepoFiles.yaml(TESTS), TESTS);
    assertEquals(List.of("alerts.yml"), list(file, "rule_files", TESTS));
    for (Object t : list(file, "tests", TESTS)) {
      Map<String, Object> test = map(t, TESTS + ".tests[]");
      Set<String> instances = new HashSet<>();
      for (Object s : list(test, "input_series", TESTS)) {
        String series = string(map(s, TESTS + ".input_series[]"), "series", TESTS);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("instance=\"([^\"]+)\"")
            .matcher(series);
        assertTrue(m.find(), "every input series names its instance: " + series);
        instances.add(m.group(1));
      }
      for (Object c : list(test, "alert_rule_test", TESTS)) {
        Map<String, Object> tc = map(c, TESTS + ".alert_rule_test[]");
        List<Object> expected = list(tc, "exp_alerts", TESTS);
        Set<String> firing = new HashSet<>();
        for (Object e : expected) {
          firing.add(string(map(map(e, "exp_alerts[]"), "exp_labels", TESTS), "instance", TESTS));
        }
        if (!expected.isEmpty() && !firing.containsAll(instances)) {
          covered.add(string(tc, "alertname", TESTS));
        }
      }
    }
    assertEquals(alerts, covered, "alerts with a firing case beside a quiet instance");
  }
}
