package io.dplrf.deploy.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class MetricsTest {
  @Test
  void meters_comeOutWithPrometheusNames() {
    try (Metrics m = new Metrics()) {
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
  void epochGauges_describeWhatTheServicePublishes_theLatestReleasedEpoch() {
    try (Metrics m = new Metrics()) {
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

  @Test
  void deadLetterReasons_areBoundedCodes() {
    try (Metrics m = new Metrics()) {
      m.deadLettered("index out of range: i=123"); // a message, not a code
      for (int r = 0; r < Metrics.MAX_REASONS + 10; r++) {
        m.deadLettered("code-" + r);
      }
      String s = m.scrape();
      assertFalse(s.contains("i=123"));
      assertTrue(s.contains("reason=\"other\""));
      long tags = s.lines().filter(l -> l.startsWith("dplrf_records_dead_lettered_total{")).count();
      assertTrue(tags <= Metrics.MAX_REASONS + 1, "tags: " + tags);
      assertEquals(Metrics.MAX_REASONS + 11, s.lines()
          .filter(l -> l.startsWith("dplrf_records_dead_lettered_total{"))
          .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum());
    }
  }
}
