package io.dplrf.deploy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HealthCommandTest {
  private HttpServer server;
  private int port;
  private final AtomicInteger startingRequests = new AtomicInteger();

  record Run(int code, String out, String err) {}

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/health", x -> {
      byte[] body = "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8);
      x.sendResponseHeaders(200, body.length);
      x.getResponseBody().write(body);
      x.close();
    });
    server.createContext("/degraded", x -> {
      byte[] body = ("{\"status\": \"degraded\", \"reasons\": [{\"code\": \"broker-unreachable\","
          + " \"message\": \"no answer for 20 s\"}]}").getBytes(StandardCharsets.UTF_8);
      x.sendResponseHeaders(200, body.length);
      x.getResponseBody().write(body);
      x.close();
    });
    server.createContext("/starting", x -> {
      // Unavailable for its first two requests, as a service is while it starts.
      if (startingRequests.incrementAndGet() <= 2) {
        x.sendResponseHeaders(503, -1);
      } else {
        byte[] body = "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8);
        x.sendResponseHeaders(200, body.length);
        x.getResponseBody().write(body);
      }
      x.close();
    });
    server.createContext("/sick", x -> {
      x.sendResponseHeaders(503, -1);
      x.close();
    });
    server.start();
    port = server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static Run run(Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      String[] argv = new String[args.length + 1];
      argv[0] = "health";
      System.arraycopy(args, 0, argv, 1, args.length);
      try {
        code = HealthCommand.run(argv, o, e, env);
      } catch (IllegalArgumentException ex) {
        code = 2; // what Cli maps it to
        e.println(ex.getMessage());
      } catch (InterruptedException ex) {
        throw new AssertionError(ex);
      }
    }
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void healthyService_exitsZero_portFromEnvironment() {
    Run r = run(Map.of("DPLRF_HTTP_PORT", Integer.toString(port)));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("127.0.0.1:" + port + "/health"), r.out());
  }

  @Test
  void degradedService_exitsZero_andPrintsTheReasons() {
    Run r = run(Map.of(), "--url", "http://127.0.0.1:" + port + "/degraded");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("degraded (broker-unreachable: no answer for 20 s): http://"),
        r.out());
    assertTrue(run(Map.of("DPLRF_HTTP_PORT", Integer.toString(port))).out().startsWith("ok: "));
  }

  @Test
  void non200Answer_exitsOne_withTheStatus() {
    Run r = run(Map.of(), "--url", "http://127.0.0.1:" + port + "/sick");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("answered 503"), r.err());
  }

  @Test
  void nothingListening_exitsOne() throws IOException {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    Run r = run(Map.of(), "--url", "http://127.0.0.1:" + closed + "/health", "--timeout-ms", "500");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("unreachable"), r.err());
  }

  @Test
  void httpPortFlag_namesThePort() {
    Run r = run(Map.of("DPLRF_HTTP_PORT", "1"), "--http-port", Integer.toString(port));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("ok: http://127.0.0.1:" + port + "/health"), r.out());
  }

  @Test
  void wait_asksAgainUntilTheServiceAnswers() {
    Run r = run(Map.of(), "--url", "http://127.0.0.1:" + port + "/starting", "--wait", "30");
    assertEquals(0, r.code(), r.err());
    assertEquals(3, startingRequests.get());
    assertEquals("", r.err());
  }

  @Test
  void wait_givesUpAfterItsSeconds_sayingWhere() {
    long start = System.nanoTime();
    Run r = run(Map.of(), "--url", "http://127.0.0.1:" + port + "/sick", "--wait", "1");
    assertEquals(1, r.code());
    assertTrue(System.nanoTime() - start >= 1_000_000_000L, "it waited its second");
    assertTrue(r.err().contains("answered 503 (waited 1 s; is 'dplrf serve' running?"), r.err());
  }

  @Test
  void badUrl_isAUsageError() {
    Run r = run(Map.of(), "--url", "ftp://x/health");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("url must be an http URL"), r.err());
  }

  @Test
  void cliKnowsTheCommand() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = Cli.run(new String[] {"health", "--help"}, new PrintStream(out, true, StandardCharsets.UTF_8),
        System.err);
    assertEquals(0, code);
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("usage: dplrf health"));
  }
}
