package io.dplrf.deploy.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.http.DamagedStateException;
import io.dplrf.deploy.http.ReleaseCache;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.release.Factorization;
import io.dplrf.release.UtilityReport;
import io.dplrf.release.UtilityReport.FloorTerm;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.matrix.Dense;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EpochReleasesTest {
  /**
   * The release log warns in words when a release's reliable rank is 0: at the first such
   * release, again after one that stood above the floor, not at every epoch below it, and at the
   * last release, which stays served.
   */
  @Test
  void releaseLog_warnsWhenTheReliableRankFallsToZero_onceUntilItRecovers() {
    double[] top = {50, 5, 0.5, 20, 0.1, 0.2}; // σ₁ per epoch 1..6 against a floor of 10
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (Metrics metrics = new Metrics(java.util.Set.of(Metrics.Group.EPOCH_RELEASES));
        EpochReleases r = new EpochReleases(new ReleaseCache(), top.length, (epoch, at) ->
            new ServedRelease(1, epoch, new Factorization(new Dense(2, 1), new double[] {top[epoch - 1]},
                new Dense(2, 1)), report(top[epoch - 1]), at, Map.of()),
            new ModeContext(metrics, new PrintStream(log, true, StandardCharsets.UTF_8), e -> { }),
            "done")) {
      for (int e = 1; e <= top.length; e++) {
        r.release(e, java.time.Instant.now());
      }
    }
    List<String> warnings = log.toString(StandardCharsets.UTF_8).lines()
        .filter(l -> l.contains("reliable rank 0")).toList();
    assertEquals(3, warnings.size(), String.join("\n", warnings));
    assertTrue(warnings.get(0).contains("epoch 2:"), warnings.get(0));
    assertTrue(warnings.get(1).contains("epoch 5:"), warnings.get(1));
    assertTrue(warnings.get(2).startsWith("dplrf: release of epoch 6 (the last: the budget is"
        + " spent, and it stays served): WARNING: reliable rank 0"), warnings.get(2));
  }

  /**
   * A release that needs a damaged stored file is withheld, not a failure of the service: the
   * log names the reason, the previous release stays the latest, and the next epoch's release is
   * published; any other failure of a queued release still fails the service.
   */
  @Test
  void releaseNeedingADamagedFile_isWithheld_andTheServiceGoesOn() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<Throwable> failed = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (Metrics metrics = new Metrics(java.util.Set.of(Metrics.Group.EPOCH_RELEASES));
        EpochReleases r = new EpochReleases(new ReleaseCache(), 4, (epoch, at) -> {
          if (epoch == 2) {
            throw new DamagedStateException("the release of epochs [1, 2] needs the prefix file"
                + " blt/blt-release-2.sketch (epochs 1..2), which is damaged (checksum)", null);
          }
          if (epoch == 4) {
            throw new IllegalStateException("out of memory, say");
          }
          return new ServedRelease(1, epoch, new Factorization(new Dense(2, 1),
              new double[] {50}, new Dense(2, 1)), report(50), at, Map.of());
        }, new ModeContext(metrics, new PrintStream(log, true, StandardCharsets.UTF_8),
            failed::add), "done")) {
      r.release(1, java.time.Instant.now());
      r.releaseLater(2);
      r.awaitQueued();
      assertEquals(1, r.released(), "the release of epoch 1 stays the latest");
      assertTrue(failed.isEmpty(), failed.toString());
      r.releaseLater(3);
      r.awaitQueued();
      assertEquals(3, r.released());
      r.releaseLater(4);
      r.awaitQueued();
      assertEquals(1, failed.size(), "another failure still fails the service");
    }
    String out = log.toString(StandardCharsets.UTF_8);
    assertTrue(out.contains("the release of epoch 2 is withheld: the release of epochs [1, 2]"
        + " needs the prefix file blt/blt-release-2.sketch"), out);
  }

  /**
   * A release queued at an epoch's close is dated by that close (the time the snapshot keeps, and
   * a restart serves again), not by when it was computed.
   */
  @Test
  void releaseLater_isDatedByTheEpochsClose() throws Exception {
    java.time.Instant closed = java.time.Instant.parse("2026-01-02T03:04:05.678Z");
    try (Metrics metrics = new Metrics(java.util.Set.of(Metrics.Group.EPOCH_RELEASES));
        EpochReleases r = new EpochReleases(new ReleaseCache(), 4, (epoch, at) ->
            new ServedRelease(1, epoch, new Factorization(new Dense(2, 1), new double[] {50},
                new Dense(2, 1)), report(50), at, Map.of()),
            new ModeContext(metrics, new PrintStream(new ByteArrayOutputStream()), e -> { },
                epoch -> epoch == 3 ? closed : null), "done")) {
      r.releaseLater(3);
      r.awaitQueued();
      assertEquals(closed, r.cache().latest().orElseThrow().releasedAt());
      assertEquals(closed, r.lastRelease());
    }
  }

  private static UtilityReport report(double s) {
    return new UtilityReport("dense", 1, List.of(new NoiseScale("A+N", 1, 1, 2)),
        List.of(new FloorTerm("A+N", 10, "10")), new double[] {s}, 0, "none", List.of());
  }
}
