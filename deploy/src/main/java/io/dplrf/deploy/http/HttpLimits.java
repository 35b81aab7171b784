package io.dplrf.deploy.http;

import java.time.Duration;

/**
 * What one listener grants a client (docs/operations.md §8, "HTTP limits"). Every limit is a
 * bound a client cannot stretch, so that slow or hostile clients cost the service sockets and
 * bytes, never the threads that answer {@code /health}, {@code /v1/status} and {@code /metrics}.
 *
 * @param threads the listener's thread pool: one acceptor and one selector thread, the rest run
 *     handlers. Reading and parsing a request holds no thread until its header is complete, so
 *     slow senders hold none; a handler writing a small JSON answer hands it to the selector and
 *     returns at once
 * @param streams at most this many streamed bodies (releases: JSON or npy zip) written at once;
 *     a further one is answered 503 with {@code Retry-After}. A streamed body blocks its thread
 *     while the client reads, so this keeps {@code threads - 2 - streams} threads free for
 *     everything else however slowly the downloaders read
 * @param maxConnections open connections at most; beyond, the listener stops accepting until one
 *     closes (the backlog waits), and idle connections are closed after 2 s instead of
 *     {@code idleTimeout}. Bounds the file descriptors that clients can take from the process
 *     (the ratings database, node files and the embedded broker need theirs)
 * @param headerTimeout from the first byte of a request to the end of its header. A connection
 *     still sending its header then is closed without an answer (there is no complete request to
 *     answer); this is what stops a client that sends one header line every few seconds
 * @param idleTimeout a connection on which no byte moves either way for this long is closed: a
 *     kept-alive connection between requests, a request whose client stopped sending, a response
 *     whose client stopped reading
 * @param maxHeaderBytes request line and headers together; a longer request line is answered 414,
 *     longer headers 431 (JSON)
 * @param maxBodyBytes a request whose {@code Content-Length} exceeds this is answered 413. No
 *     route reads a body: what arrives is discarded, and a body not complete when the response is
 *     sent closes the connection
 */
record HttpLimits(int threads, int streams, int maxConnections, Duration headerTimeout,
    Duration idleTimeout, int maxHeaderBytes, long maxBodyBytes) {

  /**
   * The public port: 16 threads — 2 accept and select, at most 8 stream a release body, at most 2
   * compute or wait for a range release (the tree allows two at once and refuses a third with
   * 503), which leaves at least 4 for everything else — and 512 connections.
   */
  static final HttpLimits PUBLIC = new HttpLimits(16, 8, 512, Duration.ofSeconds(10),
      Duration.ofSeconds(30), 8192, 16 * 1024);

  /**
   * The operator port: 8 threads and no streamed bodies (metrics and counts are small answers),
   * 128 connections: Prometheus and a few operators.
   */
  static final HttpLimits OPERATOR = new HttpLimits(8, 0, 128, Duration.ofSeconds(10),
      Duration.ofSeconds(30), 8192, 16 * 1024);

  HttpLimits {
    if (threads < 4 || streams < 0 || streams > threads - 4 || maxConnections < 1
        || headerTimeout.isNegative() || headerTimeout.isZero() || idleTimeout.isNegative()
        || idleTimeout.isZero() || maxHeaderBytes < 1024 || maxBodyBytes < 0) {
      throw new IllegalArgumentException("invalid HTTP limits: threads must be >= 4, streams in"
          + " [0, threads - 4], timeouts > 0, maxHeaderBytes >= 1024. Provided value: threads="
          + threads + ", streams=" + streams + ", maxConnections=" + maxConnections
          + ", headerTimeout=" + headerTimeout + ", idleTimeout=" + idleTimeout
          + ", maxHeaderBytes=" + maxHeaderBytes + ", maxBodyBytes=" + maxBodyBytes);
    }
  }
}
