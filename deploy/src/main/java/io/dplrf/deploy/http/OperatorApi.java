package io.dplrf.deploy.http;

import io.dplrf.deploy.metrics.Metrics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The operator HTTP API, on its own port: {@code GET /metrics} (Prometheus text format 0.0.4)
 * and {@code GET /admin/ingest} (exact ingestion counts and checksum, JSON), and in mode
 * completion {@code POST /admin/completion/run} and {@code POST /admin/users/{id}/token}
 * ({@link CompletionRoutes}). The GET endpoints expose exact,
 * <b>non-private</b> numbers. With an admin token configured every request must carry
 * {@code Authorization: Bearer <token>}, else 401 (before any routing, so an unauthenticated
 * client learns nothing about routes); the comparison is constant-time over SHA-256 digests, so
 * neither content nor length leaks through timing. Without a token the endpoints are open: bind
 * them to loopback.
 */
public final class OperatorApi implements AutoCloseable {
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final Server server;

  private OperatorApi(InetSocketAddress address, Metrics metrics, IngestStatsSource ingest,
      Optional<String> adminToken, ModeRoutes mode) throws IOException {
    Objects.requireNonNull(ingest, "ingest");
    Router.Guard guard = adminToken.map(OperatorApi::bearer).orElse(null);
    Router router = new Router(metrics, guard)
        .route("/metrics", Set.of(), List.of("text/plain"), r -> Response.bytes(200, PROMETHEUS_TEXT,
            metrics.scrape().getBytes(StandardCharsets.UTF_8)))
        .route("/admin/ingest", Set.of(), r -> Response.json(200, ingest.ingestStats()));
    mode.addOperator(router);
    server = new Server("dplrf-operator", address, HttpLimits.OPERATOR, router);
  }

  /**
   * Starts serving on {@code address} (port 0 picks a free port).
   *
   * @param adminToken the bearer token; empty leaves the endpoints open
   */
  public static OperatorApi start(InetSocketAddress address, Metrics metrics,
      IngestStatsSource ingest, Optional<String> adminToken) throws IOException {
    return start(address, metrics, ingest, adminToken, ModeRoutes.none());
  }

  /** As above, plus the operator routes of the service's mode. */
  public static OperatorApi start(InetSocketAddress address, Metrics metrics,
      IngestStatsSource ingest, Optional<String> adminToken, ModeRoutes mode) throws IOException {
    return new OperatorApi(address, Objects.requireNonNull(metrics, "metrics"), ingest, adminToken,
        Objects.requireNonNull(mode, "mode"));
  }

  public InetSocketAddress address() {
    return server.address();
  }

  public int port() {
    return address().getPort();
  }

  @Override
  public void close() {
    server.close();
  }

  private static Router.Guard bearer(String token) {
    if (token.isEmpty()) {
      throw new IllegalArgumentException("admin token must not be empty");
    }
    byte[] expected = sha256(token);
    return request -> {
      String auth = request.header("Authorization");
      String message;
      if (auth == null || !auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
        message = "missing bearer token: send 'Authorization: Bearer <admin-token>'";
      } else if (!MessageDigest.isEqual(expected, sha256(auth.substring(7).trim()))) {
        message = "invalid bearer token";
      } else {
        return null;
      }
      return Response.error(401, message)
          .header("WWW-Authenticate", "Bearer realm=\"dplrf-operator\"");
    };
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }
}
