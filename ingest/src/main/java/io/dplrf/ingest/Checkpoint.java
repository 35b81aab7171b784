package io.dplrf.ingest;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the {@link IngestLoop} keeps its exactly-once state: the consumed offsets, the counters,
 * the budgets and the target's state, written together atomically at each epoch close and on
 * clean shutdown, read back once at start. Two implementations: {@link StateStore} (one snapshot
 * file: the sketch tree and the local sum) and {@link RatingsStore} (a RocksDB database: the
 * ratings of completion mode, whose offsets are written in the same atomic batch as the ratings
 * they cover).
 *
 * <p>The contract the loop relies on: after {@link #write} returns, a crash at any later point
 * restores exactly what was written; a crash during {@link #write} restores either the previous
 * write or this one, never a mix.
 */
public interface Checkpoint {

  /**
   * Restores the last write into {@code bounds} (fresh, configured as when written) and {@code
   * target}, and returns its header; empty on first start.
   *
   * @throws IOException if there is state but it cannot be restored (corrupt, other settings);
   *     the message names where it lives
   */
  Optional<StateStore.Header> read(ContributionBounds bounds, IngestTarget target)
      throws IOException;

  /** Atomically and durably replaces the state with {@code header}, the budgets and the target's. */
  void write(StateStore.Header header, ContributionBounds bounds, IngestTarget target)
      throws IOException;

  /**
   * Encodes {@code header} and the budgets now and returns the write of them with a target state
   * supplied later, to run on another thread (the pipelined epoch close, {@link
   * IngestTarget#beginCloseEpoch}); null if this store cannot (the loop then closes
   * synchronously). The write has {@link #write}'s guarantees.
   */
  default DeferredWrite capture(StateStore.Header header, ContributionBounds bounds)
      throws IOException {
    return null;
  }

  /** A {@link #capture}d header and budgets, waiting for the target's state. */
  @FunctionalInterface
  interface DeferredWrite {
    /** Atomically and durably replaces the state: the captured parts and what {@code target} writes. */
    void write(TargetState target) throws IOException;
  }

  /** Writes a target's state to the snapshot stream (which it must not close). */
  @FunctionalInterface
  interface TargetState {
    void writeTo(OutputStream out) throws IOException;
  }

  /** Where the state lives (a file or a database directory), for messages. */
  Path file();

  /** Whether anything has been written (a restart rather than a first start). */
  boolean exists();

  /** The size of the stored state in bytes (exact or estimated), for metrics. */
  long sizeInBytes() throws IOException;
}
