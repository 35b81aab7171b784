package io.dplrf.deploy.http;

import static io.dplrf.deploy.http.Fixtures.get;
import static io.dplrf.deploy.http.Fixtures.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.io.Json;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.release.Factorization;
import io.dplrf.sketch.matrix.Dense;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The limits of {@link HttpLimits} as a client meets them on a real socket: oversized request
 * lines, headers and bodies, malformed URIs, downloaders that stop reading — each answered in
 * JSON, and none of them taking {@code /health} down.
 */
class HttpLimitsTest {
  private Metrics metrics;
  private ReleaseCache cache;
  private PublicApi api;
  private int port;

  @BeforeEach
  void start() throws IOException {
    metrics = new Metrics();
    cache = new ReleaseCache();
    cache.publish(Fixtures.release(4));
    api = PublicApi.start(new InetSocketAddress("127.0.0.1", 0), cache, Fixtures::status, metrics);
    port = api.port();
  }

  @AfterEach
  void stop() {
    api.close();
    metrics.close();
  }

  private static String error(RawHttp.Answer a) {
    assertTrue(a.headers().getOrDefault("content-type", "").startsWith("application/json"),
        "JSON error: " + a);
    Map<?, ?> body = (Map<?, ?>) Json.parse(a.body());
    assertEquals(List.of("error"), List.copyOf(body.keySet()), a.body());
    assertFalse(a.body().contains("Exception") || a.body().contains("\tat "), a.body());
    return (String) body.get("error");
  }

  @Test
  void requestLineOfOneMegabyte_is414InJson_notAReset() throws Exception {
    String request = "GET /v1/status?x=" + "a".repeat(1 << 20) + " HTTP/1.1\r\nHost: x\r\n\r\n";
    RawHttp.Answer a = RawHttp.send(port, request);
    assertEquals(414, a.status(), a.toString());
    assertEquals("request line too long: the request line and headers may take at most "
        + HttpLimits.PUBLIC.maxHeaderBytes() + " bytes", error(a));
    assertEquals(200, get(port, "/health").statusCode());
  }

  @Test
  void headersBeyondTheLimit_are431InJson() throws Exception {
    StringBuilder request = new StringBuilder("GET /v1/status HTTP/1.1\r\nHost: x\r\n");
    for (int h = 0; h < 64; h++) {
      request.append("X-Filler-").append(h).append(": ").append("b".repeat(1000)).append("\r\n");
    }
    RawHttp.Answer a = RawHttp.send(port, request.append("\r\n").toString());
    assertEquals(431, a.status(), a.toString());
    assertTrue(error(a).startsWith("request headers too large"), a.body());
  }

  @Test
  void malformedPercentEncoding_inQueryOrPath_is400InJson() throws Exception {
    RawHttp.Answer query = RawHttp.send(port,
        "GET /v1/score?i=%zz&j=0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertEquals(400, query.status(), query.toString());
    assertEquals("malformed percent-encoding in '%zz'", error(query));
    RawHttp.Answer path = RawHttp.send(port,
        "GET /v1/rows/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertEquals(400, path.status(), path.toString());
    assertTrue(error(path).startsWith("bad request"), path.body());
  }

  @Test
  void garbageRequestLine_is400InJson() throws Exception {
    RawHttp.Answer a = RawHttp.send(port, "NOT HTTP AT ALL\r\n\r\n");
    assertEquals(400, a.status(), a.toString());
    assertTrue(error(a).startsWith("bad request"), a.body());
  }

  @Test
  void declaredBodyBeyondTheLimit_is413InJson_andASmallBodyIsIgnored() throws Exception {
    long limit = HttpLimits.PUBLIC.maxBodyBytes();
    RawHttp.Answer big = RawHttp.send(port, "POST /v1/status HTTP/1.1\r\nHost: x\r\n"
        + "Content-Length: " + (limit + 1) + "\r\nConnection: close\r\n\r\n");
    assertEquals(413, big.status(), big.toString());
    assertEquals("request body too large: at most " + limit + " bytes (no route reads a body)",
        error(big));
    RawHttp.Answer small = RawHttp.send(port, "POST /v1/status HTTP/1.1\r\nHost: x\r\n"
        + "Content-Length: 2\r\nConnection: close\r\n\r\n{}");
    assertEquals(405, small.status(), small.toString());
    assertTrue(error(small).startsWith("method POST not allowed"), small.body());
  }

  /**
   * Downloaders that stop reading hold a thread each (a streamed body blocks while the socket's
   * buffers are full), but only {@link HttpLimits#streams} of them: the next download is refused
   * with 503 and Retry-After, /health and /v1/status still answer, and the permits come back when
   * the downloaders go.
   */
  @Test
  void stalledDownloads_takeOnlyTheirPermits_thenA503() throws Exception {
    // The body must outgrow every buffer between the handler and the stalled reader, or the
    // handler finishes and returns its permit: 200,000 rows of long decimals are about 18 MB of
    // JSON, against a loopback send buffer that autotunes up to tcp_wmem's maximum (4 MiB by
    // default, read from the kernel: a host tuned higher gets proportionally more rows) and a
    // receive buffer pinned at 4 KiB before the connection opens.
    int m = 200_000 * (int) Math.max(1, (sendBufferMax() + FOUR_MIB - 1) / FOUR_MIB);
    int k = 8;
    double[] u = new double[m * k];
    for (int i = 0; i < u.length; i++) {
      u[i] = (i % 7) * 0.123456789;
    }
    double[] s = {8, 7, 6, 5, 4, 3, 2, 1};
    double[] v = new double[k * k];
    for (int i = 0; i < k; i++) {
      v[i * k + i] = 1;
    }
    Factorization f = new Factorization(new Dense(m, k, u), s, new Dense(k, k, v));
    cache.publish(new ServedRelease(1, 5, f, Fixtures.utility(), Fixtures.AT, Map.of()));
    int permits = HttpLimits.PUBLIC.streams();
    List<Socket> stalled = new ArrayList<>();
    try {
      for (int d = 0; d < permits; d++) {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(4096); // before connect, so the window scale is small too
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.getOutputStream().write(("GET /v1/release/latest HTTP/1.1\r\nHost: x\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
        InputStream in = socket.getInputStream();
        socket.setSoTimeout(10_000);
        assertTrue(new String(in.readNBytes(12), StandardCharsets.US_ASCII).endsWith("200"));
        stalled.add(socket); // read no further: the server's write blocks
      }
      HttpResponse<byte[]> refused = get(port, "/v1/release/latest");
      assertEquals(503, refused.statusCode(), text(refused));
      assertEquals(List.of(Integer.toString(Server.STREAM_RETRY_SECONDS)),
          refused.headers().allValues("Retry-After"));
      assertTrue(text(refused).contains("too many release downloads in progress"), text(refused));
      for (String path : List.of("/health", "/v1/status", "/v1/rows/0", "/")) {
        assertEquals(200, get(port, path).statusCode(), path);
      }
    } finally {
      for (Socket socket : stalled) {
        socket.close();
      }
    }
    long deadline = System.nanoTime() + 60_000_000_000L; // bounds a hang only
    int status;
    do {
      Thread.sleep(50);
      status = get(port, "/v1/release/latest").statusCode();
    } while (status != 200 && System.nanoTime() < deadline);
    assertEquals(200, status, "the permits are returned when the stalled downloaders go");
  }

  private static final long FOUR_MIB = 4L << 20;

  /** The most a TCP send buffer autotunes to (tcp_wmem's third field); 4 MiB if unreadable. */
  private static long sendBufferMax() {
    try {
      String[] f = java.nio.file.Files.readString(java.nio.file.Path.of(
          "/proc/sys/net/ipv4/tcp_wmem")).trim().split("\\s+");
      return Long.parseLong(f[2]);
    } catch (IOException | RuntimeException e) {
      return FOUR_MIB;
    }
  }
}
