package io.dplrf.deploy.serve.tree;

import io.dplrf.sketch.lra.ReleasedSketches;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * The continual-release structure behind {@link TreeTarget} (setting {@code continual}): the BLT
 * factorization ({@link FactorizationStream}, the default where it is proved) or the binary tree
 * ({@link TreeStream}). Both take turnstile updates into one noiseless accumulator for the open
 * epoch, make the epoch's noisy contribution when it closes, and answer the release of any closed
 * range [s, e]. Their thread contract is {@link TreeTarget}'s: updates on the ingest thread, the
 * rest serialised by its lock, a range's computation outside it.
 */
interface ContinualStream {

  /** A = A + Δ e_i e_jᵀ in the open epoch's accumulator. */
  void update(int i, int j, double delta);

  /** Applies buffered updates now (the benchmark's measured window ends with it). */
  void applyBufferedUpdates();

  /** Closes the open epoch in one step. */
  void closeEpoch();

  /**
   * Ends the open epoch now, so that updates go on into the next; the returned close is finished
   * on the ingest loop's closer thread. Null where the structure closes in one step only.
   */
  Closing beginClose();

  /** An epoch ended but not yet closed ({@link #beginClose}). */
  interface Closing {
    int epoch();

    /** Makes the epoch's noisy contribution and writes it durably; any one thread. */
    void finish();
  }

  /** The snapshot as of the last finished close, without the open epoch's accumulator. */
  void writeClosedState(OutputStream out) throws IOException;

  /** The whole snapshot, the open epoch's accumulator included. */
  void writeTo(OutputStream out) throws IOException;

  boolean exhausted();

  int epochsClosed();

  /**
   * The last epoch a release may read: the BLT stream serves only epochs a written snapshot names
   * (blt-release.md §5); the tree, every closed epoch.
   */
  int epochsReleasable();

  /**
   * The release of epochs [s, e] (1 ≤ s ≤ e ≤ {@link #epochsClosed}): what it reads is fixed now,
   * under the caller's lock; the supplier computes it (reads files, draws or reads noise) outside.
   */
  Supplier<ReleasedSketches> range(int s, int e);

  /** Bytes held in memory. */
  long sizeInBytes();

  /** Keeps at most this many closed parts in memory, the others in files (the tree's nodes). */
  void keepInMemoryAtMost(int nodes);

  /** How to make a new stream of one kind, or restore one, in its own directory. */
  interface Kind {
    /** The setting value that chose it ({@code factorization}, {@code tree}). */
    String name();

    /** The directory of the stream's files (node files, BLT state files). */
    Path dir();

    /** The first bytes of the stream's snapshot: how a snapshot of the other kind is recognised. */
    byte[] magic();

    /** A new stream; {@link #dir} holds none of its files. */
    ContinualStream create(SecretKey key, String instance) throws IOException;

    /**
     * A stream restored from its snapshot; refuses one made under other settings (changing them
     * would break the privacy accounting).
     */
    ContinualStream read(InputStream in, SecretKey key, int nodesInMemory) throws IOException;
  }
}
