package io.dplrf.it;

import java.time.Duration;
import java.util.function.Predicate;

/**
 * Waiting for a condition, without Awaitility: probe every {@value #INTERVAL_MILLIS} ms until the
 * condition holds or the deadline passes; on timeout fail with the last value probed, so the
 * message says how far the system got.
 */
final class Poll {
  private static final long INTERVAL_MILLIS = 50;

  private Poll() {}

  /** A probe that may throw (HTTP calls, Kafka calls). */
  @FunctionalInterface
  interface Probe<T> {
    T get() throws Exception;
  }

  /**
   * Probes until {@code done} accepts the value and returns that value. A probe that throws
   * counts as "not yet" (a server still starting); the last exception is reported on timeout.
   */
  static <T> T until(String what, Duration timeout, Probe<T> probe, Predicate<T> done) {
    long deadline = System.nanoTime() + timeout.toNanos();
    T last = null;
    Exception lastError = null;
    while (true) {
      try {
        last = probe.get();
        lastError = null;
        if (done.test(last)) {
          return last;
        }
      } catch (Exception e) {
        lastError = e;
      }
      if (System.nanoTime() > deadline) {
        AssertionError fail = new AssertionError("timed out after " + timeout.toSeconds()
            + " s waiting for " + what + "; last value: " + last);
        if (lastError != null) {
          fail.initCause(lastError);
        }
        throw fail;
      }
      try {
        Thread.sleep(INTERVAL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what, e);
      }
    }
  }
}
