package io.dplrf.deploy.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.config.ServiceConfig.Mode;
import io.dplrf.deploy.serve.Modes;
import io.dplrf.ingest.DeadLetterReason;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class MetricsTest {
  /** The meters of one mode only, by their Prometheus prefix. */
  private static final Map<Mode, List<String>> OWN = Map.of(
      Mode.UPDATES, List.of("dplrf_updates_consumed_total", "dplrf_updates_applied_total",
          "dplrf_updates_clipped_total", "dplrf_updates_dropped_total"),
      Mode.ROWS, List.of("dplrf_rows_applied_total", "dplrf_rows_clipped_total"),
      Mode.LOCAL, List.of("dplrf_reports_applied_total"),
      Mode.COMPLETION, List.of("dplrf_ratings_applied_total", "dplrf_ratings_dropped_total",
          "dplrf_ratings_stored", "dplrf_ratings_users", "dplrf_completion_runs_total",
          "dplrf_completion_runs_left", "dplrf_completion_run_duration_seconds",
          "dplrf_completion_iteration", "dplrf_completion_iterations",
          "dplrf_completion_last_run_timestamp_seconds"));
  /** Registered in the modes that release per epoch. */
  private static final List<String> EPOCH_RELEASES = List.of("dplrf_releases_pending",
      "dplrf_release_duration_seconds", "dplrf_epoch_current", "dplrf_epochs_left");

  private static Set<String> names(String scrape) {
    Set<String> names = new TreeSet<>();
    for (String line : scrape.split("\n")) {
      if (!line.isBlank() && !line.startsWith("#")) {
        names.add(line.split("[{ ]", 2)[0]);
      }
    }
    return names;
  }

  private static boolean exported(Set<String> names, String meter) {
    return names.stream().anyMatch(n -> n.equals(meter) || n.startsWith(meter + "_"));
  }

  private static Metrics forMode(Mode mode) {
    return new Metrics(Modes.meters(mode));
  }

  @Test
  void meters_comeOutWithPrometheusNames() {
    try (Metrics m = forMode(Mode.UPDATES)) {
      m.recordsConsumed(2);
      m.updatesConsumed(7);
      m.updatesApplied(6);
      m.updatesClipped(1);
      m.updatesDropped(1);
      m.epochCurrent(3);
      m.epochsLeft(5);
      m.releaseExhausted(true);
      m.releaseDuration(Duration.ofMillis(20));
      m.releaseQueued();
      m.releaseQueued();
      m.releaseEnded();
      String s = m.scrape();
      for (String line : new String[] {"dplrf_records_consumed_total 2.0",
          "dplrf_updates_consumed_total 7.0", "dplrf_updates_applied_total 6.0",
          "dplrf_updates_clipped_total 1.0", "dplrf_updates_dropped_total 1.0",
          "dplrf_epoch_current 3.0", "dplrf_epochs_left 5.0", "dplrf_release_exhausted 1.0",
          "dplrf_releases_pending 1.0",
          "dplrf_release_duration_seconds_count 1", "dplrf_snapshot_duration_seconds_count 0",
          "jvm_threads_live_threads", "jvm_classes_loaded_classes", "system_cpu_count",
          "jvm_gc_"}) {
        assertTrue(s.contains(line), line + " in\n" + s);
      }
    }
  }

  @Test
  void eachMode_exportsItsOwnMeters_andNoOtherModesMeters() {
    for (Mode mode : Mode.values()) {
      try (Metrics m = forMode(mode)) {
        Set<String> names = names(m.scrape());
        for (var own : OWN.entrySet()) {
          for (String meter : own.getValue()) {
            assertEquals(own.getKey() == mode, exported(names, meter),
                meter + " in mode " + mode + ": " + names);
          }
        }
        for (String meter : EPOCH_RELEASES) {
          assertEquals(mode != Mode.COMPLETION, exported(names, meter), meter + " in " + mode);
        }
        for (String common : List.of("dplrf_records_consumed_total",
            "dplrf_ingest_running", "dplrf_snapshot_duration_seconds",
            "dplrf_records_dead_lettered_total")) {
          assertTrue(exported(names, common), common + " in mode " + mode);
        }
      }
    }
  }

  @Test
  void anotherModesMeter_isAWiringMistake() {
    try (Metrics m = forMode(Mode.UPDATES)) {
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> m.ratings(1, 0));
      assertEquals("meter dplrf.ratings.applied belongs to another mode; this registry has the"
          + " common meters and the groups [EPOCH_RELEASES, UPDATES]", e.getMessage());
      assertThrows(IllegalStateException.class, () -> m.rowsApplied(1));
      assertThrows(IllegalStateException.class, () -> m.reportsApplied(1));
      assertThrows(IllegalStateException.class, () -> m.completionProgress(1, 2));
    }
    try (Metrics m = forMode(Mode.COMPLETION)) {
      assertThrows(IllegalStateException.class, () -> m.updatesApplied(1));
      assertThrows(IllegalStateException.class, m::releaseQueued);
      assertThrows(IllegalStateException.class, () -> m.epochsLeft(0));
    }
  }

  @Test
  void epochGauges_describeWhatTheServicePublishes_theLatestReleasedEpoch() {
    try (Metrics m = forMode(Mode.UPDATES)) {
      String s = m.scrape();
      assertTrue(s.contains("# HELP dplrf_epoch_current the latest released epoch, 0..T (0 before"
          + " the first release)"), s);
      assertTrue(s.contains("# HELP dplrf_epochs_left releases left before the privacy budget is"
          + " spent: T minus the latest released epoch"), s);
    }
  }

  /** The state's health: refused writes (a gauge and a counter of attempts) and damaged files. */
  @Test
  void stateMeters_blockedWrites_failedAttemptsByDifference_damagedAndVerifiedFiles() {
    try (Metrics m = new Metrics()) {
      String s = m.scrape();
      for (String line : new String[] {"dplrf_state_writes_blocked 0.0",
          "dplrf_state_write_failures_total 0.0", "dplrf_state_damaged_files 0.0",
          "dplrf_state_files_verified 0.0"}) {
        assertTrue(s.contains(line), line + " in\n" + s);
      }
      m.stateWrites(true, 3);
      m.stateWrites(true, 5);
      m.stateFiles(1, 40);
      s = m.scrape();
      for (String line : new String[] {"dplrf_state_writes_blocked 1.0",
          "dplrf_state_write_failures_total 5.0", "dplrf_state_damaged_files 1.0",
          "dplrf_state_files_verified 40.0"}) {
        assertTrue(s.contains(line), line + " in\n" + s);
      }
      m.stateWrites(false, 5);
      assertTrue(m.scrape().contains("dplrf_state_writes_blocked 0.0"));
      assertTrue(m.scrape().contains("dplrf_state_write_failures_total 5.0"));
    }
  }

  @Test
  void brokerContact_isAnUpDownGaugeAndATimestampInSeconds_andLagTurnsNaNWhileUnreachable() {
    try (Metrics m = new Metrics()) {
      assertTrue(m.scrape().contains("dplrf_broker_reachable 1.0"), m.scrape());
      assertTrue(m.scrape().contains("dplrf_broker_last_contact_timestamp_seconds 0.0"));
      m.consumerLag(0, 42);
      m.brokerContact(false, 1_700_000_000_250L);
      m.consumerLagUnknown();
      String s = m.scrape();
      assertTrue(s.contains("dplrf_broker_reachable 0.0"), s);
      assertTrue(s.contains("dplrf_broker_last_contact_timestamp_seconds 1.70000000025E9"), s);
      assertTrue(s.contains("dplrf_consumer_lag{partition=\"0\"} NaN"), s);
      m.brokerContact(true, 1_700_000_001_000L);
      m.consumerLag(0, 7);
      assertTrue(m.scrape().contains("dplrf_broker_reachable 1.0"));
      assertTrue(m.scrape().contains("dplrf_consumer_lag{partition=\"0\"} 7.0"));
    }
  }

  @Test
  void ingestRunning_isAGaugeOfOneWhileRunningAndZeroAfter() {
    try (Metrics m = new Metrics()) {
      assertTrue(m.scrape().contains("dplrf_ingest_running 0.0"), m.scrape());
      m.ingestRunning(true);
      assertTrue(m.scrape().contains("dplrf_ingest_running 1.0"));
      m.ingestRunning(false);
      assertTrue(m.scrape().contains("dplrf_ingest_running 0.0"));
    }
  }

  /** The reasons of a mode's record format, as its scrape lists them. */
  private static List<String> scrapedReasons(Map<String, String> settings) {
    Map<String, String> all = new java.util.HashMap<>(Map.of("rows", "10", "cols", "8",
        "rank", "2", "epsilon", "1", "delta", "1e-6", "epochs", "4", "epoch-updates", "10"));
    all.putAll(settings);
    all.values().removeIf(String::isEmpty); // "" unsets
    try (Metrics m = Modes.metrics(io.dplrf.deploy.config.ServiceConfig.load(null, Map.of(),
        all))) {
      return m.scrape().lines().filter(l -> l.startsWith("dplrf_records_dead_lettered_total{"))
          .map(l -> l.replaceAll(".*reason=\"([a-z_]+)\".*", "$1")).sorted().toList();
    }
  }

  /** docs/operations.md's metrics table lists these, mode by mode. */
  @Test
  void deadLetterCounters_areThoseOfTheModesRecordFormat() {
    assertEquals(List.of("bad_length", "index_out_of_range", "non_finite_delta"),
        scrapedReasons(Map.of()));
    assertEquals(List.of("bad_length", "index_out_of_range", "missing_key", "non_finite_delta"),
        scrapedReasons(Map.of("privacy-unit", "key")));
    assertEquals(List.of("bad_length", "duplicate_index", "index_out_of_range",
        "non_finite_value"), scrapedReasons(Map.of("mode", "rows", "rows", "")));
    assertEquals(List.of("bad_length", "bad_value", "foreign_protocol", "not_a_report",
        "wrong_shape"), scrapedReasons(Map.of("mode", "local", "rows", "")));
    assertEquals(List.of("bad_length", "index_out_of_range", "non_finite_delta",
        "rating_out_of_range"), scrapedReasons(Map.of("mode", "completion", "rank", "",
        "epochs", "", "rating-min", "1", "rating-max", "5")));
  }

  @Test
  void deadLetterCounters_existAtZeroForEveryReason_beforeAnyDeadLetter() {
    try (Metrics m = forMode(Mode.UPDATES)) {
      String s = m.scrape();
      for (DeadLetterReason r : DeadLetterReason.values()) {
        assertTrue(s.contains("dplrf_records_dead_lettered_total{reason=\""
            + r.name().toLowerCase(Locale.ROOT) + "\"} 0.0"), r + " in\n" + s);
      }
      assertEquals(DeadLetterReason.values().length,
          s.lines().filter(l -> l.startsWith("dplrf_records_dead_lettered_total{")).count(),
          "one series per reason, no other");
      m.deadLettered(DeadLetterReason.NON_FINITE_DELTA, 3);
      m.deadLettered(DeadLetterReason.NON_FINITE_DELTA, 0);
      s = m.scrape();
      assertTrue(s.contains("dplrf_records_dead_lettered_total{reason=\"non_finite_delta\"} 3.0"), s);
      assertTrue(s.contains("dplrf_records_dead_lettered_total{reason=\"bad_length\"} 0.0"), s);
      assertFalse(s.contains("reason=\"other\""), s);
    }
  }
}
