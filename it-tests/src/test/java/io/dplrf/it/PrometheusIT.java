package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static io.dplrf.it.Http.objectOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.it.Stream.Update;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A real Prometheus server (Debian's package) scrapes a running service's operator port, with the
 * alert rules of {@code deploy/prometheus/alerts.yml} loaded: through Prometheus's query API the
 * counters it scraped equal {@code /admin/ingest}'s exact counts, and the server loaded every
 * rule. Skipped without the {@code prometheus} binary, except in CI.
 */
@ExtendWith(KafkaSuite.class)
class PrometheusIT {
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The value of {@code query}'s one sample, or NaN while Prometheus has none. */
  @SuppressWarnings("unchecked")
  private static double query(String api, String query) throws Exception {
    Map<String, Object> r = Http.object(api + "/api/v1/query?query="
        + URLEncoder.encode(query, StandardCharsets.UTF_8));
    List<Object> result = (List<Object>) objectOf(r, "data").get("result");
    if (result.size() != 1) {
      return Double.NaN;
    }
    List<Object> value = (List<Object>) ((Map<String, Object>) result.get(0)).get("value");
    return Double.parseDouble((String) value.get(1));
  }

  @Test
  void scrapedCounters_equalAdminIngest(KafkaEnvironment kafka) throws Exception {
    Path prometheus = PrometheusTools.require("prometheus");
    String topic = "it-prometheus-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    Path dir = Files.createTempDirectory("dplrf-it-prometheus");
    try (RunningService s = RunningService.start(kafka, topic,
        Files.createTempDirectory("dplrf-it-prometheus-state"),
        RunningService.settings("rows", "10", "cols", "8", "rank", "2", "epsilon", "1",
            "delta", "1e-6", "epochs", "4", "epoch-updates", "40"))) {
      List<Update> updates = new ArrayList<>();
      for (int x = 0; x < 100; x++) {
        updates.add(new Update(x % 10, x % 8, x % 4 == 0 ? 3 : 0.5)); // 25 clipped at clip 1
      }
      List<byte[]> values = new ArrayList<>(Stream.records(updates, 10));
      values.add(new byte[20]); // a dead letter: bad_length
      Stream.sendAll(kafka.bootstrapServers(), topic, Stream.unkeyed(values));
      Map<String, Object> ingest = Poll.until("11 records read, 2 epochs closed", DEADLINE,
          s::ingest, i -> longOf(i, "recordsConsumed") == 11 && longOf(i, "epochsClosed") == 2);

      int port = freePort();
      String alerts = RepoFiles.file(PrometheusRulesTest.ALERTS).toAbsolutePath().toString();
      Path config = Files.writeString(dir.resolve("prometheus.yml"), """
          global: {scrape_interval: 1s, evaluation_interval: 1s}
          rule_files: ["%s"]
          scrape_configs:
            - job_name: dplrf
              static_configs: [{targets: ["127.0.0.1:%d"]}]
          """.formatted(alerts, s.service.operatorPort()));
      Path log = dir.resolve("prometheus.log");
      Process p = new ProcessBuilder(prometheus.toString(), "--config.file=" + config,
          "--storage.tsdb.path=" + dir.resolve("tsdb"),
          "--web.listen-address=127.0.0.1:" + port).redirectErrorStream(true)
          .redirectOutput(log.toFile()).start();
      String api = "http://127.0.0.1:" + port;
      try {
        Map<String, String> queries = new LinkedHashMap<>();
        queries.put("recordsConsumed", "dplrf_records_consumed_total{job=\"dplrf\"}");
        queries.put("updatesConsumed", "dplrf_updates_consumed_total{job=\"dplrf\"}");
        queries.put("updatesApplied", "dplrf_updates_applied_total{job=\"dplrf\"}");
        queries.put("updatesClipped", "dplrf_updates_clipped_total{job=\"dplrf\"}");
        queries.put("epochsClosed", "dplrf_epoch_current{job=\"dplrf\"}");
        Map<String, Double> expected = new LinkedHashMap<>();
        for (String k : queries.keySet()) {
          expected.put(k, (double) longOf(ingest, k));
        }
        expected.put("bad_length", (double) longOf(objectOf(ingest, "recordsDeadLettered"),
            "bad_length"));
        queries.put("bad_length",
            "dplrf_records_dead_lettered_total{job=\"dplrf\",reason=\"bad_length\"}");
        assertEquals(List.of(11.0, 100.0, 100.0, 25.0, 2.0, 1.0),
            List.copyOf(expected.values()), "/admin/ingest: " + ingest);
        Map<String, Double> scraped = Poll.until("Prometheus scraped /admin/ingest's counts",
            DEADLINE, () -> {
              Map<String, Double> m = new LinkedHashMap<>();
              for (Map.Entry<String, String> q : queries.entrySet()) {
                m.put(q.getKey(), query(api, q.getValue()));
              }
              return m;
            }, expected::equals);
        assertEquals(expected, scraped, Files.readString(log));
        assertEquals(1.0, query(api, "up{job=\"dplrf\"}"));
        @SuppressWarnings("unchecked")
        List<Object> groups = (List<Object>) objectOf(Http.object(api + "/api/v1/rules"), "data")
            .get("groups");
        int rules = 0;
        for (Object g : groups) {
          rules += ((List<?>) ((Map<?, ?>) g).get("rules")).size();
        }
        assertEquals(ComposeFilesTest.alertRules().size(), rules, "every rule loaded");
      } finally {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
        System.out.println("prometheus log:\n" + Files.readString(log));
      }
    } finally {
      RunningService.deleteTree(dir);
    }
  }
}
