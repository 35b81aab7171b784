package io.dplrf.deploy.http;

import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.release.Factorization;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The public HTTP API (docs/user-guide.md, "HTTP"), GET and HEAD only:
 *
 * <pre>
 * GET /v1/release/latest            the latest release: JSON, or with Accept: application/x-npy
 *                                   (or ?format=npy) a zip of U.npy, S.npy, V.npy, release.json
 * GET /v1/release?from=s&amp;to=e       the release of epochs [s, e], same shapes
 * GET /v1/rows/{i}                  {"epoch", "i", "k", "values": U_i Σ}
 * GET /v1/cols/{j}                  {"epoch", "j", "k", "values": V_j Σ}
 * GET /v1/score?i=&amp;j=               {"epoch", "i", "j", "score": U_i Σ V_jᵀ}
 * GET /v1/status                    what the mode serves and how far it is (epochs, or
 *                                   completion's fits), privacy parameters and relation,
 *                                   exhaustion ({@link Status#json})
 * GET /v1/local/protocol            mode local only ({@link ModeRoutes#localProtocol})
 * GET /v1/completion, GET /v1/users/{id}/predictions?n=N
 *                                   mode completion only ({@link CompletionRoutes})
 * GET /health                       {"status": "ok", "reasons": []}, or "degraded" with reasons
 *                                   [{"code", "message"}] (still 200: the process serves)
 * GET /                             the status page (HTML, {@link StatusPage}): the same, the
 *                                   release's age and singular values against the noise floor
 * </pre>
 *
 * Errors are {@code {"error": "..."}}: 400 for a bad, missing or out-of-range parameter (the
 * message names it), 404 for an unknown route or before the first release, 405 for other methods,
 * 503 when a range release is unavailable, 500 naming the damaged file when a range release needs
 * one, 500 without details otherwise. Every answer about the
 * matrix comes from one release snapshot, named by its {@code epoch}.
 */
public final class PublicApi implements AutoCloseable {
  /** Retry-After of a range release refused while another release is computed (seconds). */
  static final int RANGE_RETRY_SECONDS = 5;
  private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]{1,10}");
  /**
   * {@code /health} while the listener runs: a status and the list of reasons behind any other
   * status (none while "ok"), so that conditions can be added without changing the shape.
   */
  /** What a release route answers, preferred first: JSON, or the zip of .npy files. */
  private static final List<String> RELEASE_TYPES = List.of(Response.JSON, ReleaseWriter.NPY,
      ReleaseWriter.ZIP);

  private final Server server;
  private final ReleaseCache cache;
  private final StatusSource status;

  private PublicApi(InetSocketAddress address, ReleaseCache cache, StatusSource status,
      Metrics metrics, ModeRoutes mode) throws IOException {
    this.cache = Objects.requireNonNull(cache, "cache");
    this.status = Objects.requireNonNull(status, "status");
    Router router = new Router(metrics, null)
        .route("/v1/release/latest", Set.of("format"), RELEASE_TYPES, this::latest)
        .route("/v1/release", Set.of("from", "to", "format"), RELEASE_TYPES, this::range)
        .route("/v1/rows/{i}", Set.of(), r -> embedding(r, "i", true))
        .route("/v1/cols/{j}", Set.of(), r -> embedding(r, "j", false))
        .route("/v1/score", Set.of("i", "j"), this::score)
        .route("/v1/status", Set.of(), r -> Response.json(200, status(this.status.status())))
        .route("/health", Set.of(), r -> Response.json(200, health(this.status.health())))
        .route("/", Set.of(), List.of(StatusPage.MEDIA_TYPE), r -> statusPage());
    mode.addPublic(router);
    server = new Server("dplrf-http", address, HttpLimits.PUBLIC, router);
  }

  /** Starts serving on {@code address} (port 0 picks a free port), no mode routes. */
  public static PublicApi start(InetSocketAddress address, ReleaseCache cache, StatusSource status,
      Metrics metrics) throws IOException {
    return start(address, cache, status, metrics, ModeRoutes.none());
  }

  /** As above, plus the routes of the service's mode. */
  public static PublicApi start(InetSocketAddress address, ReleaseCache cache, StatusSource status,
      Metrics metrics, ModeRoutes mode) throws IOException {
    return new PublicApi(address, cache, status, Objects.requireNonNull(metrics, "metrics"),
        Objects.requireNonNull(mode, "mode"));
  }

  /** The bound address, with the actual port. */
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

  // ---- handlers -----------------------------------------------------------------------------

  private ServedRelease latestOr404() {
    return cache.latest().orElseThrow(() -> ApiException.notFound(cache.whyNone()));
  }

  private Response latest(Router.Request r) {
    return release(latestOr404(), r);
  }

  private Response range(Router.Request r) {
    ServedRelease latest = latestOr404();
    int epochs = status.status().epochs().orElse(latest.epoch());
    int from = integer(r.query(), "from", 1, epochs);
    int to = integer(r.query(), "to", 1, epochs);
    if (from > to) {
      throw ApiException.badRequest("from must be <= to = " + to + ". Provided value: " + from);
    }
    if (to > latest.epoch()) {
      throw ApiException.notFound("no release for epochs [" + from + ", " + to
          + "] yet: the latest closed epoch is " + latest.epoch());
    }
    if (from == 1 && to == latest.epoch()) {
      return release(latest, r);
    }
    RangeReleases ranges = cache.ranges().orElseThrow(() -> ApiException.notFound(
        "range releases are not offered by this service; [1, " + latest.epoch() + "] is"));
    ServedRelease release;
    try {
      release = ranges.release(from, to);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(String.valueOf(e.getMessage()));
    } catch (IllegalStateException e) {
      throw ApiException.unavailable("range release unavailable: " + e.getMessage(),
          RANGE_RETRY_SECONDS);
    } catch (DamagedStateException e) {
      throw ApiException.serverError(e.getMessage());
    }
    return release(release, r);
  }

  private static Response release(ServedRelease release, Router.Request r) {
    String format = r.query().get("format");
    boolean npy;
    if (format == null) {
      npy = !Response.JSON.equals(r.mediaType());
    } else if (format.equalsIgnoreCase("npy") || format.equalsIgnoreCase("json")) {
      npy = format.equalsIgnoreCase("npy");
    } else {
      throw ApiException.badRequest("format must be one of json, npy. Provided value: "
          + Router.truncate(format));
    }
    Response out = npy
        ? Response.stream(200, ReleaseWriter.ZIP, o -> ReleaseWriter.npyZip(release, o))
            .header("Content-Disposition", "attachment; filename=\"dplrf-release-" + release.from()
                + "-" + release.to() + ".zip\"")
        : Response.stream(200, Response.JSON, o -> ReleaseWriter.json(release, o));
    return out.header("X-Dplrf-Epoch", Integer.toString(release.epoch()));
  }

  private Response embedding(Router.Request r, String name, boolean row) {
    ServedRelease release = latestOr404();
    Factorization f = release.factorization();
    int index = index(name, r.path().get(name), row ? f.rows() : f.cols());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("epoch", release.epoch());
    out.put(name, index);
    out.put("k", f.k());
    out.put("values", row ? f.row(index) : f.col(index));
    return Response.json(200, out);
  }

  private Response score(Router.Request r) {
    ServedRelease release = latestOr404();
    Factorization f = release.factorization();
    int i = index("i", required(r.query(), "i"), f.rows());
    int j = index("j", required(r.query(), "j"), f.cols());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("epoch", release.epoch());
    out.put("i", i);
    out.put("j", j);
    out.put("score", f.score(i, j));
    return Response.json(200, out);
  }

  private Response statusPage() {
    String html = StatusPage.render(status.status(), cache.latest(), Instant.now());
    return Response.bytes(200, StatusPage.CONTENT_TYPE, html.getBytes(StandardCharsets.UTF_8))
        .header("Content-Security-Policy", StatusPage.CSP)
        .header("X-Content-Type-Options", "nosniff")
        .header("Cache-Control", "no-store");
  }

  /** The mode's status ({@link Status#json}), then {@code health}. */
  private Map<String, Object> status(Status s) {
    Map<String, Object> out = s.json(cache.latest());
    out.put("health", health(this.status.health()));
    return out;
  }

  /** {@code {"status": "ok" | "degraded", "reasons": [{"code", "message"}, ...]}}. */
  static Map<String, Object> health(Health h) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("status", h.status());
    out.put("reasons", h.reasons().stream().map(r -> {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("code", r.code());
      m.put("message", r.message());
      return m;
    }).toList());
    return out;
  }

  // ---- parameters ---------------------------------------------------------------------------

  private static String required(Map<String, String> query, String name) {
    String v = query.get(name);
    if (v == null) {
      throw ApiException.badRequest("missing parameter " + name);
    }
    return v;
  }

  /** A 0-based index in [0, bound). */
  static int index(String name, String raw, int bound) {
    if (!INTEGER.matcher(raw).matches()) {
      throw ApiException.badRequest(name + " must be an integer in [0, " + bound
          + "). Provided value: " + Router.truncate(raw));
    }
    long v = Long.parseLong(raw);
    if (v < 0 || v >= bound) {
      throw ApiException.badRequest(name + " must be in [0, " + bound + "). Provided value: " + raw);
    }
    return (int) v;
  }

  /** An epoch in [lo, hi]. */
  private static int integer(Map<String, String> query, String name, int lo, int hi) {
    String raw = required(query, name);
    if (!INTEGER.matcher(raw).matches()) {
      throw ApiException.badRequest(name + " must be an integer in [" + lo + ", " + hi
          + "]. Provided value: " + Router.truncate(raw));
    }
    long v = Long.parseLong(raw);
    if (v < lo || v > hi) {
      throw ApiException.badRequest(name + " must be in [" + lo + ", " + hi + "]. Provided value: " + raw);
    }
    return (int) v;
  }
}
