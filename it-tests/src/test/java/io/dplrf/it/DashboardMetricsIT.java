package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static io.dplrf.it.Http.objectOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.it.Stream.Rec;
import io.dplrf.it.Stream.Update;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every metric name the Grafana dashboard ({@value Dashboard#PATH}) and the Prometheus alert
 * rules ({@value ComposeFilesTest#ALERTS_YML}) query is exported on the
 * operator port's {@code /metrics} of a running service, once the events the meters measure have
 * happened: updates applied and one clipped, a malformed record dead-lettered, epochs closed (so
 * releases and snapshots were timed), public and operator HTTP requests (one a 404) and a GC
 * pause. A dashboard panel on a name the service never exports would stay empty forever.
 */
@ExtendWith(KafkaSuite.class)
class DashboardMetricsIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  /** Series Prometheus itself adds to every scrape; never in the service's exposition. */
  private static final Set<String> SCRAPE_SERIES = Set.of("up", "scrape_duration_seconds",
      "scrape_samples_scraped", "scrape_samples_post_metric_relabeling", "scrape_series_added");

  /** The sample names of a Prometheus text exposition. */
  static Set<String> exportedNames(String exposition) {
    Set<String> names = new TreeSet<>();
    for (String line : exposition.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int end = 0;
      while (end < line.length() && line.charAt(end) != '{' && !Character.isWhitespace(line.charAt(end))) {
        end++;
      }
      names.add(line.substring(0, end));
    }
    return names;
  }

  @Test
  void everyMetricNameTheDashboardQueries_isExported_onceIngestReleasesAndRequestsHappened(
      KafkaEnvironment kafka) throws Exception {
    Set<String> wanted = new TreeSet<>(Dashboard.load().metricNames());
    // The Prometheus alert rules (deploy/prometheus/alerts.yml) must name real series too.
    for (java.util.Map<String, Object> rule : ComposeFilesTest.alertRules()) {
      wanted.addAll(PromQl.metricNames((String) rule.get("expr")));
    }
    // Not vacuous: the dashboard's ~13 topics need well over 20 distinct series names.
    assertTrue(wanted.size() >= 25, "metric names found in the dashboard's queries: " + wanted);

    String topic = "it-dashboard-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    try (RunningService svc = RunningService.start(kafka, topic, Files.createTempDirectory("dplrf-it-dashboard"),
        RunningService.settings("rows", "20", "cols", "10", "rank", "2", "epsilon", "1", "delta", "1e-6",
            "epochs", "4", "epoch-updates", "50", "clip", "1"))) {
      // 100 updates (two epochs: two releases and two snapshots), one of them clipped (|Δ| > C),
      // then a record of a bad length (dead-lettered).
      SplittableRandom rnd = new SplittableRandom(7);
      List<Update> updates = new ArrayList<>();
      for (int u = 0; u < 100; u++) {
        updates.add(new Update(rnd.nextInt(20), rnd.nextInt(10), u == 17 ? 3.0 : rnd.nextDouble(-1, 1)));
      }
      List<Rec> recs = new ArrayList<>(Stream.unkeyed(Stream.records(updates, 10)));
      recs.add(new Rec(null, new byte[15]));
      Stream.sendAll(kafka.bootstrapServers(), topic, recs);
      Poll.until("two epochs closed and the bad record dead-lettered", DEADLINE, svc::ingest,
          s -> longOf(s, "epochsClosed") >= 2 && longOf(s, "recordsConsumed") == recs.size()
              && longOf(objectOf(s, "recordsDeadLettered"), "bad_length") == 1);

      // Releases are computed on their own thread, after the epoch's snapshot: they may lag.
      Poll.until("the release of epoch 2", DEADLINE,
          () -> Http.object(svc.api("/v1/release/latest")), r -> longOf(r, "epoch") >= 2);
      assertEquals(200, Http.get(svc.api("/v1/status")).status());
      assertEquals(200, Http.get(svc.api("/v1/release/latest")).status());
      assertEquals(200, Http.get(svc.api("/v1/rows/3")).status());
      assertEquals(404, Http.get(svc.api("/no/such/route")).status());
      // jvm_gc_pause_seconds exists from the first GC pause after the meters were bound; the
      // test's small heap use may not cause one by itself.
      System.gc();

      // Counters and gauges are published from the exact counts once a second.
      Set<String> exported = Set.of();
      Set<String> missing = wanted;
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (!missing.isEmpty() && System.nanoTime() < deadline) {
        exported = exportedNames(svc.metrics());
        missing = new TreeSet<>(wanted);
        missing.removeAll(exported);
        missing.removeAll(SCRAPE_SERIES);
        if (!missing.isEmpty()) {
          Thread.sleep(200);
        }
      }
      Set<String> ours = new TreeSet<>();
      exported.stream().filter(n -> n.startsWith("dplrf_") || n.startsWith("jvm_memory")).forEach(ours::add);
      assertEquals(Set.of(), missing, "metric names queried by " + Dashboard.PATH + " or "
          + ComposeFilesTest.ALERTS_YML + " but absent from /metrics: " + missing + "\nexported dplrf_ and jvm_memory names: " + ours);
    }
  }
}
