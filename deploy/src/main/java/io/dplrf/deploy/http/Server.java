package io.dplrf.deploy.http;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.util.List;
import java.util.concurrent.Semaphore;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/1.1 listener (Jetty, core API) in front of one {@link Router}, under {@link
 * HttpLimits}: the transport and nothing else. It adapts a request to {@link Router.Incoming},
 * sends the {@link Response} (a small body asynchronously, a streamed one on the handler's thread
 * under the limit's stream permits) and times it once sent.
 */
final class Server implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Server.class);
  /** The Retry-After of a streamed body refused because every stream permit is taken (seconds). */
  static final int STREAM_RETRY_SECONDS = 1;

  private final org.eclipse.jetty.server.Server jetty;
  private final ServerConnector connector;

  Server(String name, InetSocketAddress address, HttpLimits limits, Router router)
      throws IOException {
    QueuedThreadPool pool = new QueuedThreadPool(limits.threads(), Math.min(4, limits.threads()));
    pool.setName(name);
    pool.setDaemon(true);
    pool.setStopTimeout(2_000);
    jetty = new org.eclipse.jetty.server.Server(pool);
    HttpConfiguration http = new HttpConfiguration();
    http.setRequestHeaderSize(limits.maxHeaderBytes());
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    connector = new ServerConnector(jetty, null,
        new ScheduledExecutorScheduler(name + "-timer", true), null, 1, 1,
        new HeaderDeadline(http, limits.headerTimeout()));
    connector.setHost(address.getHostString());
    connector.setPort(address.getPort());
    connector.setIdleTimeout(limits.idleTimeout().toMillis());
    jetty.addConnector(connector);
    NetworkConnectionLimit connections = new NetworkConnectionLimit(limits.maxConnections(),
        connector);
    connections.setEndPointIdleTimeout(2_000);
    jetty.addBean(connections);
    jetty.setHandler(new Dispatch(router, limits));
    jetty.setErrorHandler(new JsonErrors(limits.maxHeaderBytes()));
    jetty.setStopAtShutdown(false);
    try {
      jetty.start();
    } catch (Exception e) {
      close();
      for (Throwable c = e; c != null; c = c.getCause()) {
        if (c instanceof BindException b) {
          throw b;
        }
      }
      throw e instanceof IOException io ? io : new IOException("cannot start " + name + ": " + e, e);
    }
  }

  InetSocketAddress address() {
    try {
      return (InetSocketAddress) ((ServerSocketChannel) connector.getTransport()).getLocalAddress();
    } catch (IOException e) {
      throw new IllegalStateException("listener closed", e);
    }
  }

  /** Stops accepting at once, drops in-flight exchanges, and waits up to 2 s for the workers. */
  @Override
  public void close() {
    try {
      jetty.stop();
    } catch (Exception e) {
      LOG.debug("stopping the HTTP listener: {}", e.toString());
    }
  }

  /** The one Jetty handler: routes, then sends. */
  private static final class Dispatch extends Handler.Abstract {
    private final Router router;
    private final HttpLimits limits;
    private final Semaphore streams;

    Dispatch(Router router, HttpLimits limits) {
      this.router = router;
      this.limits = limits;
      this.streams = new Semaphore(limits.streams());
    }

    @Override
    public boolean handle(Request request, org.eclipse.jetty.server.Response response,
        Callback callback) {
      long start = System.nanoTime();
      String method = request.getMethod();
      Router.Outcome outcome;
      if (request.getLength() > limits.maxBodyBytes()) {
        outcome = new Router.Outcome(Router.UNMATCHED, Response.error(413, "request body too"
            + " large: at most " + limits.maxBodyBytes() + " bytes (no route reads a body)"));
      } else {
        outcome = router.dispatch(new Incoming(request));
      }
      Response r = outcome.response();
      boolean head = "HEAD".equals(method);
      boolean stream = r.writer != null && !head;
      if (stream && !streams.tryAcquire()) {
        r = Response.error(503, "too many release downloads in progress (" + limits.streams()
            + "): retry in " + STREAM_RETRY_SECONDS + " s")
            .header("Retry-After", Integer.toString(STREAM_RETRY_SECONDS));
        stream = false;
      }
      int status = r.status;
      Callback done = Callback.from(() -> {
        callback.succeeded();
        router.timed(outcome.template(), method, status, System.nanoTime() - start);
      }, x -> {
        LOG.debug("{} {}: response aborted: {}", method, outcome.template(), x.toString());
        callback.failed(x);
        router.timed(outcome.template(), method, status, System.nanoTime() - start);
      });
      response.setStatus(status);
      var h = response.getHeaders();
      h.put(HttpHeader.CONTENT_TYPE, r.contentType);
      h.put(HttpHeader.CACHE_CONTROL, "no-cache");
      h.put("X-Content-Type-Options", "nosniff");
      r.headers.forEach(h::put);
      if (head) {
        done.succeeded();
      } else if (!stream) {
        h.put(HttpHeader.CONTENT_LENGTH, r.body.length);
        response.write(true, ByteBuffer.wrap(r.body), done);
      } else {
        try {
          writeStream(r, response);
          done.succeeded();
        } catch (Throwable x) {
          // The client went away, or the body writer failed after the headers were sent:
          // nothing more can be said on this connection.
          done.failed(x);
        } finally {
          streams.release();
        }
      }
      return true;
    }

    private static void writeStream(Response r, org.eclipse.jetty.server.Response response)
        throws IOException {
      try (OutputStream out = new BufferedOutputStream(Content.Sink.asOutputStream(response),
          1 << 16)) {
        r.writer.write(out);
      }
    }
  }

  /** A Jetty request as the router sees it. */
  private record Incoming(Request request) implements Router.Incoming {
    @Override
    public String method() {
      return request.getMethod();
    }

    @Override
    public String rawPath() {
      return request.getHttpURI().getPath();
    }

    @Override
    public String rawQuery() {
      return request.getHttpURI().getQuery();
    }

    @Override
    public String header(String name) {
      List<String> values = request.getHeaders().getValuesList(name);
      return values.isEmpty() ? null : String.join(", ", values);
    }
  }
}
