package io.dplrf.bench;

import io.dplrf.deploy.http.OperatorApi;
import io.dplrf.deploy.http.PublicApi;
import io.dplrf.deploy.http.ReleaseCache;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.deploy.http.Status;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.release.Factorization;
import io.dplrf.release.UtilityReport;
import io.dplrf.sketch.matrix.Dense;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code dplrf bench http}: the latency of a probe ({@code GET /v1/status}, {@code GET /health}
 * on the public port) and of a Prometheus scrape ({@code GET /metrics} with the admin token on
 * the operator port), each on a new connection as a prober or {@code curl} makes it, with no
 * other client (the baseline) and while {@code slow} sockets on each port send a request line and
 * then one header line every {@code interval} ms without ever finishing (a slowloris; a socket the
 * server closes at its header deadline is reopened, so {@code slow} are held throughout). Both
 * conditions alternate in the same run, against the service's own listeners ({@link PublicApi},
 * {@link OperatorApi} with their production limits) on loopback. A request that gets no answer
 * within 10 s counts as a timeout.
 */
public final class HttpBench {
  private static final String TOKEN = "bench-http-token";
  private static final int TIMEOUT_MILLIS = 10_000;
  private final int slow;
  private final long seconds;
  private final long paceMillis;
  private final int rounds;
  private final long intervalMillis;

  /**
   * @param slow slow sockets per port
   * @param seconds how long each condition is measured; past the header deadline (10 s), so that
   *     the slow sockets' closing and reopening falls inside the measurement
   * @param paceMillis one request per route every this many milliseconds
   * @param rounds times the pair (baseline, slow clients) is measured
   * @param intervalMillis a slow socket sends one header line every this many milliseconds
   */
  public HttpBench(int slow, long seconds, long paceMillis, int rounds, long intervalMillis) {
    if (slow < 1 || seconds < 1 || paceMillis < 1 || rounds < 1 || intervalMillis < 1) {
      throw new IllegalArgumentException("slow, seconds, pace, rounds and interval must be >= 1."
          + " Provided values: " + slow + ", " + seconds + ", " + paceMillis + ", " + rounds
          + ", " + intervalMillis);
    }
    this.slow = slow;
    this.seconds = seconds;
    this.paceMillis = paceMillis;
    this.rounds = rounds;
    this.intervalMillis = intervalMillis;
  }

  /** Latencies of one route under one condition, in milliseconds. */
  public record Latency(String route, boolean slowClients, int requests, double p50, double p99,
      double max, int timeouts) {}

  public List<Latency> run(PrintStream out) throws IOException, InterruptedException {
    List<Latency> results = new ArrayList<>();
    ReleaseCache cache = new ReleaseCache();
    cache.publish(release());
    try (Metrics metrics = new Metrics();
        PublicApi api = PublicApi.start(new InetSocketAddress("127.0.0.1", 0), cache,
            HttpBench::status, metrics);
        OperatorApi operator = OperatorApi.start(new InetSocketAddress("127.0.0.1", 0), metrics,
            () -> Map.of("applied", 0L), Optional.of(TOKEN))) {
      out.printf("== HTTP probes and scrapes on the service's listeners (loopback, new connection"
              + " per request, one per route every %d ms for %d s per condition); slow clients:"
              + " %d per port, one header line every %d ms, never finished%n", paceMillis,
          seconds, slow, intervalMillis);
      String[][] routes = {
          {"public", "/v1/status", ""}, {"public", "/health", ""},
          {"operator", "/metrics", "Authorization: Bearer " + TOKEN + "\r\n"}};
      for (int i = 0; i < 50; i++) { // warm-up: JIT, first scrape
        for (String[] r : routes) {
          time(port(r[0], api, operator), r[1], r[2]);
        }
      }
      for (int round = 1; round <= rounds; round++) {
        for (boolean withSlow : new boolean[] {false, true}) {
          Slowloris loris = withSlow ? new Slowloris(slow, intervalMillis, api.port(),
              operator.port()) : null;
          try {
            if (loris != null) {
              Thread.sleep(intervalMillis + 500); // all held, each past its request line
            }
            List<List<Double>> millis = new ArrayList<>();
            int[] timeouts = new int[routes.length];
            for (int r = 0; r < routes.length; r++) {
              millis.add(new ArrayList<>());
            }
            HostCpu.Sample cpu0 = HostCpu.sample();
            long start = System.nanoTime();
            long end = start + seconds * 1_000_000_000L;
            for (long next = start; next < end; next += paceMillis * 1_000_000) {
              long wait = (next - System.nanoTime()) / 1_000_000;
              if (wait > 0) {
                Thread.sleep(wait);
              }
              for (int r = 0; r < routes.length; r++) {
                double t = time(port(routes[r][0], api, operator), routes[r][1], routes[r][2]);
                if (t < 0) {
                  timeouts[r]++;
                  t = TIMEOUT_MILLIS;
                }
                millis.get(r).add(t);
              }
            }
            HostCpu.Usage cpu = HostCpu.since(cpu0);
            double wall = (System.nanoTime() - start) / 1e9;
            String held = loris == null ? "" : String.format(", %d slow sockets held, %d closed"
                + " by the header deadline and reopened", loris.held(), loris.closedByServer());
            out.printf("round %d, %s%s; host idle %.0f%% of %d cores%n", round,
                withSlow ? "with slow clients" : "baseline (no other client)", held,
                100 * cpu.hostIdle() / wall / Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().availableProcessors());
            for (int r = 0; r < routes.length; r++) {
              double[] sorted = millis.get(r).stream().mapToDouble(Double::doubleValue).sorted()
                  .toArray();
              Latency l = new Latency(routes[r][1], withSlow, sorted.length,
                  sorted[sorted.length / 2], sorted[(int) Math.ceil(0.99 * sorted.length) - 1],
                  sorted[sorted.length - 1], timeouts[r]);
              results.add(l);
              out.printf("  %-11s %4d requests   p50 %7.2f ms   p99 %7.2f ms   max %7.2f ms"
                  + "   timeouts %d%n", l.route(), l.requests(), l.p50(), l.p99(), l.max(),
                  l.timeouts());
            }
            out.flush();
          } finally {
            if (loris != null) {
              loris.close();
            }
          }
        }
      }
    }
    return results;
  }

  private static int port(String which, PublicApi api, OperatorApi operator) {
    return which.equals("public") ? api.port() : operator.port();
  }

  /** Milliseconds from connect to the end of a 200 answer; -1 on a timeout or another answer. */
  private static double time(int port, String path, String headers) {
    long t0 = System.nanoTime();
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), TIMEOUT_MILLIS);
      s.setSoTimeout(TIMEOUT_MILLIS);
      OutputStream o = s.getOutputStream();
      o.write(("GET " + path + " HTTP/1.1\r\nHost: bench\r\n" + headers
          + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      InputStream in = s.getInputStream();
      byte[] head = in.readNBytes(12);
      in.transferTo(OutputStream.nullOutputStream());
      boolean ok = new String(head, StandardCharsets.US_ASCII).equals("HTTP/1.1 200");
      return ok ? (System.nanoTime() - t0) / 1e6 : -1;
    } catch (IOException e) {
      return -1;
    }
  }

  private static Status status() {
    return new Status(4, 8, 1.0, 1e-6, "priv2", "one-entry", "streams differing in one update",
        1.0, "update", false, "", Instant.parse("2026-01-01T00:00:00Z"), 1000, 500, 10);
  }

  private static ServedRelease release() {
    int m = 1000;
    int n = 500;
    int k = 10;
    double[] u = new double[m * k];
    double[] v = new double[n * k];
    for (int i = 0; i < k; i++) {
      u[i * k + i] = 1;
      v[i * k + i] = 1;
    }
    double[] s = new double[k];
    for (int i = 0; i < k; i++) {
      s[i] = k - i;
    }
    Factorization f = new Factorization(new Dense(m, k, u), s, new Dense(n, k, v));
    UtilityReport utility = new UtilityReport("priv2", k, List.of(),
        List.of(new UtilityReport.FloorTerm("bench", 0.5, "fixed")), s, 1, "fixed", List.of());
    return new ServedRelease(1, 4, f, utility, Instant.parse("2026-01-01T00:00:00Z"), Map.of());
  }

  /**
   * {@code count} slow connections to each port, driven by one thread; one the server closes is
   * replaced at once.
   */
  private static final class Slowloris implements AutoCloseable {
    private final Selector selector = Selector.open();
    private final long intervalMillis;
    private final Thread driver;
    private volatile boolean stop;
    private volatile int closedByServer;
    private volatile int held;

    Slowloris(int count, long intervalMillis, int... ports) throws IOException {
      this.intervalMillis = intervalMillis;
      for (int port : ports) {
        for (int c = 0; c < count; c++) {
          open(port);
        }
      }
      held = selector.keys().size();
      driver = new Thread(this::drive, "bench-slowloris");
      driver.setDaemon(true);
      driver.start();
    }

    private void open(int port) throws IOException {
      SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
      ch.configureBlocking(false);
      ch.write(ByteBuffer.wrap("GET /v1/status HTTP/1.1\r\nHost: slow\r\n"
          .getBytes(StandardCharsets.US_ASCII)));
      ch.register(selector, SelectionKey.OP_READ, port);
    }

    private void drive() {
      ByteBuffer buf = ByteBuffer.allocate(4096);
      ByteBuffer line = ByteBuffer.wrap("X-Slow: still sending\r\n".getBytes(StandardCharsets.US_ASCII));
      long next = System.nanoTime() + intervalMillis * 1_000_000;
      try {
        while (!stop) {
          selector.select(Math.max(1, (next - System.nanoTime()) / 1_000_000));
          List<Integer> reopen = new ArrayList<>();
          for (SelectionKey key : selector.selectedKeys()) {
            SocketChannel ch = (SocketChannel) key.channel();
            buf.clear();
            int n;
            try {
              n = ch.read(buf);
            } catch (IOException e) {
              n = -1;
            }
            if (n < 0) {
              closedByServer++;
              key.cancel();
              ch.close();
              reopen.add((Integer) key.attachment());
            }
          }
          selector.selectedKeys().clear();
          for (int port : reopen) {
            open(port);
          }
          if (System.nanoTime() >= next) {
            next += intervalMillis * 1_000_000;
            for (SelectionKey key : selector.keys()) {
              if (key.isValid()) {
                try {
                  ((SocketChannel) key.channel()).write(line.duplicate());
                } catch (IOException e) {
                  // closed by the server: the read side reopens it
                }
              }
            }
          }
          held = (int) selector.keys().stream().filter(SelectionKey::isValid).count();
        }
      } catch (IOException e) {
        throw new IllegalStateException("slow clients: " + e.getMessage(), e);
      }
    }

    int held() {
      return held;
    }

    int closedByServer() {
      return closedByServer;
    }

    @Override
    public void close() throws InterruptedException, IOException {
      stop = true;
      selector.wakeup();
      driver.join(5_000);
      for (SelectionKey key : selector.keys()) {
        key.channel().close();
      }
      selector.close();
    }
  }
}
