package io.dplrf.ingest;

import io.dplrf.client.LocalReport;
import io.dplrf.client.LocalRobustReport;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * What the ingest loop drives: in the service, the binary tree of noisy partial sketches
 * ({@code deploy} adapts it). The loop calls every method from its own thread only.
 *
 * <p>The state written by {@link #writeState} must be everything needed to continue exactly: the
 * loop stores it in the same atomic snapshot as the consumed offsets ({@link StateStore}), and
 * after a crash restores it with {@link #readState} before consuming from those offsets.
 */
public interface IngestTarget {

  /** Applies {@code A[i][j] += delta}; the update is already validated and bounded. */
  void update(int i, int j, double delta);

  /**
   * Rows mode: adds x xᵀ to the d×d matrix AᵀA, for the row with non-zeros {@code x[0..n)} at
   * distinct columns {@code index[0..n)}, already validated and clipped. The arrays are the
   * caller's scratch space, valid during the call only.
   *
   * <p>The default feeds the n² entries x_a·x_b through {@link #update}: O(n²) updates. A target
   * may apply the rank-one change more cheaply, with the same result.
   */
  default void addRow(int[] index, double[] x, int n) {
    for (int a = 0; a < n; a++) {
      double xa = x[a];
      for (int b = 0; b < n; b++) {
        update(index[a], index[b], xa * x[b]);
      }
    }
  }

  /**
   * Local mode: adds one decoded, checked local-DP report (of the configured protocol, every value
   * on its noise grid with |value| ≤ 2⁶²·γ) to the aggregate. Targets of the other modes refuse.
   */
  default void addReport(LocalReport report) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " takes no local reports");
  }

  /**
   * Local-robust mode: adds one decoded, checked LOCAL-ROBUST-PCA report (of the configured
   * protocol, slot in [0, m), every value on its part's noise grid with |value| ≤ 2⁶²·γ) to the
   * aggregate, unless its slot already has a report there. Targets of the other modes refuse.
   *
   * @return true if added, false (nothing changed) if the slot was already counted
   */
  default boolean addRobustReport(LocalRobustReport report) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " takes no local-robust reports");
  }

  /**
   * Completion mode: user {@code user}'s latest rating of {@code item} (already validated: indices
   * in range, finite, |rating| ≤ C) replaces any earlier one. Targets of the other modes refuse.
   *
   * @return true if stored (new or replacing), false if dropped because the user already holds
   *     the maximum number of distinct items
   */
  default boolean rate(int user, int item, double rating) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " takes no ratings");
  }

  /** Folds the current epoch into the tree; the loop then snapshots and notifies the listener. */
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

  /** Writes the complete state. Must not close {@code out}. */
  void writeState(OutputStream out) throws IOException;

  /**
   * Restores a state written by {@link #writeState}, replacing the current one; called before
   * consuming. {@code in} ends exactly where the written state ended: the target should read it
   * to the end. Must not close {@code in}.
   */
  void readState(InputStream in) throws IOException;
}
