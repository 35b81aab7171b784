package io.dplrf.deploy.serve.tree;

import io.dplrf.sketch.continual.BltConfig;
import io.dplrf.sketch.continual.BltStream;
import io.dplrf.sketch.continual.PendingBltClose;
import io.dplrf.sketch.files.DamagedFileException;
import io.dplrf.sketch.lra.ReleasedSketches;
import io.dplrf.sketch.tree.ContinualSketch.StoredNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code continual = factorization} (the default for priv2 and priv2-sparse in mode updates): the
 * release after epoch t is B(Cx + z)_t with a buffered linear Toeplitz pair ({@link BltStream},
 * docs/privacy/blt-release.md), its state files in {@code blt/}. Every R_t is kept, so a range
 * [s, e] is R_e − R_{s−1}: post-processing of two prefixes, no noise drawn.
 *
 * <p><b>Damaged files.</b> Releases read R files, and only they: a damaged R_t (found by its
 * checksums when read, or by the integrity check soon after start, {@link NodeFileCheck}) refuses
 * the releases that read it, naming it, and nothing else. Ingest goes on: the closes compute from
 * the state in memory (read and checked against the snapshot's checksums at start) and write new
 * files; they read no file, so no damage can enter the state or a later release. A damaged file
 * the restore needs (the buffers or R of the snapshot's epoch) fails the start, naming it: that
 * state cannot be computed again without drawing released noise again (blt-release.md §5), so
 * only a backup of the file can repair it.
 */
final class FactorizationStream implements ContinualStream {
  private final BltStream stream;

  private FactorizationStream(BltStream stream) {
    this.stream = stream;
  }

  /** The BLT stream of {@code config}, its state files in {@code dir}. */
  static Kind kind(BltConfig config, Path dir) {
    byte[] magic = "DPLRFBT1".getBytes(StandardCharsets.US_ASCII); // BltCodec's layout
    return new Kind("factorization", dir, magic,
        (key, instance) -> new FactorizationStream(BltStream.create(config, key, instance, dir)),
        (in, key, nodesInMemory) -> {
          BltStream restored = BltStream.readFrom(in, key, dir);
          ContinualStream.sameSettings(restored.config(), config);
          return new FactorizationStream(restored);
        });
  }

  /** R_t's file, for the integrity check: the prefix [1, t] (level and index unused). */
  StoredNode storedRelease(int t) {
    return new StoredNode(0, t - 1, 1, t, stream.releasePath(t));
  }

  /** The files a release of [s, e] reads: R_e, and R_{s−1} if s &gt; 1. */
  List<StoredNode> storedFiles(int s, int e) {
    List<StoredNode> out = new ArrayList<>(2);
    out.add(storedRelease(e));
    if (s > 1) {
      out.add(storedRelease(s - 1));
    }
    return out;
  }

  /** Checks R_t's file ({@link BltStream#verifyRelease}): cheap (its length) or whole. */
  void verify(StoredNode n, boolean whole) throws DamagedFileException {
    stream.verifyRelease((int) n.lastEpoch(), whole);
  }

  /** The stream itself: its plan (noise, buffers) for the status and the heap advice. */
  BltStream stream() {
    return stream;
  }

  @Override
  public void update(int i, int j, double delta) {
    stream.update(i, j, delta);
  }

  @Override
  public void applyBufferedUpdates() {
    stream.applyBufferedUpdates();
  }

  @Override
  public void closeEpoch() {
    stream.closeEpoch();
  }

  @Override
  public Closing beginClose() {
    PendingBltClose p = stream.beginClose();
    return new Closing() {
      @Override
      public int epoch() {
        return p.epoch();
      }

      @Override
      public void finish() {
        stream.finishClose(p);
      }
    };
  }

  @Override
  public void writeClosedState(OutputStream out) throws IOException {
    stream.writeClosedState(out);
  }

  @Override
  public void writeTo(OutputStream out) throws IOException {
    stream.writeTo(out);
  }

  @Override
  public boolean exhausted() {
    return stream.exhausted();
  }

  @Override
  public void markReleased(int epoch) {
    stream.markReleased(epoch);
  }

  @Override
  public String instance() {
    return stream.instance();
  }

  @Override
  public int epochsClosed() {
    return stream.epochsClosed();
  }

  @Override
  public int epochsReleasable() {
    return stream.epochsSnapshotted();
  }

  /** R_e, or R_e − R_{s−1}: read from their files by the supplier (the files never change). */
  @Override
  public Supplier<ReleasedSketches> range(int s, int e) {
    return s == 1 ? () -> stream.releasePrefix(e) : () -> stream.releaseRange(s, e);
  }

  @Override
  public long sizeInBytes() {
    return stream.sizeInBytes();
  }

  /** All of the stream's state is in memory and in its files already: nothing to choose. */
  @Override
  public void keepInMemoryAtMost(int nodes) {}
}
