package io.dplrf.deploy.http;

import io.dplrf.deploy.metrics.Metrics;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes requests by path template ({@code /v1/rows/{i}}: a {@code {name}} matches one non-empty
 * segment), allows GET and HEAD (or, on routes added with {@link #post}, POST only), optionally
 * checks a bearer token first, negotiates the response's media type against {@code Accept} (406
 * when the client accepts none the route produces; a {@code format} query parameter, on a route
 * that takes one, overrides {@code Accept}), parses the query against the route's allowed
 * parameters, turns {@link ApiException}s into JSON errors and anything else into a 500 whose body
 * names no exception, and times every request by route template (never the concrete path).
 *
 * <p>Knows nothing of the transport: {@link Server} hands it an {@link Incoming} and sends the
 * {@link Outcome}. Thread-safe once its routes are added.
 */
final class Router {
  private static final Logger LOG = LoggerFactory.getLogger(Router.class);
  static final String UNMATCHED = "unmatched";
  /** What a route produces unless it says otherwise. */
  private static final List<String> JSON_ONLY = List.of(Response.JSON);

  interface Handler {
    Response handle(Request request) throws Exception;
  }

  /** Decides whether a request may proceed; returns null if so, else the 401 response. */
  interface Guard {
    Response check(Incoming request);
  }

  /** What the router reads of a request; implemented by the transport. */
  interface Incoming {
    String method();

    /** The path as sent, still percent-encoded, without the query. */
    String rawPath();

    /** The query as sent, still percent-encoded; null if there is none. */
    String rawQuery();

    /** The values of header {@code name} (case-insensitive) joined by ", "; null if absent. */
    String header(String name);
  }

  /**
   * A routed request: its path variables, query parameters (each given at most once) and the
   * media type negotiated from the route's types and {@code Accept} (null when {@code Accept}
   * allows none of them and a {@code format} parameter overrides it).
   */
  record Request(Incoming incoming, Map<String, String> path, Map<String, String> query,
      String mediaType) {
    String header(String name) {
      return incoming.header(name);
    }
  }

  /** The answer to one request and the route template it is timed under. */
  record Outcome(String template, Response response) {}

  private record Route(String template, String[] segments, Set<String> params,
      List<String> produces, Handler handler, boolean post) {}

  private final List<Route> routes = new ArrayList<>();
  private final Metrics metrics;
  private final Guard guard;

  Router(Metrics metrics, Guard guard) {
    this.metrics = metrics;
    this.guard = guard;
  }

  /** A GET (and HEAD) route answering JSON. */
  Router route(String template, Set<String> params, Handler handler) {
    return route(template, params, JSON_ONLY, handler);
  }

  /**
   * A GET (and HEAD) route answering one of {@code produces} (lower-case {@code type/subtype},
   * preferred first), as negotiated with {@code Accept}.
   */
  Router route(String template, Set<String> params, List<String> produces, Handler handler) {
    routes.add(new Route(template, template.substring(1).split("/", -1), params,
        List.copyOf(produces), handler, false));
    return this;
  }

  /** A route that takes POST only (an action, e.g. an operator's); the body is ignored. */
  Router post(String template, Set<String> params, Handler handler) {
    routes.add(new Route(template, template.substring(1).split("/", -1), params, JSON_ONLY,
        handler, true));
    return this;
  }

  /** Routes one request; never throws. */
  Outcome dispatch(Incoming exchange) {
    String method = exchange.method();
    boolean head = "HEAD".equals(method);
    String template = UNMATCHED;
    Response response;
    try {
      String path = exchange.rawPath();
      Map<String, String> vars = new HashMap<>();
      Route route = match(path, vars);
      template = route == null ? UNMATCHED : route.template();
      response = guard == null ? null : guard.check(exchange);
      if (response != null) {
        // unauthenticated: say nothing about routes or methods
      } else if (route == null) {
        response = Response.error(404, "no such route: " + truncate(path));
      } else if (route.post() && !"POST".equals(method)) {
        response = Response.error(405, "method " + truncate(method) + " not allowed: use POST")
            .header("Allow", "POST");
      } else if (!route.post() && !head && !"GET".equals(method)) {
        response = Response.error(405, "method " + truncate(method) + " not allowed: use GET or HEAD")
            .header("Allow", "GET, HEAD");
      } else {
        Map<String, String> query = query(exchange.rawQuery(), route.params());
        String accept = exchange.header("Accept");
        String mediaType = Accept.best(accept, route.produces());
        if (mediaType == null && !query.containsKey("format")) {
          response = Response.error(406, "not acceptable: this route answers "
              + String.join(" or ", route.produces()) + ", and Accept allows none of them"
              + " (Accept: " + truncate(accept) + ")");
        } else {
          response = route.handler().handle(new Request(exchange, vars, query, mediaType));
        }
        if (route.produces().size() > 1) {
          response.header("Vary", "Accept");
        }
      }
    } catch (ApiException e) {
      response = Response.error(e.status, e.getMessage());
      if (e.retryAfterSeconds > 0) {
        response = response.header("Retry-After", Integer.toString(e.retryAfterSeconds));
      }
    } catch (Exception e) {
      LOG.error("{} {} failed", method, template, e);
      response = Response.error(500, "internal error");
    }
    return new Outcome(template, response);
  }

  /** Times a request once its response is sent (or has failed: status as sent, else 500). */
  void timed(String template, String method, int status, long nanos) {
    metrics.httpRequest(template, method, status, nanos);
  }

  private Route match(String path, Map<String, String> vars) {
    if (!path.startsWith("/")) {
      return null;
    }
    String[] parts = path.substring(1).split("/", -1);
    for (Route r : routes) {
      if (r.segments().length != parts.length) {
        continue;
      }
      vars.clear();
      boolean ok = true;
      for (int s = 0; s < parts.length && ok; s++) {
        String seg = r.segments()[s];
        if (seg.startsWith("{") && seg.endsWith("}")) {
          ok = !parts[s].isEmpty();
          vars.put(seg.substring(1, seg.length() - 1), decode(parts[s]));
        } else {
          ok = seg.equals(parts[s]);
        }
      }
      if (ok) {
        return r;
      }
    }
    return null;
  }

  private static Map<String, String> query(String raw, Set<String> allowed) {
    Map<String, String> out = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      if (!allowed.contains(name)) {
        throw ApiException.badRequest("unknown parameter '" + truncate(name) + "'"
            + (allowed.isEmpty() ? ": this route takes none" : "; allowed: " + String.join(", ", allowed)));
      }
      if (out.put(name, value) != null) {
        throw ApiException.badRequest("parameter '" + name + "' given twice");
      }
    }
    return out;
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("malformed percent-encoding in '" + truncate(s) + "'");
    }
  }

  static String truncate(String s) {
    return s.length() <= 100 ? s : s.substring(0, 100) + "...";
  }
}
