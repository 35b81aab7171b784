package io.dplrf.deploy.serve.tree;

import io.dplrf.sketch.continual.BltConfig;
import io.dplrf.sketch.continual.BltStream;
import io.dplrf.sketch.continual.PendingBltClose;
import io.dplrf.sketch.lra.ReleasedSketches;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * {@code continual = factorization} (the default for priv2 and priv2-sparse in mode updates): the
 * release after epoch t is B(Cx + z)_t with a buffered linear Toeplitz pair ({@link BltStream},
 * docs/privacy/blt-release.md), its state files in {@code blt/}. Every R_t is kept, so a range
 * [s, e] is R_e − R_{s−1}: post-processing of two prefixes, no noise drawn.
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
