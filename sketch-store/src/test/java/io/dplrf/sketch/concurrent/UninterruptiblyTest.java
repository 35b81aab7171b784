package io.dplrf.sketch.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class UninterruptiblyTest {
  /**
   * An interrupt while waiting neither ends the wait early nor is lost: the result (or the latch's
   * release) comes once the work ends, and the flag is set again for the caller.
   */
  @Test
  void waitsThroughAnInterrupt_andKeepsIt() throws Exception {
    CompletableFuture<String> f = new CompletableFuture<>();
    CountDownLatch latch = new CountDownLatch(1);
    Thread waiter = Thread.currentThread();
    Thread worker = new Thread(() -> {
      try {
        Thread.sleep(50);
        waiter.interrupt();
        Thread.sleep(50);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
      f.complete("done");
      latch.countDown();
    });
    worker.start();
    assertEquals("done", Uninterruptibly.get(f));
    assertTrue(Thread.interrupted()); // set again, and cleared here for the next wait
    Uninterruptibly.await(latch);
    worker.join();
  }

  @Test
  void get_reportsTheFailure() {
    IllegalStateException cause = new IllegalStateException("x");
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> Uninterruptibly.get(CompletableFuture.failedFuture(cause)));
    assertSame(cause, e.getCause());
  }
}
