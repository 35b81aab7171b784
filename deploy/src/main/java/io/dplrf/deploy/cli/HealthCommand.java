package io.dplrf.deploy.cli;

import io.dplrf.deploy.io.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code dplrf health}: asks a running service's {@code /health} and exits 0 when it answers 200,
 * 1 otherwise. It exists for container health checks: the image has no shell and no curl. A
 * degraded service (still 200: it serves its releases, and a restart would not cure a broker
 * outage) exits 0 too, and the reasons are printed.
 */
final class HealthCommand {
  static final String USAGE = """
      usage: dplrf health [--url URL] [--timeout-ms 3000]
        URL   default http://127.0.0.1:PORT/health, PORT from DPLRF_HTTP_PORT (else 8080)
      exit 0 when the service answers 200 (ok, or degraded: the reasons printed), 1 otherwise
      (the reason on stderr)
      """;

  private static final Set<String> OPTIONS = Set.of("url", "timeout-ms");

  private HealthCommand() {}

  static int run(String[] argv, PrintStream out, PrintStream err, Map<String, String> env) {
    Args a = Args.parse("health", argv, 1, OPTIONS, Set.of());
    String port = env.getOrDefault("DPLRF_HTTP_PORT", "");
    String url = a.string("url", "http://127.0.0.1:" + (port.isBlank() ? "8080" : port.strip()) + "/health");
    int timeout = a.integer("timeout-ms", 3000);
    if (timeout <= 0) {
      throw new IllegalArgumentException("timeout-ms must be > 0. Provided value: " + timeout);
    }
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("url must be an http URL. Provided value: " + url);
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
      throw new IllegalArgumentException("url must be an http URL. Provided value: " + url);
    }
    try {
      HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
      c.setConnectTimeout(timeout);
      c.setReadTimeout(timeout);
      int status = c.getResponseCode();
      byte[] bytes = new byte[0];
      try (InputStream body = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
        if (body != null) {
          bytes = body.readAllBytes();
        }
      }
      if (status != 200) {
        err.println("dplrf health: " + url + " answered " + status);
        return 1;
      }
      out.println(describe(new String(bytes, StandardCharsets.UTF_8)) + ": " + url);
      return 0;
    } catch (IOException e) {
      err.println("dplrf health: " + url + " unreachable: " + e);
      return 1;
    }
  }

  /** "ok", or "degraded (message; message)" from a {@code /health} body; "ok" if it has no status. */
  static String describe(String body) {
    Object parsed;
    try {
      parsed = Json.parse(body);
    } catch (RuntimeException e) {
      return "ok";
    }
    if (!(parsed instanceof Map<?, ?> m) || !"degraded".equals(m.get("status"))) {
      return "ok";
    }
    StringBuilder b = new StringBuilder("degraded (");
    if (m.get("reasons") instanceof List<?> reasons) {
      for (Object r : reasons) {
        if (r instanceof Map<?, ?> reason) {
          b.append(b.length() > 10 ? "; " : "").append(reason.get("code")).append(": ")
              .append(reason.get("message"));
        }
      }
    }
    return b.append(')').toString();
  }
}
