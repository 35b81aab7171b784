package io.dplrf.deploy.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.metrics.Metrics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Slow clients cannot starve the listeners (issue: four sockets sending one header line every
 * 2 s made every /v1/status probe time out). 48 sockets on each port send a request line and then
 * one header line a second, never finishing; meanwhile /v1/status, /health and /metrics must
 * answer while every slow socket is still held: each probe may take until the header deadline
 * of the first slow socket (they answer in milliseconds; a starved server answers only once the
 * deadline has freed the listeners, which the count of closed slow sockets then shows), so a
 * pause of the test machine cannot fail it. Then the header deadline must close every slow
 * socket, without an answer, about {@link HttpLimits#headerTimeout} after its first byte. Latency
 * figures with and without slow sockets: {@code dplrf bench http}.
 */
class SlowClientsTest {
  private static final int SLOW = 48;
  private static final long DRIBBLE_MILLIS = 1_000;
  private static final String TOKEN = "slow-clients-token";
  private static final HttpClient CLIENT = HttpClient.newBuilder()
      .connectTimeout(HttpLimits.PUBLIC.headerTimeout()).build();

  @Test
  void probesAndScrapesAnswer_while48SlowSocketsHoldEachPort_andTheHeaderDeadlineClosesThem()
      throws Exception {
    Duration headerTimeout = HttpLimits.PUBLIC.headerTimeout();
    assertEquals(headerTimeout, HttpLimits.OPERATOR.headerTimeout());
    ReleaseCache cache = new ReleaseCache();
    cache.publish(Fixtures.release(4));
    try (Metrics metrics = new Metrics();
        PublicApi api = PublicApi.start(new InetSocketAddress("127.0.0.1", 0), cache,
            Fixtures::status, metrics);
        OperatorApi operator = OperatorApi.start(new InetSocketAddress("127.0.0.1", 0), metrics,
            () -> Map.of("applied", 1L), Optional.of(TOKEN));
        SlowSockets slow = new SlowSockets(SLOW, api.port(), operator.port())) {
      slow.start();
      Thread.sleep(DRIBBLE_MILLIS + 500); // every slow socket has sent two lines, none finished
      // No probe may outlast the first slow socket's header deadline: until then every slow
      // socket holds its connection (the count below checks that none was closed earlier).
      long heldUntil = slow.clients.get(0).openedAt + headerTimeout.toNanos();
      for (int round = 0; round < 10; round++) {
        assertEquals(200, get(heldUntil, api.port(), "/v1/status").statusCode());
        assertEquals(200, get(heldUntil, api.port(), "/health").statusCode());
        HttpResponse<String> scrape = get(heldUntil, operator.port(), "/metrics",
            "Authorization", "Bearer " + TOKEN);
        assertEquals(200, scrape.statusCode());
        assertTrue(scrape.body().contains("dplrf_http_requests_seconds_count"), scrape.body());
        assertEquals(401, get(heldUntil, operator.port(), "/metrics").statusCode(),
            "the token still holds");
      }
      assertEquals(0, slow.closed(), "every slow socket was still held while the probes ran");

      long waitMillis = headerTimeout.toMillis() + 5_000;
      assertTrue(slow.awaitAllClosed(waitMillis), slow.closed() + " of " + 2 * SLOW
          + " slow sockets closed within " + waitMillis + " ms of their first byte");
      for (SlowSockets.Client c : slow.clients) {
        long heldMillis = (c.closedAt - c.openedAt) / 1_000_000;
        assertTrue(heldMillis >= headerTimeout.toMillis() - 200 && heldMillis <= waitMillis,
            "closed by the header deadline after " + heldMillis + " ms, port " + c.port);
        assertEquals(0, c.answered, "a request that never finished gets no answer");
      }
      assertEquals(200, get(System.nanoTime() + headerTimeout.toNanos(), api.port(),
          "/v1/status").statusCode());
    }
  }

  /**
   * The deadline holds for every request of a kept-alive connection, not only its first: a client
   * that sends one whole request, reads the answer, then dribbles the next one on the same
   * connection is closed about {@link HttpLimits#headerTimeout} after the next one's first byte,
   * without a second answer.
   */
  @Test
  void aKeptAliveConnection_dribblingItsSecondRequest_isClosedByTheHeaderDeadline()
      throws Exception {
    Duration headerTimeout = HttpLimits.PUBLIC.headerTimeout();
    ReleaseCache cache = new ReleaseCache();
    try (Metrics metrics = new Metrics();
        PublicApi api = PublicApi.start(new InetSocketAddress("127.0.0.1", 0), cache,
            Fixtures::status, metrics);
        java.net.Socket socket = new java.net.Socket("127.0.0.1", api.port())) {
      socket.setSoTimeout((int) headerTimeout.toMillis() + 5_000);
      var out = socket.getOutputStream();
      var in = socket.getInputStream();
      out.write("GET /health HTTP/1.1\r\nHost: kept\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String head = readHead(in);
      assertTrue(head.startsWith("HTTP/1.1 200"), head);
      int length = Integer.parseInt(head.replaceAll("(?is).*\r\ncontent-length: *([0-9]+).*", "$1"));
      assertEquals(length, in.readNBytes(length).length);

      long first = System.nanoTime();
      out.write("GET /v1/status HTTP/1.1\r\nHost: kept\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      int lines = 0;
      int answered = 0;
      socket.setSoTimeout((int) DRIBBLE_MILLIS);
      while (System.nanoTime() - first < (headerTimeout.toMillis() + 5_000) * 1_000_000) {
        try {
          int b = in.read();
          if (b < 0) {
            break; // closed by the server
          }
          answered++;
        } catch (java.net.SocketTimeoutException e) {
          try {
            out.write(("X-Slow-" + lines++ + ": still sending\r\n")
                .getBytes(StandardCharsets.US_ASCII));
          } catch (IOException closed) {
            break;
          }
        } catch (IOException reset) {
          break;
        }
      }
      long heldMillis = (System.nanoTime() - first) / 1_000_000;
      assertTrue(heldMillis >= headerTimeout.toMillis() - 200
              && heldMillis < headerTimeout.toMillis() + 5_000,
          "the second request's header deadline closed the connection after " + heldMillis
              + " ms (" + lines + " header lines sent)");
      assertEquals(0, answered, "a request that never finished gets no answer");
    }
  }

  private static String readHead(java.io.InputStream in) throws IOException {
    StringBuilder b = new StringBuilder();
    while (!b.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        throw new IOException("closed before the end of the answer's header: " + b);
      }
      b.append((char) c);
    }
    return b.toString();
  }

  /** A GET that must be answered before {@code deadline} ({@link System#nanoTime}). */
  private static HttpResponse<String> get(long deadline, int port, String path, String... header)
      throws IOException, InterruptedException {
    long left = deadline - System.nanoTime();
    assertTrue(left > 0, "no time left for " + path + " before the slow sockets' deadline");
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofNanos(left));
    if (header.length == 2) {
      b.header(header[0], header[1]);
    }
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * {@code count} connections to each port, driven by one thread: each sends a request line at
   * once and then one more header line every {@link #DRIBBLE_MILLIS}, forever; the thread notes
   * when the server closes each and whether it answered anything.
   */
  private static final class SlowSockets implements AutoCloseable {
    static final class Client {
      final int port;
      final SocketChannel channel;
      final long openedAt = System.nanoTime();
      volatile long closedAt;
      volatile int answered;
      int lines;

      Client(int port) throws IOException {
        this.port = port;
        channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
        channel.configureBlocking(false);
        write("GET /v1/status HTTP/1.1\r\nHost: slow\r\n");
      }

      void write(String s) throws IOException {
        channel.write(ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII)));
      }
    }

    final List<Client> clients = new ArrayList<>();
    private final Selector selector = Selector.open();
    private final Thread driver = new Thread(this::drive, "slow-sockets");
    private volatile boolean stop;

    SlowSockets(int count, int... ports) throws IOException {
      for (int port : ports) {
        for (int c = 0; c < count; c++) {
          Client client = new Client(port);
          client.channel.register(selector, SelectionKey.OP_READ, client);
          clients.add(client);
        }
      }
    }

    void start() {
      driver.setDaemon(true);
      driver.start();
    }

    private void drive() {
      ByteBuffer buf = ByteBuffer.allocate(4096);
      long next = System.nanoTime() + DRIBBLE_MILLIS * 1_000_000;
      try {
        while (!stop) {
          selector.select(Math.max(1, (next - System.nanoTime()) / 1_000_000));
          for (SelectionKey key : selector.selectedKeys()) {
            Client c = (Client) key.attachment();
            buf.clear();
            int n;
            try {
              n = c.channel.read(buf);
            } catch (IOException e) {
              n = -1;
            }
            if (n > 0) {
              c.answered += n;
            } else if (n < 0) {
              c.closedAt = System.nanoTime();
              key.cancel();
              c.channel.close();
            }
          }
          selector.selectedKeys().clear();
          if (System.nanoTime() >= next) {
            next += DRIBBLE_MILLIS * 1_000_000;
            for (Client c : clients) {
              if (c.closedAt == 0) {
                try {
                  c.write("X-Slow-" + c.lines++ + ": still sending\r\n");
                } catch (IOException e) {
                  // closed by the server; the read side records when
                }
              }
            }
          }
        }
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }

    int closed() {
      return (int) clients.stream().filter(c -> c.closedAt != 0).count();
    }

    boolean awaitAllClosed(long millisAfterFirstOpen) throws InterruptedException {
      long deadline = clients.get(0).openedAt + millisAfterFirstOpen * 1_000_000;
      while (closed() < clients.size() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      return closed() == clients.size();
    }

    @Override
    public void close() throws IOException, InterruptedException {
      stop = true;
      selector.wakeup();
      driver.join(5_000);
      for (Client c : clients) {
        c.channel.close();
      }
      selector.close();
    }
  }
}
