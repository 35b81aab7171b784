package io.dplrf.deploy.serve.tree;

import io.dplrf.deploy.config.SettingsDiff;
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

  /** The stream's instance label (public): its noise's and its files' name. */
  String instance();

  /**
   * Raises the released-epoch guard to {@code epoch}, durably, before anything of it is released
   * (docs/privacy/recovery.md §5); idempotent.
   *
   * @throws java.io.UncheckedIOException if the guard cannot be written
   */
  void markReleased(int epoch);

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

  /**
   * How to make a new stream of one kind, or restore one, in its own directory.
   *
   * @param name the setting value that chose it ({@code factorization}, {@code tree})
   * @param dir the directory of the stream's files (BLT state files, node files)
   * @param magic the first bytes of the kind's snapshot: how a snapshot of the other kind is
   *     recognised
   * @param create a new stream; {@code dir} holds none of its files
   * @param read a stream restored from its snapshot, refusing one made under other settings
   *     ({@link #sameSettings})
   */
  record Kind(String name, Path dir, byte[] magic, Create create, Read read) {}

  /** A new stream under a key and an instance label. */
  @FunctionalInterface
  interface Create {
    ContinualStream create(SecretKey key, String instance) throws IOException;
  }

  /** A stream restored from its snapshot ({@code nodesInMemory}: the tree's limit). */
  @FunctionalInterface
  interface Read {
    ContinualStream read(InputStream in, SecretKey key, int nodesInMemory) throws IOException;
  }

  /**
   * Refuses a restored stream whose settings differ from the configured ones: changing them
   * mid-stream would break the privacy accounting. Names only the fields that differ.
   */
  static void sameSettings(Record restored, Record configured) throws IOException {
    if (!restored.equals(configured)) {
      throw new IOException("the state directory holds a stream created with other settings ("
          + SettingsDiff.of(restored, configured) + "); changing them mid-stream would break the"
          + " privacy accounting: keep them, or use a new state directory");
    }
  }
}
