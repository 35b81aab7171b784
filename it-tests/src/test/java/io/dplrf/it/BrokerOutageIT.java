package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static io.dplrf.it.Http.objectOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.kafka.EmbeddedKafka;
import io.dplrf.it.Stream.Update;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker outage must be visible while it lasts, and ingest must resume by itself after it
 * (issue #28): {@code dplrf serve} in this JVM consumes from a broker of this test's own (the
 * embedded Kafka from the Maven Central jars, on a fixed port), which is stopped mid-run and
 * started again on the same port and data.
 *
 * <p>Within a 60 s outage, {@code /health} must turn "degraded" with the reason {@code
 * broker-unreachable}, {@code dplrf_broker_reachable} 0, {@code /admin/ingest}'s broker
 * "unreachable" and {@code /v1/status} must say that ingest waits; the consumer lag reads NaN
 * (its end is stale). Detection takes {@code BrokerContact.UNREACHABLE_AFTER} (15 s) of polling
 * plus up to a second of metrics publishing; the test prints the time it took. After the broker is
 * back, all of it clears and updates sent then are released.
 */
class BrokerOutageIT {
  /** How long the outage may take to show: the 60 s stall of issue #28. */
  private static final Duration WITHIN_THE_STALL = Duration.ofSeconds(60);
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  @TempDir Path dir;

  /**
   * A loopback port free now and below the kernel's ephemeral range, so that no socket bound to
   * port 0 and no outgoing connection (of this or another process) can take it while the broker
   * is away; only a process that names it could. The broker starts on it twice.
   */
  private static int freePort() throws IOException {
    int ephemeralLow = 32768;
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    if (java.nio.file.Files.isReadable(range)) {
      String first = java.nio.file.Files.readString(range).trim().split("\\s+")[0];
      ephemeralLow = Integer.parseInt(first);
    }
    int low = 10_000;
    if (ephemeralLow - low < 1_000) {
      return anyPort(); // an unusual range: the kernel's choice
    }
    // Where to start looking: from the process id, so that builds sharing a host start apart.
    int start = low + (int) (ProcessHandle.current().pid() % (ephemeralLow - low));
    for (int k = 0; k < ephemeralLow - low; k++) {
      int port = low + (start - low + k) % (ephemeralLow - low);
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
        return port;
      } catch (java.net.BindException taken) {
        // next
      }
    }
    return anyPort();
  }

  private static int anyPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static List<byte[]> records(int updates, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Update> u = new ArrayList<>();
    for (int x = 0; x < updates; x++) {
      u.add(new Update(rnd.nextInt(10), rnd.nextInt(8), rnd.nextDouble(-1, 1)));
    }
    return Stream.records(u, 10);
  }

  @Test
  void brokerStopped_showsInHealthStatusAdminAndMetricsWithinTheOutage_andIngestResumesAfter()
      throws Exception {
    int port = freePort();
    Path kafkaData = dir.resolve("kafka");
    EmbeddedKafka[] kafka = {EmbeddedKafka.start(kafkaData, "127.0.0.1", port)};
    String topic = "it-outage";
    kafka[0].createTopic(topic, 1);
    KafkaEnvironment env = new KafkaEnvironment() {
      @Override
      public String bootstrapServers() {
        return kafka[0].bootstrapServers();
      }

      @Override
      public void createTopic(String name, int partitions) {
        kafka[0].createTopic(name, partitions);
      }
    };
    RunningService svc = null;
    try {
      svc = RunningService.start(env, topic, dir.resolve("state"), RunningService.settings(
          "rows", "10", "cols", "8", "rank", "2", "epsilon", "1", "delta", "1e-6",
          "epochs", "8", "epoch-updates", "40"));
      RunningService s = svc;
      Stream.sendAll(env.bootstrapServers(), topic, Stream.unkeyed(records(40, 1)));
      Poll.until("the release of epoch 1", DEADLINE,
          () -> Http.object(s.api("/v1/release/latest")), r -> longOf(r, "epoch") == 1);
      Poll.until("dplrf_broker_reachable 1 and a last contact", DEADLINE, s::metrics,
          m -> RunningService.sample(m, "dplrf_broker_reachable", null, null) == 1
              && RunningService.sample(m, "dplrf_broker_last_contact_timestamp_seconds", null,
                  null) > 0);
      assertEquals(Map.of("status", "ok", "reasons", List.of()),
          Http.object(s.api("/health")));

      // The last answer before the stop, as the loop knows it now (/admin/ingest is computed
      // when asked); the last contact reported during the outage cannot be older.
      long answeredBefore = java.time.Instant.parse((String) objectOf(s.ingest(), "broker")
          .get("lastContact")).toEpochMilli();
      // The broker stops answering somewhere inside close() (a controlled shutdown takes
      // seconds), so the outage is timed from the call.
      long stopping = System.nanoTime();
      kafka[0].close();
      Map<String, Object> health = Poll.until("/health degraded", WITHIN_THE_STALL,
          () -> Http.object(s.api("/health")), h -> "degraded".equals(h.get("status")));
      long degradedAt = System.currentTimeMillis();
      double detectedAfter = (System.nanoTime() - stopping) / 1e9;
      System.out.printf("broker outage: /health degraded %.1f s after the broker stopped: %s%n",
          detectedAfter, health);
      @SuppressWarnings("unchecked")
      Map<String, Object> reason = ((List<Map<String, Object>>) health.get("reasons")).get(0);
      assertEquals("broker-unreachable", reason.get("code"), "" + health);

      // The metrics are published every second, /health is computed when asked; the deadline
      // only bounds a hang (the broker stays away until it is restarted below).
      String metrics = Poll.until("dplrf_broker_reachable 0", Duration.ofSeconds(60), s::metrics,
          m -> RunningService.sample(m, "dplrf_broker_reachable", null, null) == 0);
      long last = Math.round(1000 * RunningService.sample(metrics,
          "dplrf_broker_last_contact_timestamp_seconds", null, null));
      assertTrue(last >= answeredBefore, "last contact " + last + " ms, older than the answer "
          + answeredBefore + " ms the loop had before the broker stopped");
      // Unreachable means 15 s spent asking since the last answer (the loop's wall clock, which
      // this JVM shares), so /health cannot say so earlier; timed against the service's own
      // last contact, this does not depend on how often the broker answered before it stopped.
      long unreachableAfter = io.dplrf.ingest.BrokerContact.UNREACHABLE_AFTER.toMillis();
      assertTrue(degradedAt >= last + unreachableAfter, "/health degraded at " + degradedAt
          + " ms, " + (degradedAt - last) + " ms after the last contact " + last
          + " ms: 15 s of asking without an answer, not earlier");
      assertTrue(Double.isNaN(RunningService.sample(metrics, "dplrf_consumer_lag", "partition",
          "0")), "lag unknown while the broker is away");
      Map<String, Object> ingest = s.ingest();
      assertEquals("running", ingest.get("state"), "" + ingest);
      assertEquals("unreachable", objectOf(ingest, "broker").get("state"), "" + ingest);
      String message = (String) Http.object(s.api("/v1/status")).get("message");
      assertTrue(message.startsWith("ingest waits for the Kafka broker")
          && message.contains("the release of epoch 1 stays available"), message);
      assertEquals(1, longOf(Http.object(s.api("/v1/release/latest")), "epoch"),
          "the release is served through the outage");

      kafka[0] = EmbeddedKafka.start(kafkaData, "127.0.0.1", port);
      long restarted = System.nanoTime();
      Poll.until("/health ok after the broker is back", DEADLINE,
          () -> Http.object(s.api("/health")), h -> "ok".equals(h.get("status")));
      System.out.printf("broker outage: /health ok %.1f s after the broker restarted%n",
          (System.nanoTime() - restarted) / 1e9);
      Poll.until("dplrf_broker_reachable 1", DEADLINE, s::metrics,
          m -> RunningService.sample(m, "dplrf_broker_reachable", null, null) == 1);
      Stream.sendAll(env.bootstrapServers(), topic, Stream.unkeyed(records(40, 2)));
      Poll.until("the release of epoch 2, after the outage", DEADLINE,
          () -> Http.object(s.api("/v1/release/latest")), r -> longOf(r, "epoch") == 2);
      Map<String, Object> after = s.ingest();
      assertEquals(80, longOf(after, "updatesApplied"), "" + after);
      assertEquals("reachable", objectOf(after, "broker").get("state"), "" + after);
      assertEquals("releasing after every epoch",
          Http.object(s.api("/v1/status")).get("message"));
    } finally {
      if (svc != null) {
        svc.close();
      }
      kafka[0].close();
    }
  }
}
