package io.dplrf.sketch.tree;

import io.dplrf.sketch.files.DamagedFileException;
import io.dplrf.sketch.files.DirectFileOutputStream;
import io.dplrf.sketch.files.ReleasedMark;
import io.dplrf.sketch.files.StateFiles;
import io.dplrf.sketch.files.WriteSteps;
import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.lra.SketchCodec;
import io.dplrf.sketch.tree.Dyadic.NodeId;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;

/**
 * Every closed node's {@code SketchCodec} bytes, for range releases (any closed node may be part
 * of a range's decomposition). Two stores: in memory (O(T) sketches: acceptable for small
 * sketches or short streams, and then also part of the tree snapshot), or one file per node in a
 * directory, created {@code rw-------} ({@link StateFiles}), written crash-safely (temp file,
 * fsync, atomic rename, fsync of the directory; {@link WriteSteps}) before {@code
 * put} returns, hence before the snapshot that names the node, and read back on demand. A node
 * file never changes once the snapshot of its epoch is written; before that, a crash or a failed
 * close may leave it, and the close of the same epoch after the restart writes it again
 * (docs/privacy/recovery.md: nothing of it was released).
 */
abstract sealed class NodeArchive {
  /** How a node's bytes are produced: written straight to the file, or into memory. */
  @FunctionalInterface
  interface NodeWriter {
    void writeTo(OutputStream out) throws IOException;
  }

  abstract void put(NodeId id, NodeWriter node);

  /** The released-epoch guard's file in a node directory ({@code ReleasedMark}). */
  static final String RELEASED_FILE = "released.mark";

  /**
   * Writes the released-epoch guard's bytes crash-safely, replacing the last; a node directory
   * only.
   *
   * @throws UncheckedIOException if it cannot be written
   */
  void putReleasedMark(byte[] bytes) {
    throw new UnsupportedOperationException("nodes kept in memory have no guard");
  }

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

  /** The file holding a closed node, or null if nodes are kept in memory. */
  abstract Path fileOf(NodeId id);

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
    Path fileOf(NodeId id) {
      return null;
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
    /**
     * The CRC32C of every node file this stream has written, or its snapshot records (tree format
     * 6): the label binds a file to its node, this to the close the snapshot holds, so that a node
     * of a close a crash undid (same label, possibly other data under the same noise) is never
     * read, even put back from a backup ({@link #open}; docs/privacy/recovery.md §5).
     */
    final Map<NodeId, Integer> crcs = new ConcurrentHashMap<>();
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

    Path releasedMarkFile() {
      return dir.resolve(RELEASED_FILE);
    }

    @Override
    void putReleasedMark(byte[] bytes) {
      Path target = releasedMarkFile();
      Path tmp = temp(target);
      try {
        StateFiles.createDirectories(dir);
        try (FileChannel ch = StateFiles.createForWriting(tmp)) {
          ch.write(ByteBuffer.wrap(bytes));
          ch.force(true);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        sync.fsync(dir);
      } catch (IOException e) {
        deleteQuietly(tmp, e);
        throw new UncheckedIOException("cannot store the released-epoch guard in " + dir, e);
      }
    }

    /**
     * The guard's epoch for the stream {@code instance}, or −1 if there is no guard file.
     *
     * @throws DamagedFileException naming the guard if it is damaged or another stream's
     */
    int readReleasedMark(String instance) throws IOException {
      Path f = releasedMarkFile();
      if (!Files.exists(f)) {
        return -1;
      }
      try (InputStream in = Files.newInputStream(f)) {
        return ReleasedMark.decode(in, f, instance);
      }
    }

    /** The node file here whose epochs end last, or null if there is none. */
    NodeId newestNode() throws IOException {
      NodeId newest = null;
      if (!Files.isDirectory(dir)) {
        return null;
      }
      try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "node-*.sketch")) {
        for (Path p : s) {
          Matcher m = NODE_FILE.matcher(p.getFileName().toString());
          if (m.matches()) {
            long index = Long.parseLong(m.group(2));
            if (index > Integer.MAX_VALUE) {
              continue; // not a name this store writes
            }
            NodeId id = new NodeId(Integer.parseInt(m.group(1)), (int) index);
            if (newest == null || id.end() > newest.end()) {
              newest = id;
            }
          }
        }
      }
      return newest;
    }

    private static final Pattern NODE_FILE =
        Pattern.compile("node-(\\d{1,2})-(\\d{1,10})\\.sketch");

    /** True if {@code dir} already holds node files (of this or another stream). */
    static boolean hasNodeFiles(Path dir) throws IOException {
      if (!Files.isDirectory(dir)) {
        return false;
      }
      try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "node-*.sketch")) {
        return s.iterator().hasNext();
      }
    }

    /**
     * The crash-safe write of one node file, step by step ({@link WriteSteps}): temp file
     * (CREATED, WRITTEN), fsync (SYNCED), atomic rename (RENAMED), fsync of the directory
     * (DURABLE). A failed write (no space left, an I/O error) deletes its temp file and changes
     * nothing else: the node file is absent or the one of an earlier write of the same node, and
     * the write may be retried.
     */
    @Override
    void put(NodeId id, NodeWriter node) {
      Path target = file(id);
      Path tmp = temp(target);
      CRC32C[] last = new CRC32C[1];
      NodeWriter checked = out -> { // once per attempt: direct I/O, then the page cache
        CRC32C crc = new CRC32C();
        node.writeTo(new CheckedOutputStream(out, crc));
        last[0] = crc;
      };
      try {
        StateFiles.createDirectories(dir);
        writeTemp(tmp, target, checked);
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        WriteSteps.reached(WriteSteps.Step.RENAMED, target);
        // The rename is durable only once the directory is: without this, a crash after the
        // snapshot naming this node (written after closeEpoch returns) could lose the file, and
        // the restore would fail on a missing closed node.
        sync.fsync(dir);
        WriteSteps.reached(WriteSteps.Step.DURABLE, target);
        crcs.put(id, (int) last[0].getValue());
      } catch (IOException e) {
        deleteQuietly(tmp, e);
        throw new UncheckedIOException("cannot store closed node " + id + " in " + dir, e);
      }
    }

    private static Path temp(Path target) {
      return target.resolveSibling(target.getFileName() + ".tmp");
    }

    private static void deleteQuietly(Path tmp, IOException failure) {
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException e) {
        failure.addSuppressed(e);
      }
    }

    private static void writeThroughPageCache(Path tmp, Path target, NodeWriter node)
        throws IOException {
      try (FileChannel ch = StateFiles.createForWriting(tmp);
          OutputStream out = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16)) {
        WriteSteps.reached(WriteSteps.Step.CREATED, target);
        node.writeTo(out);
        out.flush();
        WriteSteps.reached(WriteSteps.Step.WRITTEN, target);
        ch.force(true);
        WriteSteps.reached(WriteSteps.Step.SYNCED, target);
      }
    }

    /**
     * Writes and fsyncs the temp file (owner-only from creation: a node file holds the node's
     * noiseless sketch): with direct I/O ({@link DirectFileOutputStream}: no copy into the page
     * cache) unless this directory's file system refused it before, else through the page cache.
     */
    private void writeTemp(Path tmp, Path target, NodeWriter node) throws IOException {
      boolean tried = direct;
      if (tried && writeDirect(tmp, target, node)) {
        return;
      }
      try {
        writeThroughPageCache(tmp, target, node);
      } catch (IOException e) {
        // The page cache fails too (no space left, an I/O error): direct I/O was not what
        // failed, and later nodes try it again.
        direct = tried || direct;
        throw e;
      }
    }

    /**
     * @return false if the file system refuses direct I/O, at open or at a write (the caller
     *     writes through the page cache then, and so does every later node)
     * @throws IOException if the complete, written file cannot be synced or a step after that
     *     fails
     */
    private boolean writeDirect(Path tmp, Path target, NodeWriter node) throws IOException {
      try (DirectFileOutputStream out = DirectFileOutputStream.tryCreate(tmp)) {
        if (out == null) {
          direct = false;
          return false;
        }
        try {
          WriteSteps.reached(WriteSteps.Step.CREATED, target);
          node.writeTo(out);
          out.writeOut();
        } catch (IOException e) {
          // Some file systems accept O_DIRECT at open and refuse the writes; the page-cache
          // path recreates the file.
          direct = false;
          return false;
        }
        WriteSteps.reached(WriteSteps.Step.WRITTEN, target);
        out.sync();
        WriteSteps.reached(WriteSteps.Step.SYNCED, target);
        return true;
      }
    }

    /**
     * Deletes the temp files of node and guard writes that a crash interrupted ({@code
     * node-*.sketch.tmp}, {@code released.mark.tmp}):
     * no reader uses them, and the node they were for is written again when its epoch closes
     * again. Call before any write in {@code dir}.
     */
    static void removeTemporaries(Path dir) throws IOException {
      if (!Files.isDirectory(dir)) {
        return;
      }
      try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "node-*.sketch.tmp")) {
        for (Path tmp : s) {
          Files.deleteIfExists(tmp);
        }
      }
      Files.deleteIfExists(dir.resolve(RELEASED_FILE + ".tmp"));
    }

    /**
     * The node's file as a stream; a missing file is a {@link DamagedFileException} naming it
     * (decoding errors are named by the caller, which reads the bytes).
     */
    @Override
    InputStream open(NodeId id) throws IOException {
      Path f = file(id);
      InputStream raw;
      try {
        raw = Files.newInputStream(f);
      } catch (NoSuchFileException e) {
        throw new DamagedFileException(f, "missing", e);
      }
      Integer want = crcs.get(id);
      return want == null ? raw : new Recorded(raw, want, f);
    }

    /**
     * A node file's bytes with the CRC32C the stream recorded for it: a reader that has parsed the
     * node checks the whole file against it ({@link #requireRecorded}).
     */
    static final class Recorded extends FilterInputStream {
      private final CRC32C crc = new CRC32C();
      private final int want;
      private final Path file;
      private boolean checked;

      Recorded(InputStream in, int want, Path file) {
        super(in);
        this.want = want;
        this.file = file;
      }

      @Override
      public int read() throws IOException {
        int b = in.read();
        if (b >= 0) {
          crc.update(b);
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, len);
        if (n > 0) {
          crc.update(b, off, n);
        }
        return n;
      }

      @Override
      public long skip(long n) throws IOException {
        byte[] scratch = new byte[(int) Math.min(n, 1 << 16)];
        int r = read(scratch, 0, scratch.length);
        return Math.max(r, 0);
      }

      /**
       * Reads the rest of the file and compares all of its bytes with the recorded CRC32C.
       *
       * @throws DamagedFileException naming the file if it is not the one the snapshot records
       */
      void requireRecorded() throws IOException {
        transferTo(OutputStream.nullOutputStream());
        if (!checked && (int) crc.getValue() != want) {
          throw new DamagedFileException(file, "not the one the snapshot records (CRC "
              + Integer.toHexString((int) crc.getValue()) + ", expected "
              + Integer.toHexString(want) + "): a node of a close that a crash undid?", null);
        }
        checked = true;
      }
    }

    @Override
    Path fileOf(NodeId id) {
      return file(id);
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
