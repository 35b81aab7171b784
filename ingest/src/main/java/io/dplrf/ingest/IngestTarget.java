package io.dplrf.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The lifecycle of what the ingest loop fills: epochs closed (at once or in two steps), exhaustion
 * at epoch T, and the state the snapshot holds. What a record carries reaches the mode's own sink
 * through its {@link RecordDecoder}, not through this interface. The loop calls every method from
 * its own thread only (a pipelined close's finish excepted).
 *
 * <p>The state written by {@link #writeState} must be everything needed to continue exactly: the
 * loop stores it in the same atomic snapshot as the consumed offsets ({@link StateStore}), and
 * after a crash restores it with {@link #readState} before consuming from those offsets.
 */
public interface IngestTarget {

  /** Ends the current epoch; the loop then snapshots and notifies the listener. */
  void closeEpoch();

  /**
   * The first half of a pipelined {@link #closeEpoch}, or null if this target closes
   * synchronously only (the default). When not null, the epoch has ended: later updates belong to
   * the next one, and {@link #exhausted} counts it. The loop then runs {@link
   * ClosingEpoch#finish} on another thread, followed by a snapshot holding {@link
   * ClosingEpoch#writeState}, while it goes on consuming; it finishes one close before it begins
   * the next or writes any other snapshot.
   */
  default ClosingEpoch beginCloseEpoch() {
    return null;
  }

  /** An epoch close begun by {@link #beginCloseEpoch}. */
  interface ClosingEpoch {
    /** The epoch being closed (1-based). */
    int epoch();

    /** Completes the close (for the tree: makes and durably writes the epoch's nodes). */
    void finish() throws IOException;

    /**
     * After {@link #finish}: writes the target's state as of the moment the close began, as
     * {@link #writeState} would have then. Must not close {@code out}.
     */
    void writeState(OutputStream out) throws IOException;
  }

  /** True once all T epochs are closed: the loop stops applying updates and says so. */
  boolean exhausted();

  /** Number of epochs closed so far. */
  int epochsClosed();

  /**
   * The stream's instance label, whose progress the broker records ({@link ReleaseWitness}) so
   * that an older backup is refused; null (the default) for targets whose releases need no such
   * record.
   */
  default String streamLabel() {
    return null;
  }

  /**
   * Called once the snapshot of {@code epoch} is durable and before the listener may release
   * anything of it: a continual structure raises its released-epoch guard to {@code epoch} here,
   * durably (docs/privacy/recovery.md §5). Idempotent; retried while it throws (a full disk).
   */
  default void beforeRelease(int epoch) throws IOException {}

  /** Writes the complete state. Must not close {@code out}. */
  void writeState(OutputStream out) throws IOException;

  /**
   * Restores a state written by {@link #writeState}, replacing the current one; called before
   * consuming. {@code in} ends exactly where the written state ended: the target should read it
   * to the end. Must not close {@code in}.
   */
  void readState(InputStream in) throws IOException;
}
