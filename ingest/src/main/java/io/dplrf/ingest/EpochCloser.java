package io.dplrf.ingest;

import io.dplrf.sketch.concurrent.Uninterruptibly;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The second thread of the pipelined epoch close ({@link IngestTarget#beginCloseEpoch}): runs the
 * rest of one close at a time — the target's {@code finish}, then the snapshot, then the listener
 * — while the loop's thread goes on consuming. The loop waits for it ({@link #await}) before it
 * begins the next close, writes any other snapshot, or stops; a failure of the close is thrown
 * there, and the loop fails with its state at the last durable snapshot.
 *
 * <p>Used by the loop's thread only (the work itself runs on the closer's thread).
 */
final class EpochCloser implements AutoCloseable {
  /** The rest of a close. */
  @FunctionalInterface
  interface Work {
    void run() throws IOException;
  }

  private ExecutorService thread;
  private Future<?> running;
  /** The failure of a close: thrown by every later {@link #await}, since the state is stale. */
  private Throwable failed;

  /**
   * Starts {@code work} on the closer's thread.
   *
   * @throws IllegalStateException if a close is still running ({@link #await} first)
   */
  void start(Work work) {
    if (running != null) {
      throw new IllegalStateException("a close is still running");
    }
    if (thread == null) {
      thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "dplrf-epoch-close");
        t.setDaemon(true);
        return t;
      });
    }
    running = thread.submit(() -> {
      work.run();
      return null;
    });
  }

  /** True if a close was started and has ended (successfully or not) but not been awaited. */
  boolean ended() {
    return running != null && running.isDone();
  }

  /**
   * Waits until the running close, if any, has ended; uninterruptibly, since nothing may follow
   * it before it ends (the interrupt is kept for the caller).
   *
   * @throws IOException or the unchecked exception the close failed with, now and at every later
   *     call: the loop's state after a failed close is not one that may be snapshotted
   */
  void await() throws IOException {
    Future<?> f = running;
    if (f == null) {
      if (failed != null) {
        rethrow(failed);
      }
      return;
    }
    try {
      Uninterruptibly.get(f);
    } catch (ExecutionException e) {
      failed = e.getCause();
      rethrow(failed);
    } finally {
      running = null;
    }
  }

  private static void rethrow(Throwable cause) throws IOException {
    if (cause instanceof IOException io) {
      throw io;
    }
    if (cause instanceof UncheckedIOException uio) {
      throw uio.getCause();
    }
    if (cause instanceof RuntimeException rt) {
      throw rt;
    }
    if (cause instanceof Error err) {
      throw err;
    }
    throw new IllegalStateException("epoch close failed", cause);
  }

  /** Stops the thread; call after {@link #await}. */
  @Override
  public void close() {
    if (thread != null) {
      thread.shutdown();
    }
  }
}
