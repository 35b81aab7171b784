package io.dplrf.deploy.http;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** One JDK HttpServer with one root handler and a small fixed pool of daemon worker threads. */
final class Server implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService workers;

  Server(String name, InetSocketAddress address, int threads, HttpHandler root) throws IOException {
    server = HttpServer.create(address, 64);
    AtomicInteger n = new AtomicInteger();
    ThreadFactory factory = r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
    workers = Executors.newFixedThreadPool(threads, factory);
    server.setExecutor(workers);
    server.createContext("/", root);
    server.start();
  }

  InetSocketAddress address() {
    return server.getAddress();
  }

  /** Stops accepting at once, drops in-flight exchanges, and waits briefly for the workers. */
  @Override
  public void close() {
    server.stop(0);
    workers.shutdownNow();
    try {
      workers.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
