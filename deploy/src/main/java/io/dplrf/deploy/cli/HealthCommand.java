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
      usage: dplrf health [--url URL | --http-port PORT] [--timeout-ms 3000] [--wait SECONDS]
        URL        default http://127.0.0.1:PORT/health
        PORT       the service's --http-port (default: DPLRF_HTTP_PORT, else 8080)
        --wait S   ask again every second until the service answers or S seconds have
                   passed: for scripts that start 'dplrf serve' and then use it
      exit 0 when the service answers 200 (ok, or degraded: the reasons printed), 1 otherwise
      (the reason on stderr)
      """;

  private static final Set<String> OPTIONS = Set.of("url", "http-port", "timeout-ms", "wait");

  private HealthCommand() {}

  static int run(String[] argv, PrintStream out, PrintStream err, Map<String, String> env)
      throws InterruptedException {
    Args a = Args.parse("health", argv, 1, OPTIONS, Set.of());
    if (a.string("url", null) != null && a.string("http-port", null) != null) {
      throw new Args.UsageException("health: give --url or --http-port, not both");
    }
    String envPort = env.getOrDefault("DPLRF_HTTP_PORT", "");
    int port = a.integer("http-port", envPort.isBlank() ? 8080 : Integer.parseInt(envPort.strip()));
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("http-port must be in 1..65535. Provided value: " + port);
    }
    String url = a.string("url", "http://127.0.0.1:" + port + "/health");
    int timeout = a.integer("timeout-ms", 3000);
    if (timeout <= 0) {
      throw new IllegalArgumentException("timeout-ms must be > 0. Provided value: " + timeout);
    }
    int wait = a.integer("wait", 0);
    if (wait < 0) {
      throw new IllegalArgumentException("wait must be >= 0. Provided value: " + wait);
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
    long deadline = System.nanoTime() + wait * 1_000_000_000L;
    while (true) {
      String failure;
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
        if (status == 200) {
          out.println(describe(new String(bytes, StandardCharsets.UTF_8)) + ": " + url);
          return 0;
        }
        failure = url + " answered " + status;
      } catch (IOException e) {
        failure = url + " unreachable: " + e;
      }
      if (System.nanoTime() >= deadline) {
        err.println("dplrf health: " + failure + (wait > 0 ? " (waited " + wait + " s; is"
            + " 'dplrf serve' running? its log says why it stopped)" : ""));
        return 1;
      }
      Thread.sleep(1000);
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
