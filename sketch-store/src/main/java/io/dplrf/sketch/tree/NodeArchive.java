package io.dplrf.sketch.tree;

import io.dplrf.sketch.files.DirectFileOutputStream;
import io.dplrf.sketch.files.StateFiles;
import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.lra.SketchCodec;
import io.dplrf.sketch.tree.Dyadic.NodeId;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every closed node's {@code SketchCodec} bytes, for range releases (any closed node may be part
 * of a range's decomposition). Two stores: in memory (O(T) sketches: acceptable for small
 * sketches or short streams, and then also part of the tree snapshot), or one file per node in a
 * directory, created {@code rw-------} ({@link StateFiles}), written crash-safely (temp file,
 * fsync, atomic rename, fsync of the directory) before {@code put} returns, hence
 * before the snapshot that names the node, and read back on demand. Closed nodes never change, so a file is written once per node.
 */
abstract sealed class NodeArchive {
  /** How a node's bytes are produced: written straight to the file, or into memory. */
  @FunctionalInterface
  interface NodeWriter {
    void writeTo(OutputStream out) throws IOException;
  }

  abstract void put(NodeId id, NodeWriter node);

  void put(NodeId id, byte[] bytes) {
    put(id, out -> out.write(bytes));
  }

  /** Archives a closed node ({@link SketchCodec} bytes). */
  void put(NodeId id, NoisyLinearSketch node) {
    put(id, out -> SketchCodec.write(node, out));
  }

  /**
   * A closed node's bytes as a stream, read from its file as the caller consumes them: a node is ≈
   * 400 MB at the default sizes, so nothing holds all of its bytes at once.
   */
  abstract InputStream open(NodeId id) throws IOException;

  abstract boolean inMemory();

  abstract long bytesInMemory();

  static NodeArchive memory() {
    return new Memory();
  }

  static NodeArchive directory(Path dir) {
    return new Directory(dir);
  }

  static final class Memory extends NodeArchive {
    /**
     * Concurrent: a release reads its nodes outside the tree's lock ({@link
     * ContinualSketch#rangeRelease}) while an epoch close may add nodes. Closes are serialised,
     * so {@link #put} has one writer at a time.
     */
    final Map<NodeId, byte[]> nodes = new ConcurrentHashMap<>();
    private volatile long bytes;

    @Override
    void put(NodeId id, NodeWriter node) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try {
        node.writeTo(out);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      byte[] b = out.toByteArray();
      byte[] old = nodes.put(id, b);
      bytes += b.length - (old == null ? 0 : old.length);
    }

    @Override
    InputStream open(NodeId id) throws IOException {
      byte[] b = nodes.get(id);
      if (b == null) {
        throw new IOException("closed node " + id + " is missing from the in-memory store");
      }
      return new ByteArrayInputStream(b);
    }

    @Override
    boolean inMemory() {
      return true;
    }

    @Override
    long bytesInMemory() {
      return bytes;
    }
  }

  static final class Directory extends NodeArchive {
    /** How a directory is made durable; a seam for tests, else {@link StateFiles#fsyncDirectory}. */
    @FunctionalInterface
    interface DirectorySync {
      void fsync(Path dir) throws IOException;
    }

    private final Path dir;
    private final DirectorySync sync;
    /** False once the file system has refused direct I/O ({@link #writeDirect}). */
    private volatile boolean direct = true;

    Directory(Path dir) {
      this(dir, StateFiles::fsyncDirectory);
    }

    Directory(Path dir, DirectorySync sync) {
      this.dir = dir;
      this.sync = sync;
    }

    Path file(NodeId id) {
      return dir.resolve("node-" + id.level() + "-" + id.index() + ".sketch");
    }

    /** True if {@code dir} already holds node files (of this or another stream). */
    static boolean hasNodeFiles(Path dir) throws IOException {
      if (!Files.isDirectory(dir)) {
        return false;
      }
      try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "node-*.sketch")) {
        return s.iterator().hasNext();
      }
    }

    @Override
    void put(NodeId id, NodeWriter node) {
      try {
        StateFiles.createDirectories(dir);
        Path target = file(id);
        Path tmp = dir.resolve(target.getFileName() + ".tmp");
        // Owner-only from creation: a node file holds the node's noiseless sketch.
        if (!writeDirect(tmp, node)) {
          try (FileChannel ch = StateFiles.createForWriting(tmp);
              OutputStream out = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16)) {
            node.writeTo(out);
            out.flush();
            ch.force(true);
          }
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        // The rename is durable only once the directory is: without this, a crash after the
        // snapshot naming this node (written after closeEpoch returns) could lose the file, and
        // the restore would fail on a missing closed node.
        sync.fsync(dir);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot store closed node " + id + " in " + dir, e);
      }
    }

    /**
     * Writes and fsyncs {@code tmp} with direct I/O ({@link DirectFileOutputStream}: no copy into
     * the page cache), unless this directory's file system refused it before.
     *
     * @return false if the file system refuses direct I/O (at open, or at a write: the file is
     *     then written through the page cache, now and for every later node)
     */
    private boolean writeDirect(Path tmp, NodeWriter node) {
      if (!direct) {
        return false;
      }
      try (DirectFileOutputStream out = DirectFileOutputStream.tryCreate(tmp)) {
        if (out == null) {
          direct = false;
          return false;
        }
        node.writeTo(out);
        out.finish();
        return true;
      } catch (IOException e) {
        // Some file systems accept O_DIRECT at open and refuse the writes; the page-cache path
        // recreates the file, and a genuine error (no space left) fails there again.
        direct = false;
        return false;
      }
    }

    @Override
    InputStream open(NodeId id) throws IOException {
      Path f = file(id);
      try {
        return Files.newInputStream(f);
      } catch (NoSuchFileException e) {
        throw new IOException("closed node file " + f + " is missing", e);
      }
    }

    @Override
    boolean inMemory() {
      return false;
    }

    @Override
    long bytesInMemory() {
      return 0;
    }
  }
}
