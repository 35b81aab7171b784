package io.dplrf.sketch.continual;

import io.dplrf.sketch.files.DamagedFileException;
import io.dplrf.sketch.files.DirectFileOutputStream;
import io.dplrf.sketch.files.StateFiles;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;

/**
 * Where a BLT stream keeps its state files ({@code SketchCodec} bytes of the encoder and decoder
 * buffers and of every released prefix, {@link BltStream}): a directory, each file created
 * {@code rw-------} ({@link StateFiles}; the encoder buffers are sums of the raw data, as secret
 * as the data itself, and never served) and written
 * crash-safely — temp file, fsync, atomic rename, fsync of the directory — before
 * {@link #put} returns, hence before the snapshot that names it; or memory, for tests and
 * benchmarks of streams that need no restart across processes.
 *
 * <p>A state file is never changed once a durable snapshot names it. Files of a close whose
 * snapshot was not made durable are rewritten when a restore closes that epoch again, possibly
 * with other bytes (other updates may fall into the epoch); nothing has served them
 * (blt-release.md §5). The released-epoch mark is rewritten, each time with a later epoch.
 * Thread-safe: releases read files on any thread while a close writes new ones.
 */
abstract sealed class BltFiles {
  /** The files of every BLT stream start with this. */
  static final String PREFIX = "blt-";

  /** How a file's bytes are produced. */
  @FunctionalInterface
  interface Writer {
    void writeTo(OutputStream out) throws IOException;
  }

  /** A written file: its name, length and the CRC32C of all its bytes (named by the snapshot). */
  record Written(String name, long length, int crc) {}

  /**
   * Writes {@code name} whole, replacing any file of that name.
   *
   * @throws UncheckedIOException if it cannot be written
   */
  abstract Written put(String name, Writer writer);

  /**
   * The file's bytes, read as the caller consumes them.
   *
   * @throws DamagedFileException naming the file if it is missing
   */
  abstract InputStream open(String name) throws IOException;

  /**
   * The file {@code name} as errors name it: its path in the directory, or the bare name in
   * memory.
   */
  abstract Path fileOf(String name);

  /** The file's length in bytes, or −1 if it is missing. */
  abstract long length(String name) throws IOException;

  abstract boolean exists(String name) throws IOException;

  /** Deletes {@code name} if it exists. */
  abstract void delete(String name) throws IOException;

  /** True if any BLT stream's file is here (a new stream refuses such a store). */
  abstract boolean holdsStreamFiles() throws IOException;

  /** The names of the BLT files here ({@link #PREFIX}), temporary files excluded. */
  abstract List<String> names() throws IOException;

  abstract long bytesInMemory();

  static BltFiles memory() {
    return new Memory();
  }

  /**
   * The files in {@code dir}. Temp files a crash or a refused write left there are deleted: no
   * snapshot names one, and a full disk should not keep them.
   */
  static BltFiles directory(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, PREFIX + "*.tmp")) {
        for (Path tmp : s) {
          Files.deleteIfExists(tmp);
        }
      }
    }
    return new Directory(dir);
  }

  /** Counts the bytes and their CRC32C on the way to {@code out}. */
  private static final class Checked extends FilterOutputStream {
    final CRC32C crc = new CRC32C();
    long length;

    Checked(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      crc.update(b);
      length++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      crc.update(b, off, len);
      length += len;
    }

    Written written(String name) {
      return new Written(name, length, (int) crc.getValue());
    }
  }

  static final class Memory extends BltFiles {
    final Map<String, byte[]> files = new ConcurrentHashMap<>();

    @Override
    Written put(String name, Writer writer) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      Checked out = new Checked(bytes);
      try {
        writer.writeTo(out);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      files.put(name, bytes.toByteArray());
      return out.written(name);
    }

    @Override
    InputStream open(String name) throws IOException {
      byte[] b = files.get(name);
      if (b == null) {
        throw new DamagedFileException(fileOf(name), "missing from the in-memory store", null);
      }
      return new ByteArrayInputStream(b);
    }

    @Override
    Path fileOf(String name) {
      return Path.of(name);
    }

    @Override
    long length(String name) {
      byte[] b = files.get(name);
      return b == null ? -1 : b.length;
    }

    @Override
    boolean exists(String name) {
      return files.containsKey(name);
    }

    @Override
    void delete(String name) {
      files.remove(name);
    }

    @Override
    boolean holdsStreamFiles() {
      return !files.isEmpty();
    }

    @Override
    List<String> names() {
      return List.copyOf(files.keySet());
    }

    @Override
    long bytesInMemory() {
      long b = 0;
      for (byte[] f : files.values()) {
        b += f.length;
      }
      return b;
    }
  }

  static final class Directory extends BltFiles {
    /** How a directory is made durable; a seam for tests, else {@link StateFiles#fsyncDirectory}. */
    @FunctionalInterface
    interface DirectorySync {
      void fsync(Path dir) throws IOException;
    }

    final Path dir;
    private final DirectorySync sync;
    /** False once the file system has refused direct I/O. */
    private volatile boolean direct = true;

    Directory(Path dir) {
      this(dir, StateFiles::fsyncDirectory);
    }

    Directory(Path dir, DirectorySync sync) {
      this.dir = dir;
      this.sync = sync;
    }

    @Override
    Written put(String name, Writer writer) {
      Path tmp = dir.resolve(name + ".tmp");
      try {
        StateFiles.createDirectories(dir);
        Path target = dir.resolve(name);
        Written w = writeDirect(tmp, name, writer);
        if (w == null) {
          try (FileChannel ch = StateFiles.createForWriting(tmp);
              OutputStream file = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16)) {
            Checked out = new Checked(file);
            writer.writeTo(out);
            out.flush();
            ch.force(true);
            w = out.written(name);
          }
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        // The rename is durable only once the directory is: a snapshot naming this file may be
        // written as soon as put returns.
        sync.fsync(dir);
        return w;
      } catch (IOException e) {
        try {
          Files.deleteIfExists(tmp); // a refused write (disk full) leaves nothing behind
        } catch (IOException again) {
          e.addSuppressed(again);
        }
        throw new UncheckedIOException("cannot store " + name + " in " + dir, e);
      }
    }

    /**
     * Writes and fsyncs {@code tmp} with direct I/O ({@link DirectFileOutputStream}: files of
     * hundreds of MB written once and read rarely), as the tree's node files are.
     *
     * @return null if the file system refuses direct I/O (now and for every later file)
     */
    private Written writeDirect(Path tmp, String name, Writer writer) {
      if (!direct) {
        return null;
      }
      try (DirectFileOutputStream file = DirectFileOutputStream.tryCreate(tmp)) {
        if (file == null) {
          direct = false;
          return null;
        }
        Checked out = new Checked(file);
        writer.writeTo(out);
        file.finish();
        return out.written(name);
      } catch (IOException e) {
        // Some file systems accept O_DIRECT at open and refuse the writes; the page-cache path
        // recreates the file, and a genuine error (no space left) fails there again.
        direct = false;
        return null;
      }
    }

    @Override
    InputStream open(String name) throws IOException {
      Path f = dir.resolve(name);
      try {
        return Files.newInputStream(f);
      } catch (NoSuchFileException e) {
        throw new DamagedFileException(f, "missing from the state store", e);
      }
    }

    @Override
    Path fileOf(String name) {
      return dir.resolve(name);
    }

    @Override
    long length(String name) throws IOException {
      try {
        return Files.size(dir.resolve(name));
      } catch (NoSuchFileException e) {
        return -1;
      }
    }

    @Override
    boolean exists(String name) {
      return Files.exists(dir.resolve(name));
    }

    @Override
    void delete(String name) throws IOException {
      Files.deleteIfExists(dir.resolve(name));
    }

    @Override
    boolean holdsStreamFiles() throws IOException {
      if (!Files.isDirectory(dir)) {
        return false;
      }
      try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, PREFIX + "*")) {
        return s.iterator().hasNext();
      }
    }

    @Override
    List<String> names() throws IOException {
      if (!Files.isDirectory(dir)) {
        return List.of();
      }
      List<String> names = new ArrayList<>();
      try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, PREFIX + "*")) {
        for (Path p : s) {
          String name = p.getFileName().toString();
          if (!name.endsWith(".tmp")) {
            names.add(name);
          }
        }
      }
      return names;
    }

    @Override
    long bytesInMemory() {
      return 0;
    }
  }
}
