package io.dplrf.deploy.serve.tree;

import io.dplrf.sketch.lra.ReleasedSketches;
import io.dplrf.sketch.tree.ContinualSketch;
import io.dplrf.sketch.tree.PendingClose;
import io.dplrf.sketch.tree.TreeConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * {@code continual = tree}: the binary tree of dyadic noisy nodes ({@link ContinualSketch},
 * docs/privacy/continual-release.md), each closed node a file in {@code nodes/}.
 */
final class TreeStream implements ContinualStream {
  private final ContinualSketch tree;

  private TreeStream(ContinualSketch tree) {
    this.tree = tree;
  }

  /** The tree of {@code config}, its node files in {@code dir}. */
  static Kind kind(TreeConfig config, Path dir) {
    byte[] magic = "DPLRFCT1".getBytes(StandardCharsets.US_ASCII); // TreeCodec's layout
    return new Kind("tree", dir, magic,
        (key, instance) -> new TreeStream(ContinualSketch.create(config, key, instance, dir)),
        (in, key, nodesInMemory) -> {
          ContinualSketch restored = ContinualSketch.readFrom(in, key, dir, nodesInMemory);
          ContinualStream.sameSettings(restored.config(), config);
          return new TreeStream(restored);
        });
  }

  TreeConfig config() {
    return tree.config();
  }

  /** The tree itself: its closed-node files, for the integrity check ({@link NodeFileCheck}). */
  ContinualSketch sketch() {
    return tree;
  }

  @Override
  public void update(int i, int j, double delta) {
    tree.update(i, j, delta);
  }

  @Override
  public void applyBufferedUpdates() {
    tree.applyBufferedUpdates();
  }

  @Override
  public void closeEpoch() {
    tree.closeEpoch();
  }

  @Override
  public Closing beginClose() {
    if (!tree.closesInBackground()) {
      return null;
    }
    PendingClose p = tree.beginClose();
    return new Closing() {
      @Override
      public int epoch() {
        return p.epoch();
      }

      @Override
      public void finish() {
        tree.finishClose(p); // installs its nodes under the tree's own monitor
      }
    };
  }

  @Override
  public void writeClosedState(OutputStream out) throws IOException {
    tree.writeClosedState(out);
  }

  @Override
  public void writeTo(OutputStream out) throws IOException {
    tree.writeTo(out);
  }

  @Override
  public boolean exhausted() {
    return tree.exhausted();
  }

  @Override
  public void markReleased(int epoch) {
    tree.markReleased(epoch);
  }

  @Override
  public String instance() {
    return tree.instance();
  }

  @Override
  public int epochsClosed() {
    return tree.epochsClosed();
  }

  @Override
  public int epochsReleasable() {
    return tree.epochsClosed();
  }

  /** The nodes tiling [s, e], looked up now; their noise is drawn (or read) by the supplier. */
  @Override
  public Supplier<ReleasedSketches> range(int s, int e) {
    return tree.rangeRelease(s, e);
  }

  @Override
  public long sizeInBytes() {
    return tree.sizeInBytes();
  }

  @Override
  public void keepInMemoryAtMost(int nodes) {
    tree.keepInMemoryAtMost(nodes);
  }
}
