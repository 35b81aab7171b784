package io.dplrf.deploy.http;

import io.dplrf.deploy.metrics.Metrics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The operator HTTP API, on its own port: {@code GET /metrics} (Prometheus text format 0.0.4),
 * {@code GET /admin/ingest} (exact ingestion counts and checksum, JSON), {@code POST
 * /admin/close-epoch} (close the open epoch now: 202 {@code {"epoch": e, ...}} once its close has
 * begun; 409 with the reason when it cannot be closed — epochs cut by the clock, an empty epoch,
 * all T closed, ingest not consuming; 503 if the loop does not take the request within {@value
 * #CLOSE_WAIT_SECONDS} s), and in mode completion {@code POST /admin/completion/run} and {@code
 * POST /admin/users/{id}/token} ({@link CompletionRoutes}). The GET endpoints expose exact,
 * <b>non-private</b> numbers. With an admin token configured every request must carry
 * {@code Authorization: Bearer <token>}, else 401 (before any routing, so an unauthenticated
 * client learns nothing about routes); the comparison is constant-time over SHA-256 digests, so
 * neither content nor length leaks through timing. Without a token the endpoints are open: bind
 * them to loopback.
 */
public final class OperatorApi implements AutoCloseable {
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
  /** How long {@code POST /admin/close-epoch} waits for the ingest loop to take it. */
  static final int CLOSE_WAIT_SECONDS = 5;

  private final Server server;

  private OperatorApi(InetSocketAddress address, Metrics metrics, IngestStatsSource ingest,
      Optional<String> adminToken, ModeRoutes mode, EpochCloseAction closeEpoch)
      throws IOException {
    Objects.requireNonNull(ingest, "ingest");
    Router.Guard guard = adminToken.map(OperatorApi::bearer).orElse(null);
    Router router = new Router(metrics, guard)
        .route("/metrics", Set.of(), List.of("text/plain"), r -> Response.bytes(200, PROMETHEUS_TEXT,
            metrics.scrape().getBytes(StandardCharsets.UTF_8)))
        .route("/admin/ingest", Set.of(), r -> Response.json(200, ingest.ingestStats()));
    if (closeEpoch != null) {
      router.post("/admin/close-epoch", Set.of(), r -> closeEpoch(closeEpoch));
    }
    mode.addOperator(router);
    server = new Server("dplrf-operator", address, HttpLimits.OPERATOR, router);
  }

  /**
   * Closes the open epoch at the ingest loop's next record boundary (an operator's action:
   * docs/privacy/epoch-boundaries.md says when it keeps the epoch cut public).
   */
  @FunctionalInterface
  public interface EpochCloseAction {
    /**
     * Hands the request to the loop: completes with the number of the epoch whose close has
     * begun, or with an {@link IllegalStateException} saying why it cannot be closed.
     */
    CompletableFuture<Integer> closeEpoch();
  }

  private static Response closeEpoch(EpochCloseAction action) throws InterruptedException {
    int epoch;
    try {
      epoch = action.closeEpoch().get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IllegalStateException refused) {
        throw new ApiException(409, refused.getMessage());
      }
      throw new IllegalStateException("closing the epoch failed", e.getCause());
    } catch (TimeoutException e) {
      throw ApiException.unavailable("the ingest loop did not take the request within "
          + CLOSE_WAIT_SECONDS + " s (it is waiting for an earlier close or a snapshot); retry",
          CLOSE_WAIT_SECONDS);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("epoch", epoch);
    out.put("message", "epoch " + epoch + " is closing; its release follows (GET /v1/status)");
    return Response.json(202, out);
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
    return start(address, metrics, ingest, adminToken, mode, null);
  }

  /** As above, plus {@code POST /admin/close-epoch} when {@code closeEpoch} is not null. */
  public static OperatorApi start(InetSocketAddress address, Metrics metrics,
      IngestStatsSource ingest, Optional<String> adminToken, ModeRoutes mode,
      EpochCloseAction closeEpoch) throws IOException {
    return new OperatorApi(address, Objects.requireNonNull(metrics, "metrics"), ingest, adminToken,
        Objects.requireNonNull(mode, "mode"), closeEpoch);
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
