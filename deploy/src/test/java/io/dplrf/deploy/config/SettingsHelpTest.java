package io.dplrf.deploy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SettingsHelpTest {
  /** The table's lines by setting name (the first word of each line after the heading). */
  private static Map<String, String> lines() {
    List<String> all = SettingsHelp.text().lines().skip(1).toList();
    return all.stream().collect(Collectors.toMap(l -> l.strip().split(" +")[0],
        Function.identity()));
  }

  private static List<String> words(String line) {
    return Arrays.asList(line.strip().split(" +"));
  }

  @Test
  void everySetting_hasOneLine_withADefaultAndAMeaning() {
    Map<String, String> lines = lines();
    assertEquals(ServiceConfig.NAMES.size(), lines.size(), SettingsHelp.text());
    for (String name : ServiceConfig.NAMES) {
      assertTrue(lines.containsKey(name), name);
      assertFalse(SettingsHelp.meaning(name).isEmpty(), "no meaning for " + name);
      // "?" would mean that no mode could be parsed from its required settings.
      assertFalse(words(lines.get(name)).get(1).equals("?"), lines.get(name));
    }
  }

  @Test
  void defaults_areWhatTheParserResolves() {
    Map<String, String> lines = lines();
    ServiceConfig c = ServiceConfig.load(null, Map.of(), Map.of("rows", "10", "cols", "10",
        "rank", "1", "epsilon", "1", "delta", "1e-6", "epochs", "1", "epoch-updates", "1"));
    assertEquals("" + c.httpPort(), words(lines.get("http-port")).get(1));
    assertEquals("" + c.operatorPort(), words(lines.get("operator-port")).get(1));
    assertEquals("" + c.embeddedKafkaPort(), words(lines.get("embedded-kafka-port")).get(1));
    assertEquals(c.topic(), words(lines.get("topic")).get(1));
    assertEquals("" + c.clip(), words(lines.get("clip")).get(1));
    assertEquals("priv2-sparse", words(lines.get("mechanism")).get(1));
    assertEquals("required", words(lines.get("rank")).get(1));
    assertEquals("-", words(lines.get("sketch-cols")).get(1));
    assertEquals("-", words(lines.get("admin-token")).get(1));
    // Mode-only settings: their mode's default, and the modes that read them.
    assertEquals("10", words(lines.get("completion-runs")).get(1));
    assertTrue(lines.get("completion-runs").endsWith("[completion]"), lines.get("completion-runs"));
    assertEquals("local", words(lines.get("local-mechanism")).get(1));
    assertTrue(lines.get("local-mechanism").endsWith("[local]"), lines.get("local-mechanism"));
    assertTrue(lines.get("rank").endsWith("[updates, rows, local]"), lines.get("rank"));
    assertFalse(lines.get("http-port").contains("["), "read by every mode");
    // The epoch cut's settings are pinned at the first start (EpochCut): the table says so.
    for (String cut : List.of("epoch-updates", "epoch-seconds", "epoch-idle-seconds")) {
      assertTrue(lines.get(cut).contains("pinned at the first start"), lines.get(cut));
    }
    assertEquals("300.0", words(lines.get("epoch-idle-seconds")).get(1));
  }
}
