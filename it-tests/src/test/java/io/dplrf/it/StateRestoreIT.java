package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Backup and restore as docs/operations.md §4 tells an operator, with both continual structures,
 * on the suite's broker: the latest backup (taken stopped) put into a fresh state directory
 * releases every range bit for bit as before; an older backup put back whole (its snapshot, state
 * files and released-epoch guard agreeing with each other) is refused at start, by the broker's
 * record of the stream's progress (ReleaseWitness, docs/privacy/recovery.md §6); and of two copies
 * run at once, the older is fenced before it releases another epoch.
 */
@ExtendWith(KafkaSuite.class)
class StateRestoreIT {
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  private static Map<String, String> settings(String continual) {
    return RunningService.settings("rows", "10", "cols", "8", "rank", "2", "epsilon", "1",
        "delta", "1e-6", "epochs", "8", "epoch-updates", "40", "continual", continual);
  }

  private static void awaitRelease(RunningService s, int epoch) {
    Poll.until("the release of epoch " + epoch, DEADLINE,
        () -> Http.object(s.api("/v1/release/latest")), r -> longOf(r, "epoch") == epoch);
  }

  private static Path copy(Path from, String name) throws IOException {
    Path into = Files.createTempDirectory("dplrf-it-" + name);
    try (var files = Files.walk(from)) {
      for (Path f : files.toList()) {
        Path to = into.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else if (!f.getFileName().toString().endsWith(".tmp")) {
          Files.copy(f, to);
        }
      }
    }
    return into;
  }

  /** Every range [s, e] of epochs 1..epochs: its singular values. */
  private static Map<List<Integer>, double[]> ranges(RunningService s, int epochs)
      throws Exception {
    Map<List<Integer>, double[]> out = new HashMap<>();
    for (int from = 1; from <= epochs; from++) {
      for (int to = from; to <= epochs; to++) {
        out.put(List.of(from, to), Http.vector(
            Http.object(s.api("/v1/release?from=" + from + "&to=" + to)).get("S")));
      }
    }
    return out;
  }

  @Test
  void latestBackup_releasesTheSameBits_anOlderBackupIsRefused_tree(KafkaEnvironment kafka)
      throws Exception {
    backupAndRestore(kafka, "tree");
  }

  @Test
  void latestBackup_releasesTheSameBits_anOlderBackupIsRefused_factorization(
      KafkaEnvironment kafka) throws Exception {
    backupAndRestore(kafka, "factorization");
  }

  /**
   * Two services on copies of one state directory (an operator's mistake): the one started last
   * takes the stream's transactional id over, and the first one fails at its next epoch before
   * releasing it, so epoch 3 is released once, by the second.
   */
  @Test
  void aCopyStartedElsewhere_fencesTheFirstProcess_beforeItReleasesAnotherEpoch(
      KafkaEnvironment kafka) throws Exception {
    String topic = "it-fence-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    Path state = Files.createTempDirectory("dplrf-it-fence");
    List<Path> dirs = new ArrayList<>(List.of(state));
    List<RunningService> running = new ArrayList<>();
    try {
      Stream.sendAll(kafka.bootstrapServers(), topic,
          Stream.unkeyed(Stream.records(EpochEndAndRestartIT.updates(80, 3), 10)));
      RunningService first = RunningService.start(kafka, topic, state, settings("factorization"));
      awaitRelease(first, 2);
      first.service.close();
      Path copy = copy(state, "fence-copy");
      dirs.add(copy);

      RunningService a = RunningService.start(kafka, topic, state, settings("factorization"));
      running.add(a);
      awaitRelease(a, 2);
      RunningService b = RunningService.start(kafka, topic, copy, settings("factorization"));
      running.add(b);
      awaitRelease(b, 2);
      Stream.sendAll(kafka.bootstrapServers(), topic,
          Stream.unkeyed(Stream.records(EpochEndAndRestartIT.updates(40, 4), 10)));
      awaitRelease(b, 3);
      Map<String, Object> fenced = Poll.until("the first process fails", DEADLINE, a::ingest,
          m -> "failed".equals(m.get("state")));
      assertTrue(longOf(fenced, "epochsClosed") >= 2, "" + fenced);
      assertTrue(longOf(Http.object(a.api("/v1/release/latest")), "epoch") == 2,
          "the fenced process released nothing more");
    } finally {
      for (RunningService r : running) {
        r.service.close();
      }
      for (Path d : dirs) {
        RunningService.deleteTree(d);
      }
    }
  }

  private void backupAndRestore(KafkaEnvironment kafka, String continual) throws Exception {
    String topic = "it-restore-" + continual + "-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    Path state = Files.createTempDirectory("dplrf-it-restore");
    List<Path> dirs = new ArrayList<>(List.of(state));
    try {
      Stream.sendAll(kafka.bootstrapServers(), topic,
          Stream.unkeyed(Stream.records(EpochEndAndRestartIT.updates(80, 1), 10)));
      RunningService first = RunningService.start(kafka, topic, state, settings(continual));
      awaitRelease(first, 2);
      first.service.close(); // a clean stop: the final snapshot
      Path older = copy(state, "older");
      dirs.add(older);

      Stream.sendAll(kafka.bootstrapServers(), topic,
          Stream.unkeyed(Stream.records(EpochEndAndRestartIT.updates(80, 2), 10)));
      RunningService second = RunningService.start(kafka, topic, state, settings(continual));
      awaitRelease(second, 4);
      Map<List<Integer>, double[]> before = ranges(second, 4);
      second.service.close();
      Path latest = copy(state, "latest");
      dirs.add(latest);

      RunningService restored = RunningService.start(kafka, topic, latest, settings(continual));
      try {
        awaitRelease(restored, 4);
        Map<List<Integer>, double[]> after = ranges(restored, 4);
        for (Map.Entry<List<Integer>, double[]> e : before.entrySet()) {
          assertArrayEquals(e.getValue(), after.get(e.getKey()), continual + ", range "
              + e.getKey() + " after the restore");
        }
      } finally {
        restored.service.close();
      }

      IllegalStateException refused = assertThrows(IllegalStateException.class,
          () -> RunningService.start(kafka, topic, older, settings(continual)).service.close());
      assertTrue(refused.getMessage().contains("the broker records that the snapshot of epoch 4"
          + " of this stream was durable") && refused.getMessage().contains("is of epoch 2: it is"
          + " an older backup"), refused.getMessage());
    } finally {
      for (Path d : dirs) {
        RunningService.deleteTree(d);
      }
    }
  }
}
