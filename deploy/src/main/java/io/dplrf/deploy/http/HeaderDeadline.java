package io.dplrf.deploy.http;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP/1.1 connections whose request header must be complete within a deadline of its first byte
 * ({@link HttpLimits#headerTimeout}); when it passes, the connection is closed without an answer.
 *
 * <p>Jetty bounds a header's size and the time a connection stays idle, but a client that sends
 * one byte or one header line every second is never idle, and Jetty has no bound on the time a
 * header may take. This adds one: the parser reports the start of each request ({@code
 * messageBegin} with bytes in the buffer; also called, and ignored, when a kept-alive connection
 * merely waits for its next request) and the end of its header ({@code headerComplete}); a timer
 * on the connector's scheduler runs in between. After a malformed request (400, 414, 431) the
 * timer stays armed: Jetty then reads and discards what the client still sends, and the deadline
 * ends that too.
 *
 * <p>Jetty's {@code HttpConnection} is in an {@code internal} package (its hooks are protected and
 * stable across 12.0.x, but not promised); {@code HttpLimitsTest} checks the behaviour end to end
 * against the pinned version.
 */
final class HeaderDeadline extends HttpConnectionFactory {
  private static final Logger LOG = LoggerFactory.getLogger(HeaderDeadline.class);
  private final long timeoutMillis;

  HeaderDeadline(HttpConfiguration config, Duration timeout) {
    super(config);
    this.timeoutMillis = timeout.toMillis();
  }

  @Override
  public Connection newConnection(Connector connector, EndPoint endPoint) {
    HttpConnection connection = new Timed(getHttpConfiguration(), connector, endPoint,
        connector.getScheduler(), timeoutMillis);
    connection.setUseInputDirectByteBuffers(isUseInputDirectByteBuffers());
    connection.setUseOutputDirectByteBuffers(isUseOutputDirectByteBuffers());
    return configure(connection, connector, endPoint);
  }

  /** One connection with its pending deadline, armed and disarmed on the parsing thread. */
  private static final class Timed extends HttpConnection {
    private final Scheduler scheduler;
    private final long timeoutMillis;
    private final AtomicReference<Deadline> pending = new AtomicReference<>();

    Timed(HttpConfiguration config, Connector connector, EndPoint endPoint, Scheduler scheduler,
        long timeoutMillis) {
      super(config, connector, endPoint);
      this.scheduler = scheduler;
      this.timeoutMillis = timeoutMillis;
    }

    /** Called by the superclass constructor: it must not read this class's fields. */
    @Override
    protected RequestHandler newRequestHandler() {
      return new RequestHandler() {
        @Override
        public void messageBegin() {
          super.messageBegin();
          if (!isRequestBufferEmpty()) {
            arm();
          }
        }

        @Override
        public boolean headerComplete() {
          disarm();
          return super.headerComplete();
        }
      };
    }

    private void arm() {
      if (pending.get() == null) {
        Deadline d = new Deadline();
        pending.set(d);
        d.task = scheduler.schedule(d, timeoutMillis, TimeUnit.MILLISECONDS);
      }
    }

    private void disarm() {
      Deadline d = pending.getAndSet(null);
      if (d != null && d.task != null) {
        d.task.cancel();
      }
    }

    /** One request's deadline; fires only if it is still the pending one. */
    private final class Deadline implements Runnable {
      private volatile Scheduler.Task task;

      @Override
      public void run() {
        if (pending.compareAndSet(this, null)) {
          LOG.debug("closing {}: request header not complete within {} ms",
              getEndPoint().getRemoteSocketAddress(), timeoutMillis);
          getEndPoint().close();
        }
      }
    }

    @Override
    public void onClose(Throwable cause) {
      disarm();
      super.onClose(cause);
    }
  }
}
