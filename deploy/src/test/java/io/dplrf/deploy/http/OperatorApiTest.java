package io.dplrf.deploy.http;

import static io.dplrf.deploy.http.Fixtures.get;
import static io.dplrf.deploy.http.Fixtures.request;
import static io.dplrf.deploy.http.Fixtures.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.io.Json;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.ingest.DeadLetterReason;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OperatorApiTest {
  private static final String TOKEN = "op-token-0123456789";
  private Metrics metrics;
  private OperatorApi api;
  private int port;

  private static Map<String, Object> stats() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("applied", 12L);
    m.put("rejected", 3L);
    m.put("checksum", -8_000_000_000_000_000_123L);
    return m;
  }

  @BeforeEach
  void start() throws Exception {
    metrics = new Metrics(Set.of(Metrics.Group.UPDATES));
    api = OperatorApi.start(new InetSocketAddress("127.0.0.1", 0), metrics, OperatorApiTest::stats,
        Optional.of(TOKEN));
    port = api.port();
  }

  @AfterEach
  void stop() {
    api.close();
    metrics.close();
  }

  @Test
  void withoutOrWithWrongToken_is401OnEveryPath() throws Exception {
    for (String path : List.of("/metrics", "/admin/ingest", "/nope")) {
      HttpResponse<byte[]> none = get(port, path);
      assertEquals(401, none.statusCode(), path);
      assertTrue(text(none).contains("missing bearer token"), text(none));
      assertEquals("Bearer realm=\"dplrf-operator\"",
          none.headers().firstValue("WWW-Authenticate").orElseThrow());
      HttpResponse<byte[]> wrong = get(port, path, "Authorization", "Bearer " + TOKEN + "x");
      assertEquals(401, wrong.statusCode());
      assertEquals(Map.of("error", "invalid bearer token"), Json.parse(text(wrong)));
      assertEquals(401, get(port, path, "Authorization", "Basic " + TOKEN).statusCode());
    }
    assertEquals(401, request(port, "POST", "/metrics").statusCode(), "auth before method check");
  }

  @Test
  void adminIngest_withToken_isTheExactStats() throws Exception {
    HttpResponse<byte[]> r = get(port, "/admin/ingest", "Authorization", "Bearer " + TOKEN);
    assertEquals(200, r.statusCode());
    assertTrue(text(r).contains("\"checksum\": -8000000000000000123"), "long written exactly: " + text(r));
    assertEquals(12.0, ((Map<?, ?>) Json.parse(text(r))).get("applied"));
  }

  @Test
  void metrics_withToken_isPrometheusText() throws Exception {
    metrics.updatesApplied(5);
    metrics.deadLettered(DeadLetterReason.BAD_LENGTH, 2);
    metrics.consumerLag(0, 42);
    metrics.sketchMemory(1024);
    metrics.snapshotWritten(java.time.Duration.ofMillis(3), 2048);
    get(port, "/admin/ingest", "Authorization", "bearer " + TOKEN); // scheme is case-insensitive
    Fixtures.scrapeWith(metrics, "route=\"/admin/ingest\",status=\"200\"");
    HttpResponse<byte[]> r = get(port, "/metrics", "Authorization", "Bearer " + TOKEN);
    assertEquals(200, r.statusCode());
    assertTrue(r.headers().firstValue("Content-Type").orElseThrow().startsWith("text/plain; version=0.0.4"));
    String body = text(r);
    assertTrue(body.contains("dplrf_updates_applied_total 5.0"), body);
    assertTrue(body.contains("jvm_memory_used_bytes"), body);
    assertTrue(body.contains("dplrf_records_dead_lettered_total{reason=\"bad_length\"} 2.0"), body);
    assertTrue(body.contains("dplrf_consumer_lag{partition=\"0\"} 42.0"), body);
    assertTrue(body.contains("dplrf_sketch_memory_bytes 1024.0"), body);
    assertTrue(body.contains("dplrf_snapshot_size_bytes_sum 2048.0"), body);
    assertTrue(body.contains(
        "dplrf_http_requests_seconds_count{method=\"GET\",route=\"/admin/ingest\",status=\"200\"} 1"), body);
  }

  @Test
  void withoutToken_endpointsAreOpen() throws Exception {
    api.close();
    api = OperatorApi.start(new InetSocketAddress("127.0.0.1", 0), metrics, OperatorApiTest::stats,
        Optional.empty());
    assertEquals(200, get(api.port(), "/metrics").statusCode());
    assertEquals(404, get(api.port(), "/nope").statusCode());
    assertEquals(405, request(api.port(), "DELETE", "/admin/ingest").statusCode());
  }

  /**
   * POST /admin/close-epoch: 202 with the epoch once the loop has begun its close; 409 with the
   * loop's reason when it refuses; 503 with Retry-After when it does not answer; the token first.
   */
  @Test
  void closeEpoch_is202WithTheEpoch_409WithTheRefusal_503WhenTheLoopDoesNotAnswer()
      throws Exception {
    java.util.concurrent.atomic.AtomicReference<java.util.concurrent.CompletableFuture<Integer>>
        next = new java.util.concurrent.atomic.AtomicReference<>();
    api.close();
    api = OperatorApi.start(new InetSocketAddress("127.0.0.1", 0), metrics, OperatorApiTest::stats,
        Optional.of(TOKEN), ModeRoutes.none(), next::get);
    int p = api.port();
    String[] auth = {"Authorization", "Bearer " + TOKEN};
    assertEquals(401, request(p, "POST", "/admin/close-epoch").statusCode());

    next.set(java.util.concurrent.CompletableFuture.completedFuture(3));
    HttpResponse<byte[]> ok = request(p, "POST", "/admin/close-epoch", auth);
    assertEquals(202, ok.statusCode(), text(ok));
    assertEquals(3.0, ((Map<?, ?>) Json.parse(text(ok))).get("epoch"));
    assertEquals(405, request(p, "GET", "/admin/close-epoch", auth).statusCode());

    next.set(java.util.concurrent.CompletableFuture.failedFuture(
        new IllegalStateException("epoch 4 holds no update yet")));
    HttpResponse<byte[]> refused = request(p, "POST", "/admin/close-epoch", auth);
    assertEquals(409, refused.statusCode());
    assertEquals(Map.of("error", "epoch 4 holds no update yet"), Json.parse(text(refused)));

    next.set(new java.util.concurrent.CompletableFuture<>()); // never answered
    HttpResponse<byte[]> busy = request(p, "POST", "/admin/close-epoch", auth);
    assertEquals(503, busy.statusCode());
    assertEquals(String.valueOf(OperatorApi.CLOSE_WAIT_SECONDS),
        busy.headers().firstValue("Retry-After").orElseThrow());
  }

  @Test
  void closeEpoch_withoutAnIngestLoop_isNoRoute() throws Exception {
    HttpResponse<byte[]> r = request(port, "POST", "/admin/close-epoch", "Authorization",
        "Bearer " + TOKEN);
    assertEquals(404, r.statusCode());
  }
}
