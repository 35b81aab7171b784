package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.it.Stream.Update;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The robust mechanisms (paper 000, docs/privacy/robust.md) in the running service against the
 * suite's real broker: turnstile updates in through Kafka, continual releases of robust-lra out
 * of the public API, the entrywise-ℓ1 relation in /v1/status, exact counts, and a restart on the
 * same state directory that serves the same release and continues the stream.
 */
@ExtendWith(KafkaSuite.class)
class RobustModeIT {
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  private RunningService running;

  @AfterEach
  void stop() throws Exception {
    if (running != null) {
      running.close();
    }
  }

  @Test
  void robustLra_releasesContinually_namesTheL1Relation_andSurvivesRestart(KafkaEnvironment kafka)
      throws Exception {
    final long seed = 20261122L;
    final int m = 40;
    final int n = 30;
    final int k = 2;
    final int perEpoch = 600;
    double[][] a0 = TestData.lowRank(m, n, k, 5, seed);
    List<Update> updates = TestData.splitIntoUpdates(a0, seed, 2 * perEpoch);
    int half = updates.size() / 2;
    String topic = "it-robust-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    Path state = Files.createTempDirectory("dplrf-it-robust");
    TestData.writeKey(state.resolve("secret.key"), seed);
    Map<String, String> settings = RunningService.settings("rows", "" + m, "cols", "" + n,
        "rank", "" + k, "epsilon", "2", "delta", "1e-6", "mechanism", "robust-lra", "p", "1.5",
        "epochs", "2", "epoch-updates", "" + half, "clip", "1");
    running = RunningService.start(kafka, topic, state, settings);

    Stream.sendAll(kafka.bootstrapServers(), topic,
        Stream.unkeyed(Stream.records(updates.subList(0, half), 50)));
    Map<String, Object> release1 = Poll.until("release of epoch 1", DEADLINE,
        () -> Http.object(running.api("/v1/release/latest")), r -> longOf(r, "epoch") == 1);
    assertFactors(release1, m, n, k);
    Map<String, Object> status = Http.object(running.api("/v1/status"));
    assertEquals("robust-lra", status.get("mechanism"), "" + status);
    assertTrue(((String) status.get("neighbouring")).startsWith("entrywise l1 (robust, p = 1.5"),
        "" + status);
    assertEquals(half, longOf(running.ingest(), "updatesApplied"));

    // Restart on the same state directory: the same release (noise regenerated, not redrawn).
    running.service.close();
    running = RunningService.start(kafka, topic, state, settings);
    Map<String, Object> restored = Poll.until("release restored", DEADLINE,
        () -> Http.object(running.api("/v1/release/latest")), r -> longOf(r, "epoch") == 1);
    assertEquals(release1.get("S"), restored.get("S"), "the restored release is the same");
    assertEquals(release1.get("U"), restored.get("U"));

    Stream.sendAll(kafka.bootstrapServers(), topic,
        Stream.unkeyed(Stream.records(updates.subList(half, updates.size()), 50)));
    Map<String, Object> release2 = Poll.until("release of epoch 2", DEADLINE,
        () -> Http.object(running.api("/v1/release/latest")), r -> longOf(r, "epoch") == 2);
    assertFactors(release2, m, n, k);
    Map<String, Object> ingest = running.ingest();
    assertEquals(updates.size(), longOf(ingest, "updatesApplied"), "" + ingest);
    assertEquals(Stream.checksum(updates, 1), ingest.get("checksum"), "" + ingest);
  }

  private static void assertFactors(Map<String, Object> release, int m, int n, int k) {
    double[] s = Http.vector(release.get("S"));
    double[][] u = Http.matrix(release.get("U"));
    double[][] v = Http.matrix(release.get("V"));
    assertEquals(k, s.length);
    assertEquals(m, u.length);
    assertEquals(n, v.length);
    for (int l = 0; l < k; l++) {
      assertTrue(s[l] >= 0 && (l == 0 || s[l] <= s[l - 1]), "S sorted, non-negative");
    }
    TestData.assertOrthonormalColumns("U", u, 1e-9);
    TestData.assertOrthonormalColumns("V", v, 1e-9);
  }
}
