package io.dplrf.deploy.http;

import static io.dplrf.deploy.http.Fixtures.get;
import static io.dplrf.deploy.http.Fixtures.request;
import static io.dplrf.deploy.http.Fixtures.text;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.io.Json;
import io.dplrf.deploy.io.Npy;
import io.dplrf.deploy.metrics.Metrics;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PublicApiTest {
  @TempDir Path dir;
  private Metrics metrics;
  private ReleaseCache cache;
  private PublicApi api;
  private int port;

  @BeforeEach
  void start() throws IOException {
    metrics = new Metrics();
    cache = new ReleaseCache((from, to) -> {
      if (from == 2 && to == 2) {
        throw new IllegalStateException("tree node [2, 2] was not kept");
      }
      if (from == 3) {
        throw new IllegalArgumentException("ranges must start at a node boundary");
      }
      if (from == 4) {
        throw new DamagedStateException("the release of epochs [4, 4] needs the closed-node file"
            + " nodes/node-0-3.sketch (epochs 4..4), which is damaged (checksum mismatch)", null);
      }
      return new ServedRelease(from, to, Fixtures.factorization(), Fixtures.utility(), Fixtures.AT, Map.of());
    });
    api = PublicApi.start(new InetSocketAddress("127.0.0.1", 0), cache, Fixtures::status, metrics);
    port = api.port();
  }

  @AfterEach
  void stop() {
    api.close();
    metrics.close();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> json(HttpResponse<byte[]> r) {
    assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"),
        "content type of " + text(r));
    return (Map<String, Object>) Json.parse(text(r));
  }

  private static void assertError(HttpResponse<byte[]> r, int status, String messagePart) {
    assertEquals(status, r.statusCode(), text(r));
    Map<String, Object> body = json(r);
    assertEquals(List.of("error"), List.copyOf(body.keySet()));
    String message = (String) body.get("error");
    assertTrue(message.contains(messagePart), message);
    assertFalse(text(r).contains("Exception") || text(r).contains("\tat "), "no stack trace: " + text(r));
  }

  private static double[] doubles(Object list) {
    return ((List<?>) list).stream().mapToDouble(x -> (Double) x).toArray();
  }

  @Test
  void health_isOk() throws Exception {
    HttpResponse<byte[]> r = get(port, "/health");
    assertEquals(200, r.statusCode());
    assertEquals(Map.of("status", "ok", "reasons", List.of()), json(r));
    assertEquals(Map.of("status", "ok", "reasons", List.of()),
        json(get(port, "/v1/status")).get("health"));
  }

  /** A degraded service still answers 200 (it serves); the body says why, in /v1/status too. */
  @Test
  void health_degraded_listsEveryReason_in200AndInTheStatus() throws Exception {
    api.close();
    Health degraded = new Health(List.of(
        new Health.Reason("state-write-refused", "not ingesting: No space left on device"),
        new Health.Reason("state-file-damaged", "nodes/node-0-3.sketch is damaged")));
    api = PublicApi.start(new InetSocketAddress("127.0.0.1", 0), cache, new StatusSource() {
      @Override
      public Status status() {
        return Fixtures.status();
      }

      @Override
      public Health health() {
        return degraded;
      }
    }, metrics);
    HttpResponse<byte[]> r = get(api.port(), "/health");
    assertEquals(200, r.statusCode());
    Map<String, Object> expected = Map.of("status", "degraded", "reasons", List.of(
        Map.of("code", "state-write-refused", "message", "not ingesting: No space left on device"),
        Map.of("code", "state-file-damaged", "message", "nodes/node-0-3.sketch is damaged")));
    assertEquals(expected, json(r));
    assertEquals(expected, json(get(api.port(), "/v1/status")).get("health"));
  }

  @Test
  void beforeFirstRelease_matrixRoutesAre404WithTheNoReleaseMessage() throws Exception {
    for (String path : List.of("/v1/release/latest", "/v1/rows/0", "/v1/cols/0", "/v1/score?i=0&j=0",
        "/v1/release?from=1&to=1")) {
      assertError(get(port, path), 404, "no release yet: the first epoch has not closed");
    }
    Map<String, Object> status = json(get(port, "/v1/status"));
    assertNull(status.get("latestRelease"));
  }

  @Test
  void latest_json_hasEpochKSUVAndUtility() throws Exception {
    cache.publish(Fixtures.release(4));
    HttpResponse<byte[]> r = get(port, "/v1/release/latest");
    assertEquals(200, r.statusCode());
    assertEquals("4", r.headers().firstValue("X-Dplrf-Epoch").orElseThrow());
    Map<String, Object> body = json(r);
    assertEquals(4.0, body.get("epoch"));
    assertEquals(1.0, body.get("from"));
    assertEquals(2.0, body.get("k"));
    assertEquals(3.0, body.get("rows"));
    assertEquals(2.0, body.get("cols"));
    assertEquals("2024-05-01T12:00:00Z", body.get("releasedAt"));
    assertArrayEquals(Fixtures.S, doubles(body.get("S")));
    List<?> u = (List<?>) body.get("U");
    assertEquals(3, u.size());
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(new double[] {Fixtures.U[2 * i], Fixtures.U[2 * i + 1]}, doubles(u.get(i)));
    }
    List<?> v = (List<?>) body.get("V");
    assertArrayEquals(new double[] {0.8, -0.6}, doubles(v.get(1)));
    Map<?, ?> utility = (Map<?, ?>) body.get("utility");
    assertEquals("priv2", utility.get("mechanism"));
    assertEquals(0.5, utility.get("noiseFloor"));
    assertEquals(Map.of("mechanism", "priv2"), body.get("metadata"));
  }

  @Test
  void latest_npy_viaAcceptOrFormat_isAZipOfUSV() throws Exception {
    cache.publish(Fixtures.release(2));
    for (HttpResponse<byte[]> r : List.of(
        get(port, "/v1/release/latest", "Accept", "application/x-npy"),
        get(port, "/v1/release/latest?format=npy"))) {
      assertEquals(200, r.statusCode());
      assertEquals("application/zip", r.headers().firstValue("Content-Type").orElseThrow());
      Map<String, byte[]> entries = unzip(r.body());
      assertEquals(List.of("U.npy", "S.npy", "V.npy", "release.json"), List.copyOf(entries.keySet()));
      int[] shape2 = new int[2];
      assertArrayEquals(Fixtures.U, readNpy(entries.get("U.npy"), shape2));
      assertArrayEquals(new int[] {3, 2}, shape2);
      assertArrayEquals(Fixtures.V, readNpy(entries.get("V.npy"), shape2));
      assertArrayEquals(new int[] {2, 2}, shape2);
      int[] shape1 = new int[1];
      assertArrayEquals(Fixtures.S, readNpy(entries.get("S.npy"), shape1));
      assertArrayEquals(new int[] {2}, shape1);
      assertTrue(new String(entries.get("release.json")).contains("\"epoch\": 2"));
    }
    // format=json overrides the Accept header
    assertEquals(2.0, json(get(port, "/v1/release/latest?format=json", "Accept", "application/x-npy"))
        .get("epoch"));
  }

  @Test
  void format_isCaseInsensitive() throws Exception {
    cache.publish(Fixtures.release(2));
    for (String format : List.of("NPY", "Npy", "npy")) {
      HttpResponse<byte[]> r = get(port, "/v1/release/latest?format=" + format);
      assertEquals(200, r.statusCode(), format);
      assertEquals("application/zip", r.headers().firstValue("Content-Type").orElseThrow());
    }
    assertEquals(2.0, json(get(port, "/v1/release/latest?format=JSON")).get("epoch"));
    assertError(get(port, "/v1/release/latest?format=CSV"), 400, "format must be one of json, npy");
  }

  @Test
  void accept_choosesTheRepresentation_byQualityAndSpecificity() throws Exception {
    cache.publish(Fixtures.release(2));
    Map<String, String> expected = new java.util.LinkedHashMap<>();
    expected.put("*/*", "application/json");
    expected.put("application/json", "application/json");
    expected.put("application/*", "application/json");
    expected.put("application/zip", "application/zip");
    expected.put("application/x-npy, */*;q=0.1", "application/zip");
    expected.put("*/*, application/x-npy", "application/zip");
    expected.put("application/x-npy;q=0.5, application/json", "application/json");
    expected.put("application/json;q=0, */*", "application/zip");
    expected.put("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        "application/json");
    for (var e : expected.entrySet()) {
      HttpResponse<byte[]> r = get(port, "/v1/release/latest", "Accept", e.getKey());
      assertEquals(200, r.statusCode(), e.getKey());
      assertEquals(e.getValue(), r.headers().firstValue("Content-Type").orElseThrow(), e.getKey());
      assertEquals("Accept", r.headers().firstValue("Vary").orElseThrow());
    }
  }

  @Test
  void unsupportedAccept_is406InJson_unlessFormatOverridesIt() throws Exception {
    cache.publish(Fixtures.release(2));
    for (String path : List.of("/v1/release/latest", "/v1/status", "/health", "/v1/rows/0")) {
      HttpResponse<byte[]> r = get(port, path, "Accept", "image/png");
      assertError(r, 406, "not acceptable: this route answers application/json");
      assertTrue(text(r).contains("Accept: image/png"), text(r));
    }
    assertError(get(port, "/v1/status", "Accept", "application/json;q=0"), 406, "not acceptable");
    assertError(get(port, "/", "Accept", "application/json"), 406, "this route answers text/html");
    assertEquals(200, get(port, "/", "Accept", "text/html").statusCode());
    assertEquals(200, get(port, "/v1/status", "Accept", "application/json").statusCode());
    assertEquals(200, get(port, "/v1/status", "Accept", "text/plain, */*;q=0.01").statusCode());
    // An explicit format is a request for that representation, whatever Accept says.
    assertEquals(2.0, json(get(port, "/v1/release/latest?format=json", "Accept", "image/png"))
        .get("epoch"));
    // Errors stay JSON whatever the client accepts.
    assertError(get(port, "/nope", "Accept", "image/png"), 404, "no such route");
  }

  private static Map<String, byte[]> unzip(byte[] zip) throws IOException {
    Map<String, byte[]> out = new java.util.LinkedHashMap<>();
    try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
      for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
        out.put(e.getName(), in.readAllBytes());
      }
    }
    return out;
  }

  private double[] readNpy(byte[] bytes, int[] shape) throws IOException {
    Path f = Files.createTempFile(dir, "x", ".npy");
    Files.write(f, bytes);
    return Npy.readDoubles(f, shape);
  }

  @Test
  void range_prefixIsTheLatest_otherRangesComeFromRangeReleases() throws Exception {
    cache.publish(Fixtures.release(4));
    Map<String, Object> prefix = json(get(port, "/v1/release?from=1&to=4"));
    assertEquals(4.0, prefix.get("epoch"));
    assertEquals(Map.of("mechanism", "priv2"), prefix.get("metadata"), "served from the cache");
    Map<String, Object> mid = json(get(port, "/v1/release?from=2&to=3"));
    assertEquals(2.0, mid.get("from"));
    assertEquals(3.0, mid.get("to"));
    assertEquals(3.0, mid.get("epoch"));
    HttpResponse<byte[]> zip = get(port, "/v1/release?from=2&to=3&format=npy");
    assertEquals(List.of("U.npy", "S.npy", "V.npy", "release.json"), List.copyOf(unzip(zip.body()).keySet()));
  }

  @Test
  void range_errors() throws Exception {
    cache.publish(Fixtures.release(4));
    assertError(get(port, "/v1/release?from=1"), 400, "missing parameter to");
    assertError(get(port, "/v1/release?from=x&to=2"), 400, "from must be an integer in [1, 8]. Provided value: x");
    assertError(get(port, "/v1/release?from=0&to=2"), 400, "from must be in [1, 8]. Provided value: 0");
    assertError(get(port, "/v1/release?from=1&to=9"), 400, "to must be in [1, 8]. Provided value: 9");
    assertError(get(port, "/v1/release?from=3&to=2"), 400, "from must be <= to = 2. Provided value: 3");
    assertError(get(port, "/v1/release?from=1&to=5"), 404, "the latest closed epoch is 4");
    assertError(get(port, "/v1/release?from=3&to=4"), 400, "ranges must start at a node boundary");
    HttpResponse<byte[]> unavailable = get(port, "/v1/release?from=2&to=2");
    assertError(unavailable, 503, "tree node [2, 2] was not kept");
    assertEquals(List.of(Integer.toString(PublicApi.RANGE_RETRY_SECONDS)),
        unavailable.headers().allValues("Retry-After"));
    assertEquals(List.of(), get(port, "/v1/release?from=0&to=2").headers().allValues("Retry-After"),
        "only a 503 says when to retry");
    assertError(get(port, "/v1/release?from=1&to=2&format=csv"), 400, "format must be one of json, npy");
    HttpResponse<byte[]> damaged = get(port, "/v1/release?from=4&to=4");
    assertError(damaged, 500, "needs the closed-node file nodes/node-0-3.sketch (epochs 4..4),"
        + " which is damaged (checksum mismatch)");
    assertFalse(text(damaged).contains("internal error"), text(damaged));
  }

  @Test
  void rowsAndCols_areScaledEmbeddings() throws Exception {
    cache.publish(Fixtures.release(4));
    Map<String, Object> row = json(get(port, "/v1/rows/1"));
    assertEquals(4.0, row.get("epoch"));
    assertEquals(1.0, row.get("i"));
    assertArrayEquals(new double[] {0, 1}, doubles(row.get("values"))); // U_1 Σ = (0,1)·diag(3,1)
    Map<String, Object> col = json(get(port, "/v1/cols/0"));
    assertEquals(0.0, col.get("j"));
    assertArrayEquals(new double[] {0.6 * 3, 0.8}, doubles(col.get("values")), 1e-15);
  }

  @Test
  void score_isUSigmaVt() throws Exception {
    cache.publish(Fixtures.release(4));
    Map<String, Object> s = json(get(port, "/v1/score?i=0&j=1"));
    assertEquals(0.0, s.get("i"));
    assertEquals(1.0, s.get("j"));
    assertEquals(3 * 0.8, (Double) s.get("score"), 1e-15);
  }

  @Test
  void indexErrors_are400NamingTheParameter() throws Exception {
    cache.publish(Fixtures.release(4));
    assertError(get(port, "/v1/rows/3"), 400, "i must be in [0, 3). Provided value: 3");
    assertError(get(port, "/v1/rows/-1"), 400, "i must be in [0, 3). Provided value: -1");
    assertError(get(port, "/v1/rows/abc"), 400, "i must be an integer in [0, 3). Provided value: abc");
    assertError(get(port, "/v1/rows/99999999999"), 400, "i must be an integer");
    assertError(get(port, "/v1/cols/2"), 400, "j must be in [0, 2). Provided value: 2");
    assertError(get(port, "/v1/score?i=0"), 400, "missing parameter j");
    assertError(get(port, "/v1/score?i=0&j=0&i=1"), 400, "parameter 'i' given twice");
    assertError(get(port, "/v1/score?i=0&j=0&k=1"), 400, "unknown parameter 'k'");
    assertError(get(port, "/v1/rows/1?x=1"), 400, "unknown parameter 'x'");
  }

  @Test
  void unknownRoutes_are404() throws Exception {
    assertError(get(port, "/nope"), 404, "no such route: /nope");
    assertError(get(port, "/v1/rows"), 404, "no such route");
    assertError(get(port, "/v1/rows/"), 404, "no such route");
    assertError(get(port, "/v1/rows/1/2"), 404, "no such route");
    assertError(get(port, "/v2/release/latest"), 404, "no such route");
  }

  @Test
  void otherMethods_are405_headIsAllowed() throws Exception {
    cache.publish(Fixtures.release(4));
    for (String method : List.of("POST", "PUT", "DELETE", "PATCH")) {
      HttpResponse<byte[]> r = request(port, method, "/v1/release/latest");
      assertError(r, 405, "method " + method + " not allowed");
      assertEquals("GET, HEAD", r.headers().firstValue("Allow").orElseThrow());
    }
    HttpResponse<byte[]> head = request(port, "HEAD", "/v1/release/latest");
    assertEquals(200, head.statusCode());
    assertEquals(0, head.body().length);
    assertEquals(404, request(port, "HEAD", "/nope").statusCode());
  }

  @Test
  void status_reportsEpochsPrivacyAndLatestRelease() throws Exception {
    cache.publish(Fixtures.release(3));
    Map<String, Object> s = json(get(port, "/v1/status"));
    assertEquals(4.0, s.get("epoch"));
    assertEquals(8.0, s.get("epochs"));
    assertEquals(3.0, s.get("latestRelease"));
    assertEquals(1.0, s.get("epsilon"));
    assertEquals(1e-6, s.get("delta"));
    assertEquals("priv2", s.get("mechanism"));
    assertEquals("update", s.get("privacyUnit"));
    assertEquals(false, s.get("exhausted"));
    assertEquals("2024-05-01T12:00:00Z", s.get("lastReleaseTime"));
    assertTrue(((String) s.get("neighbouring")).contains("one update"));
    for (String key : List.of("clip", "message", "rows", "cols", "rank")) {
      assertTrue(s.containsKey(key), key);
    }
  }

  @Test
  void handlerFailure_is500WithoutDetails() throws Exception {
    api.close();
    StatusSource broken = () -> {
      throw new IllegalStateException("secret internals");
    };
    api = PublicApi.start(new InetSocketAddress("127.0.0.1", 0), cache, broken, metrics);
    HttpResponse<byte[]> r = get(api.port(), "/v1/status");
    assertError(r, 500, "internal error");
    assertFalse(text(r).contains("secret internals"));
  }

  @Test
  void largeRelease_isStreamedAndParses() throws Exception {
    int m = 5_000;
    int k = 8;
    double[] u = new double[m * k];
    for (int i = 0; i < k; i++) {
      u[i * k + i] = 1; // orthonormal columns: the first k unit vectors
    }
    double[] s = {8, 7, 6, 5, 4, 3, 2, 1};
    var f = new io.dplrf.release.Factorization(new io.dplrf.sketch.matrix.Dense(m, k, u), s,
        new io.dplrf.sketch.matrix.Dense(k, k, identity(k)));
    cache.publish(new ServedRelease(1, 1, f, Fixtures.utility(), Fixtures.AT, Map.of()));
    HttpResponse<byte[]> r = get(port, "/v1/release/latest");
    assertEquals(200, r.statusCode());
    assertTrue(r.headers().firstValue("Content-Length").isEmpty(), "chunked, not buffered");
    assertEquals(m, ((List<?>) json(r).get("U")).size());
  }

  private static double[] identity(int k) {
    double[] d = new double[k * k];
    for (int i = 0; i < k; i++) {
      d[i * k + i] = 1;
    }
    return d;
  }

  @Test
  void httpTimer_isTaggedByRouteTemplateNeverByIndex() throws Exception {
    cache.publish(Fixtures.release(4));
    get(port, "/v1/rows/1");
    get(port, "/v1/rows/2");
    get(port, "/v1/rows/abc");
    get(port, "/no/such/route/42");
    String scrape = Fixtures.scrapeWith(metrics,
        "dplrf_http_requests_seconds_count{method=\"GET\",route=\"/v1/rows/{i}\",status=\"200\"} 2",
        "route=\"/v1/rows/{i}\",status=\"400\"", "route=\"unmatched\",status=\"404\"");
    assertTrue(scrape.contains("dplrf_http_requests_seconds_count{method=\"GET\",route=\"/v1/rows/{i}\",status=\"200\"} 2"), scrape);
    assertTrue(scrape.contains("route=\"/v1/rows/{i}\",status=\"400\""), scrape);
    assertTrue(scrape.contains("route=\"unmatched\",status=\"404\""), scrape);
    assertFalse(scrape.contains("/v1/rows/1") || scrape.contains("/no/such"), scrape);
  }

  @Test
  void concurrentReaders_seeWholeReleases() throws Exception {
    Map<Integer, Integer> seen = new HashMap<>();
    cache.publish(Fixtures.release(1));
    Thread publisher = new Thread(() -> {
      for (int e = 2; e <= 50; e++) {
        cache.publish(Fixtures.release(e));
      }
    });
    publisher.start();
    for (int n = 0; n < 30; n++) {
      Map<String, Object> body = json(get(port, "/v1/release/latest"));
      int epoch = ((Double) body.get("epoch")).intValue();
      assertEquals((double) epoch, body.get("to"));
      seen.merge(epoch, 1, Integer::sum);
    }
    publisher.join();
    assertFalse(seen.isEmpty());
  }
}
