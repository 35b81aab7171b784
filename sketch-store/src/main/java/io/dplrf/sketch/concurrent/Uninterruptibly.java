package io.dplrf.sketch.concurrent;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Waits that go on through interrupts and then restore the interrupt flag, for work that ends by
 * itself and whose buffers or state the caller must not touch before it has: a flush's second
 * thread, a release's noise workers, a direct write in flight, an epoch close.
 */
public final class Uninterruptibly {
  private Uninterruptibly() {}

  /** Waits for {@code latch} to reach zero. */
  public static void await(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits for {@code f} and returns its result.
   *
   * @throws ExecutionException if it failed (its cause is the failure)
   */
  public static <T> T get(Future<T> f) throws ExecutionException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return f.get();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
