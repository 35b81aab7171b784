package io.dplrf.ingest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ingest loop's writes of its state — an epoch's node files, a snapshot — retried until they
 * succeed, so that a state directory that cannot be written (no space left, a quota, an I/O
 * error, a read-only remount) pauses ingest instead of ending the process: the service stays up
 * for health, metrics and the releases it has, says why it is not ingesting ({@link #blocked}),
 * and goes on by itself once a write succeeds.
 *
 * <p>Why retrying is safe: every write retried here is idempotent and leaves nothing behind when
 * it fails. A snapshot write replaces the whole file atomically and deletes its temp file on
 * failure ({@link StateStore}); a node write does the same for its node, and the tree resumes a
 * close at the node whose write failed ({@code ContinualSketch.finishClose}). Nothing of the epoch
 * being closed is released before its snapshot is written (the listener runs after), so a pause
 * changes when a release comes, never what it is.
 *
 * <p>Waits between attempts double from {@code firstWait} to {@code maxWait} (1 s to 30 s in the
 * service): a freed disk is noticed within 30 s, and a persistent failure logs a warning per
 * attempt at most every 30 s. A stop ({@link IngestLoop#close}) ends the wait: the write is then
 * abandoned with {@link Abandoned}, and the state stays at the last snapshot written.
 *
 * <p>Thread-safety: {@link #run} on the loop's thread or the closer's, one at a time (the loop
 * waits for the closer before it writes); {@link #blocked}, {@link #failures} and {@link #wake}
 * from any thread.
 */
public final class StateWrites {
  private static final Logger LOG = LoggerFactory.getLogger(StateWrites.class);

  /** A write of the state, retried as a whole. */
  @FunctionalInterface
  interface Write {
    void run() throws IOException;
  }

  /**
   * Why ingest waits: the write that fails, how, since when, and how many attempts failed.
   *
   * @param what the write, e.g. "closing epoch 7" or "the snapshot of epoch 7"
   * @param reason the last failure's message, e.g. "No space left on device"
   * @param since when the first attempt of this write failed
   * @param attempts failed attempts of this write so far
   */
  public record Blocked(String what, String reason, Instant since, long attempts) {}

  /** Thrown by {@link #run} when a stop ends the wait: the write was not done. */
  static final class Abandoned extends IOException {
    private static final long serialVersionUID = 1L;

    Abandoned(String what, IOException last) {
      super(what + " was abandoned at a stop while the state directory could not be written: "
          + last.getMessage(), last);
    }
  }

  private final BooleanSupplier stopping;
  private final long firstWaitMillis;
  private final long maxWaitMillis;
  private final Object sleeper = new Object();
  private volatile Blocked blocked;
  private volatile long failures;

  /**
   * @param stopping true once the loop is asked to stop: a failed write is then not retried
   */
  StateWrites(BooleanSupplier stopping, Duration firstWait, Duration maxWait) {
    this.stopping = stopping;
    this.firstWaitMillis = Math.max(1, firstWait.toMillis());
    this.maxWaitMillis = Math.max(firstWaitMillis, maxWait.toMillis());
  }

  /**
   * Runs {@code write} until it succeeds. An {@link IOException} or {@link UncheckedIOException}
   * from it is a failed attempt: {@link #blocked} says so, and the write is tried again after a
   * wait; any other exception ends the retries and is thrown.
   *
   * @throws Abandoned if a stop was requested while the write failed
   */
  void run(String what, Write write) throws IOException {
    long wait = firstWaitMillis;
    Instant since = null;
    long attempts = 0;
    while (true) {
      IOException failure;
      try {
        write.run();
        if (since != null) {
          LOG.info("{} succeeded after {} failed attempt(s) since {}; ingest goes on", what,
              attempts, since);
          blocked = null;
        }
        return;
      } catch (IOException e) {
        failure = e;
      } catch (UncheckedIOException e) {
        failure = e.getCause();
      }
      attempts++;
      failures++;
      if (since == null) {
        since = Instant.now();
      }
      String reason = reason(failure);
      blocked = new Blocked(what, reason, since, attempts);
      if (stopping.getAsBoolean()) {
        blocked = null;
        throw new Abandoned(what, failure);
      }
      LOG.warn("{} failed ({}); the state directory cannot be written, ingest waits and retries"
          + " in {} s (attempt {})", what, reason, wait / 1000.0, attempts, failure);
      sleep(wait);
      wait = Math.min(2 * wait, maxWaitMillis);
    }
  }

  /** The failure's message and, if different, its cause's (the file system's words). */
  private static String reason(IOException e) {
    String m = String.valueOf(e.getMessage());
    Throwable c = e.getCause();
    if (c != null && c.getMessage() != null && !m.contains(c.getMessage())) {
      m = m + ": " + c.getMessage();
    }
    return m;
  }

  /** Waits {@code millis}, or until {@link #wake}; through interrupts (kept for the caller). */
  private void sleep(long millis) {
    long end = System.nanoTime() + millis * 1_000_000L;
    boolean interrupted = false;
    synchronized (sleeper) {
      long left;
      while (!stopping.getAsBoolean() && (left = end - System.nanoTime()) > 0) {
        try {
          sleeper.wait(Math.max(1, left / 1_000_000L));
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Ends a wait early (a stop was requested). */
  void wake() {
    synchronized (sleeper) {
      sleeper.notifyAll();
    }
  }

  /** The write ingest waits for, or empty while writes succeed. */
  public Optional<Blocked> blocked() {
    return Optional.ofNullable(blocked);
  }

  /** Failed attempts of state writes since the loop started (for a counter). */
  public long failures() {
    return failures;
  }
}
