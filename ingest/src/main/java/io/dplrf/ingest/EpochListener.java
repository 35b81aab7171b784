package io.dplrf.ingest;

/**
 * Notified by the ingest loop after an epoch is closed and the snapshot holding it is durable;
 * {@code deploy} computes and caches the release there. Called on the loop's thread, or for a
 * pipelined close on the closer's thread ({@link EpochCloser}); never two calls at once.
 *
 * <p>Because the snapshot is written before the listener is called, a release is only ever
 * computed from state that survives a crash: after a restart the same closed epochs are restored
 * and nothing released is lost or redrawn. A crash between the snapshot and the listener means
 * the release of that epoch was never computed; {@link #restored} lets the listener compute it
 * (releases are post-processing of the stored noisy sketches, so recomputing costs no privacy).
 */
@FunctionalInterface
public interface EpochListener {

  /** Epoch {@code epoch} (1-based) was closed and snapshotted. Called once per epoch per run. */
  void epochClosed(int epoch);

  /**
   * As {@link #epochClosed(int)}, with the time the epoch closed: the time the snapshot keeps as
   * the next epoch's start, so the same {@link #restored} hands over after a restart. The loop
   * calls this one; by default it forgets the time.
   */
  default void epochClosed(int epoch, java.time.Instant closedAt) {
    epochClosed(epoch);
  }

  /**
   * The loop restored a snapshot in which {@code epochsClosed} epochs are closed (may be 0), the
   * last of them at {@code lastClosed} (null when none is), before it consumes anything: what
   * was released is back before anyone asks (e.g. its release time, not the restart's).
   */
  default void restored(int epochsClosed, java.time.Instant lastClosed) {}

  /** A snapshot was written (for metrics): how long it took and its size in bytes. */
  default void snapshotWritten(java.time.Duration took, long bytes) {}
}
