package io.dplrf.deploy.http;

import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.release.Factorization;
import io.dplrf.release.UtilityReport;
import io.dplrf.sketch.matrix.Dense;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** A fixed 3×2 rank-2 factorization and a small HTTP client. */
final class Fixtures {
  static final double[] U = {1, 0, 0, 1, 0, 0}; // 3×2, orthonormal columns
  static final double[] S = {3, 1};
  static final double[] V = {0.6, 0.8, 0.8, -0.6}; // 2×2, orthonormal
  static final Instant AT = Instant.parse("2024-05-01T12:00:00Z");

  private Fixtures() {}

  static Factorization factorization() {
    return new Factorization(new Dense(3, 2, U.clone()), S.clone(), new Dense(2, 2, V.clone()));
  }

  static UtilityReport utility() {
    return new UtilityReport("priv2", 2, List.of(),
        List.of(new UtilityReport.FloorTerm("Y = A Phi + N1", 0.5, "sigma (sqrt p + sqrt q)")),
        S.clone(), 0.7, "sqrt(k) * floor", List.of());
  }

  static ServedRelease release(int epoch) {
    return new ServedRelease(1, epoch, factorization(), utility(), AT, Map.of("mechanism", "priv2"));
  }

  static Status status() {
    return new Status(4, 8, 1.0, 1e-6, "priv2", "one-entry", "streams differing in one update, |delta| <= C",
        1.0, "update", false, "", AT, 3, 2, 2);
  }

  static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  static HttpResponse<byte[]> request(int port, String method, String path, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10))
        .method(method, HttpRequest.BodyPublishers.noBody());
    for (int h = 0; h < headers.length; h += 2) {
      b.header(headers[h], headers[h + 1]);
    }
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  static HttpResponse<byte[]> get(int port, String path, String... headers)
      throws IOException, InterruptedException {
    return request(port, "GET", path, headers);
  }

  static String text(HttpResponse<byte[]> r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }

  /**
   * The scrape once it contains every one of {@code series}, or the last scrape after 60 s (a
   * bound on a hang, not a latency target). A request is timed when its answer has been sent, so
   * the client can read the answer a moment before the server records it.
   */
  static String scrapeWith(Metrics metrics, String... series) throws InterruptedException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    String scrape = metrics.scrape();
    while (!List.of(series).stream().allMatch(scrape::contains) && System.nanoTime() < deadline) {
      Thread.sleep(10);
      scrape = metrics.scrape();
    }
    return scrape;
  }
}
