package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static io.dplrf.it.Http.objectOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.it.Stream.Update;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Exactly-once ingestion across a hard crash: {@code dplrf serve} runs as a child JVM, is killed
 * with {@link Process#destroyForcibly()} (SIGKILL: no shutdown hook, no final snapshot) mid-stream
 * and restarted on the same state directory; the exact counts and the order-independent checksum
 * must then equal those of the produced stream applied once.
 */
@ExtendWith(KafkaSuite.class)
abstract class CrashRestartScenarios {
  private static final int N = 200_000;
  private static final int BATCH = 100;
  private static final int EPOCH = N / 10;
  private static final int PARTITIONS = 3;
  /** Producer pacing: the stream takes about RECORDS / RECORDS_PER_SECOND = 6 s. */
  private static final int RECORDS_PER_SECOND = 333;
  private static final Duration START = Duration.ofSeconds(60);
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  private final List<ChildService> children = new ArrayList<>();
  private Path stateDir;
  private Path logDir;

  @AfterEach
  void killChildren() throws Exception {
    for (ChildService c : children) {
      c.kill();
    }
    children.clear();
    if (stateDir != null) {
      RunningService.deleteTree(stateDir);
    }
    if (logDir != null) {
      RunningService.deleteTree(logDir);
    }
  }

  @Test
  void killDashNineMidStream_thenRestart_appliesEveryUpdateExactlyOnce(KafkaEnvironment kafka)
      throws Throwable {
    String topic = "it-crash-" + UUID.randomUUID();
    kafka.createTopic(topic, PARTITIONS);
    stateDir = Files.createTempDirectory("dplrf-it-crash-state");
    logDir = Files.createTempDirectory("dplrf-it-crash-log");
    Map<String, String> settings = RunningService.settings(
        "rows", "300", "cols", "200", "rank", "2", "epsilon", "1", "delta", "1e-6",
        "epochs", "12", "epoch-updates", "" + EPOCH, "clip", "1",
        "bootstrap-servers", kafka.bootstrapServers(), "topic", topic,
        "state-dir", stateDir.toString(), "http-port", "0", "operator-port", "0");

    // Δ uniform in (-1, 1), every 97th update ±2.5 (clamped to C = 1 and counted as clipped).
    SplittableRandom rnd = new SplittableRandom(7);
    List<Update> updates = new ArrayList<>(N);
    int clipped = 0;
    for (int u = 0; u < N; u++) {
      double d = u % 97 == 0 ? (rnd.nextBoolean() ? 2.5 : -2.5) : rnd.nextDouble(-1, 1);
      clipped += Math.abs(d) > 1 ? 1 : 0;
      updates.add(new Update(rnd.nextInt(300), rnd.nextInt(200), d));
    }
    List<byte[]> records = Stream.records(updates, BATCH);

    try {
      ChildService first = start(settings, 1);
      // The second half of the stream waits for the kill, so that the kill comes mid-stream
      // however long the first release takes on a busy machine (it normally comes after a
      // tenth, and the producer never waits).
      CountDownLatch killed = new CountDownLatch(1);
      CompletableFuture<Void> producing = CompletableFuture.runAsync(
          () -> producePaced(kafka.bootstrapServers(), topic, records, killed));

      // The release follows the durable snapshot of its epoch, so once it is out, that epoch
      // survives the kill.
      Map<String, Object> releaseBefore = Poll.until("the first release", DEADLINE,
          () -> Http.object(first.api("/v1/release/latest")), r -> longOf(r, "epoch") >= 1);
      Map<String, Object> beforeKill = Http.object(first.operator("/admin/ingest"));
      first.kill();
      killed.countDown();
      long consumedAtKill = longOf(beforeKill, "updatesConsumed");
      System.out.println("crash: killed after " + beforeKill);
      assertTrue(consumedAtKill < N, "the kill must come mid-stream: " + beforeKill);

      producing.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      ChildService second = start(settings, 2);
      Map<String, Object> after = Poll.until("all " + N + " updates consumed after the restart",
          DEADLINE, () -> Http.object(second.operator("/admin/ingest")),
          s -> longOf(s, "updatesConsumed") >= N && longOf(s, "epochsClosed") >= N / EPOCH);
      System.out.println("crash: after restart " + after);

      assertEquals(records.size(), longOf(after, "recordsConsumed"), "records read once: " + after);
      assertEquals(N, longOf(after, "updatesConsumed"), "" + after);
      assertEquals(N, longOf(after, "updatesApplied"), "every update applied exactly once: " + after);
      assertEquals(clipped, longOf(after, "updatesClipped"), "" + after);
      assertEquals(0, longOf(after, "updatesDropped"), "" + after);
      assertEquals(Stream.checksum(updates, 1), after.get("checksum"), "checksum: " + after);
      assertEquals(N / EPOCH, longOf(after, "epochsClosed"), "" + after);
      assertEquals("running", after.get("state"), "" + after);
      Map<String, Object> dl = objectOf(after, "recordsDeadLettered");
      for (Object count : dl.values()) {
        assertEquals(0.0, count, "dead letters: " + dl);
      }

      // A restart must not hand out a second noisy view of released epochs: the release of
      // [1, e] made before the kill is reproduced after it (same nodes, same noise).
      int e = (int) longOf(releaseBefore, "epoch");
      Map<String, Object> again = Http.object(second.api("/v1/release?from=1&to=" + e));
      double[] s1 = Http.vector(releaseBefore.get("S"));
      double[] s2 = Http.vector(again.get("S"));
      assertArrayEquals(s1, s2, 1e-9 * s1[0], "singular values of the release of [1, " + e + "]");
      // The last epoch's release is computed on its own thread after its snapshot: poll for it.
      Poll.until("the release of epoch " + N / EPOCH, DEADLINE,
          () -> Http.object(second.api("/v1/release/latest")), r -> longOf(r, "epoch") == N / EPOCH);
    } catch (Throwable t) {
      for (ChildService c : children) {
        System.out.println("---- output of " + c.log + " ----\n" + c.output());
      }
      throw t;
    }
  }

  private ChildService start(Map<String, String> settings, int run) throws Exception {
    ChildService c = ChildService.start(settings, logDir.resolve("serve-" + run + ".log"), START);
    children.add(c);
    return c;
  }

  /**
   * Records round-robin over the partitions at about RECORDS_PER_SECOND, the second half only
   * once {@code killed} is released; waits for all acks.
   */
  private static void producePaced(String bootstrap, String topic, List<byte[]> records,
      CountDownLatch killed) {
    long t0 = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> p = Stream.producer(bootstrap)) {
      List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
      for (int r = 0; r < records.size(); r++) {
        if (r == records.size() / 2 && !killed.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
          throw new IllegalStateException("no kill within " + DEADLINE.toSeconds() + " s");
        }
        acks.add(p.send(new ProducerRecord<>(topic, r % PARTITIONS, null, records.get(r))));
        long due = t0 + (r + 1) * 1_000_000_000L / RECORDS_PER_SECOND;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // rate limit, not a wait for state
        }
      }
      p.flush();
      for (var a : acks) {
        a.get();
      }
    } catch (Exception e) {
      throw new IllegalStateException("producing to " + topic + " failed", e);
    }
  }
}
