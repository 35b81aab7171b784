package io.dplrf.deploy.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.dplrf.deploy.metrics.Metrics;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
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
 * segment), allows GET and HEAD (or, on routes added with {@link #post}, POST only), optionally checks a bearer token first, parses the query
 * against the route's allowed parameters, turns {@link ApiException}s into JSON errors and
 * anything else into a 500 whose body names no exception, and times every request by route
 * template (never the concrete path).
 */
final class Router implements HttpHandler {
  private static final Logger LOG = LoggerFactory.getLogger(Router.class);
  static final String UNMATCHED = "unmatched";

  interface Handler {
    Response handle(Request request) throws Exception;
  }

  /** Decides whether a request may proceed; returns null if so, else the 401 response. */
  interface Guard {
    Response check(HttpExchange exchange);
  }

  /** A routed request: its path variables and query parameters (each given at most once). */
  record Request(HttpExchange exchange, Map<String, String> path, Map<String, String> query) {
    String header(String name) {
      return exchange.getRequestHeaders().getFirst(name);
    }
  }

  private record Route(String template, String[] segments, Set<String> params, Handler handler,
      boolean post) {}

  private final List<Route> routes = new ArrayList<>();
  private final Metrics metrics;
  private final Guard guard;

  Router(Metrics metrics, Guard guard) {
    this.metrics = metrics;
    this.guard = guard;
  }

  Router route(String template, Set<String> params, Handler handler) {
    routes.add(new Route(template, template.substring(1).split("/", -1), params, handler, false));
    return this;
  }

  /** A route that takes POST only (an action, e.g. an operator's); the body is ignored. */
  Router post(String template, Set<String> params, Handler handler) {
    routes.add(new Route(template, template.substring(1).split("/", -1), params, handler, true));
    return this;
  }

  @Override
  public void handle(HttpExchange exchange) {
    long start = System.nanoTime();
    String method = exchange.getRequestMethod();
    boolean head = "HEAD".equals(method);
    String template = UNMATCHED;
    int status = 500;
    boolean sent = false;
    try {
      Response response;
      try {
        String path = exchange.getRequestURI().getRawPath();
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
          Map<String, String> query = query(exchange.getRequestURI().getRawQuery(), route.params());
          response = route.handler().handle(new Request(exchange, vars, query));
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
      status = response.status;
      sent = true;
      send(exchange, response, head);
    } catch (IOException e) {
      // The client went away, or the body writer failed after the headers were sent: nothing
      // more can be said on this connection.
      LOG.debug("{} {}: response aborted: {}", method, template, e.toString());
    } catch (RuntimeException e) {
      LOG.error("{} {}: response aborted", method, template, e);
      if (!sent) {
        status = 500;
      }
    } finally {
      exchange.close();
      metrics.httpRequest(template, method, status, System.nanoTime() - start);
    }
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

  private static void send(HttpExchange exchange, Response r, boolean head) throws IOException {
    var h = exchange.getResponseHeaders();
    h.set("Content-Type", r.contentType);
    h.set("Cache-Control", "no-cache");
    h.set("X-Content-Type-Options", "nosniff");
    r.headers.forEach(h::set);
    if (head) {
      exchange.sendResponseHeaders(r.status, -1);
    } else if (r.body != null) {
      exchange.sendResponseHeaders(r.status, r.body.length == 0 ? -1 : r.body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(r.body);
      }
    } else {
      exchange.sendResponseHeaders(r.status, 0); // chunked
      try (OutputStream out = new BufferedOutputStream(exchange.getResponseBody(), 1 << 16)) {
        r.writer.write(out);
      }
    }
  }
}
