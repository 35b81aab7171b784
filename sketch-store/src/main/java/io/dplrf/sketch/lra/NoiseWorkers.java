package io.dplrf.sketch.lra;

import io.dplrf.sketch.concurrent.Uninterruptibly;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * Daemon threads that share a release's work with the releasing thread: a part prepared while the
 * releasing thread prepares another ({@link #submit}), and the noise of a release's parts or
 * chunks ({@link #run}, {@link NoisyLinearSketch#addNoise}). Not the common fork-join pool: on 2
 * cores its one worker is the banded flush's second thread ({@code BandedUpdates}), which a
 * release must not hold up. Threads are made as releases need them and end after a minute idle.
 * Public for the BLT stream's epoch close ({@code io.dplrf.sketch.continual}), which encodes,
 * noises and decodes its chunks on the same threads ({@link #run}).
 */
public final class NoiseWorkers {
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

  /**
   * Runs {@code task.accept(i)} once for every i in [0, tasks), on this thread and up to {@code
   * threads − 1} pool threads, which claim the indices one at a time; returns when all have run.
   * The first failure is rethrown (the others' are suppressed into it) once every claimed task has
   * ended, so nothing still writes after the return. Waits through interrupts and restores the
   * flag.
   */
  public static void run(int tasks, int threads, IntConsumer task) {
    if (tasks <= 0) {
      return;
    }
    AtomicInteger next = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(tasks);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Runnable claim = () -> {
      for (int i; (i = next.getAndIncrement()) < tasks; ) {
        try {
          task.accept(i);
        } catch (RuntimeException | Error e) {
          if (!failure.compareAndSet(null, e)) {
            failure.get().addSuppressed(e);
          }
        } finally {
          done.countDown();
        }
      }
    };
    for (int h = 1; h < Math.min(tasks, threads); h++) {
      POOL.execute(claim);
    }
    claim.run();
    Uninterruptibly.await(done);
    Throwable f = failure.get();
    if (f instanceof RuntimeException r) {
      throw r;
    }
    if (f != null) {
      throw (Error) f;
    }
  }

  /** The part's result; its failure rethrown as it was (waits through interrupts). */
  static <T> T join(Future<T> part) {
    try {
      return Uninterruptibly.get(part);
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
}
