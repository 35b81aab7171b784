package io.dplrf.deploy.serve;

import io.dplrf.deploy.http.DamagedStateException;
import io.dplrf.deploy.http.ReleaseCache;
import io.dplrf.deploy.http.ServedRelease;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The release after every epoch, for the modes that make one (the tree, local): computed off the
 * ingest thread on a thread of its own, in epoch order, and published to the {@link ReleaseCache}
 * the public port serves. A failed release is a failure of the service ({@link ModeContext#failed}):
 * a process that no longer releases must not look healthy; a release refused because a stored
 * file it reads is damaged ({@link DamagedStateException}) is withheld instead, and the mode's
 * health names the file. Thread-safe.
 */
public final class EpochReleases implements AutoCloseable {
  /** Computes the release after one epoch. */
  @FunctionalInterface
  public interface Maker {
    ServedRelease release(int epoch, Instant at);
  }

  private final ReleaseCache cache;
  private final int epochs;
  private final Maker maker;
  private final ModeContext context;
  private final String exhaustedMessage;
  private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "dplrf-release");
    t.setDaemon(true);
    return t;
  });
  private volatile Instant lastRelease;
  /** The last release's reliable rank was 0 (release thread, or the restoring caller). */
  private volatile boolean belowFloor;

  /**
   * @param epochs T: the release after epoch T is the last, and logs {@code exhaustedMessage}
   */
  public EpochReleases(ReleaseCache cache, int epochs, Maker maker, ModeContext context,
      String exhaustedMessage) {
    this.cache = cache;
    this.epochs = epochs;
    this.maker = maker;
    this.context = context;
    this.exhaustedMessage = exhaustedMessage;
  }

  public ReleaseCache cache() {
    return cache;
  }

  /**
   * Queues the release of {@code epoch}, whose snapshot is durable, dated by the epoch's close
   * ({@link ModeContext#closedAt}): the release covers the state at that close, and a restart
   * serves it again with the same time.
   */
  public void releaseLater(int epoch) {
    Instant closed = context.closedAt().apply(epoch);
    Instant at = closed != null ? closed : Instant.now();
    context.metrics().releaseQueued();
    try {
      thread.execute(() -> {
        try {
          release(epoch, at);
        } catch (RuntimeException | Error e) {
          context.log().println("dplrf: the release of epoch " + epoch + " failed: " + e);
          context.failed().accept(e);
        } finally {
          context.metrics().releaseEnded();
        }
      });
    } catch (RejectedExecutionException e) {
      context.metrics().releaseEnded(); // shutting down
      throw e;
    }
  }

  /**
   * Computes and publishes the release of {@code epoch} on the caller's thread, dated {@code
   * at}: at restore, the release of the last closed epoch (lost between its snapshot and a
   * crash, or never kept), dated by that epoch's close as it was before the restart. One that
   * needs a damaged stored file is withheld and logged, not thrown.
   */
  public void release(int epoch, Instant at) {
    long t0 = System.nanoTime();
    ServedRelease made;
    try {
      made = maker.release(epoch, at);
    } catch (DamagedStateException e) {
      // A stored file the release reads is damaged (named in the message): the mode's health and
      // dplrf_state_damaged_files say so, the last release stays served, and ingest goes on (the
      // mode's state is in memory, not in that file); the next epoch's release reads its own.
      context.log().println("dplrf: the release of epoch " + epoch + " is withheld: "
          + e.getMessage());
      return;
    }
    cache.publish(made);
    lastRelease = at;
    warnIfNoise(epoch, made);
    context.metrics().releaseDuration(Duration.ofNanos(System.nanoTime() - t0));
    if (epoch >= epochs) {
      context.log().println("dplrf: epoch " + epoch + " of " + epochs + " closed: "
          + exhaustedMessage);
    }
  }

  /**
   * Logs the utility report's warning when a release's reliable rank is 0: at the first such
   * release, again after a release that stood above the floor (not at every epoch of a long run
   * that stays below it), and at the last release (epoch T), which stays served once the budget
   * is spent.
   */
  private void warnIfNoise(int epoch, ServedRelease made) {
    Optional<String> warning = made.utility().noSignalWarning();
    if (warning.isPresent() && (!belowFloor || epoch >= epochs)) {
      context.log().println("dplrf: release of epoch " + epoch + (epoch >= epochs
          ? " (the last: the budget is spent, and it stays served)" : "") + ": " + warning.get());
    }
    belowFloor = warning.isPresent();
  }

  /** When the latest release was made; null before the first. */
  public Instant lastRelease() {
    return lastRelease;
  }

  /** The latest released epoch, 0 before the first. */
  public int released() {
    return cache.latest().map(ServedRelease::epoch).orElse(0);
  }

  /** Waits until every queued release is published (or the thread is shut down). */
  public void awaitQueued() throws InterruptedException {
    try {
      thread.submit(() -> { }).get();
    } catch (ExecutionException | RejectedExecutionException e) {
      // closed meanwhile: nothing more will be published
    }
  }

  /** Finishes a release under way (its epoch is already snapshotted), then stops the thread. */
  @Override
  public void close() {
    thread.shutdown();
    try {
      thread.awaitTermination(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    thread.shutdownNow();
  }
}
