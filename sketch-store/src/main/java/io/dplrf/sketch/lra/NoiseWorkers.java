package io.dplrf.sketch.lra;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Daemon threads that draw one part of a release's noise while the releasing thread draws another
 * ({@link Priv2Sketch#release}). Not the common fork-join pool: on 2 cores its one worker is the
 * banded flush's second thread ({@code BandedUpdates}), which a release must not hold up. Threads
 * are made as releases need them and end after a minute idle.
 */
final class NoiseWorkers {
  private static final AtomicInteger COUNT = new AtomicInteger();
  private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "dplrf-release-noise-" + COUNT.incrementAndGet());
    t.setDaemon(true);
    return t;
  });

  private NoiseWorkers() {}

  static <T> Future<T> submit(Callable<T> part) {
    return POOL.submit(part);
  }

  /** The part's result; its failure rethrown as it was (waits through interrupts). */
  static <T> T join(Future<T> part) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return part.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          Throwable c = e.getCause();
          if (c instanceof RuntimeException r) {
            throw r;
          }
          if (c instanceof Error err) {
            throw err;
          }
          throw new IllegalStateException(c);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
