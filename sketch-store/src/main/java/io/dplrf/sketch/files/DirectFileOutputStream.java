package io.dplrf.sketch.files;

import com.sun.nio.file.ExtendedOpenOption;
import io.dplrf.sketch.concurrent.Uninterruptibly;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Writes a new file with direct I/O ({@code O_DIRECT}), bypassing the page cache, for the large
 * files that are written once and read rarely (closed tree nodes, hundreds of MB each).
 *
 * <p>Why: through the page cache every byte is copied by the kernel into cache pages, which the
 * fsync then writes out; with the ingest path competing for the memory bus, that copy was half of
 * the epoch closer's CPU (docs/benchmarks-ingest.md). Direct I/O moves the data from one aligned
 * buffer to the disk; alone, writing and fsyncing 400 MB took 0.09–0.11 s of CPU instead of
 * 0.19–0.20 s.
 *
 * <p>Direct writes must start at an aligned address and offset and have an aligned length, so
 * the stream collects bytes in an aligned direct buffer of whole blocks and writes only whole
 * blocks; {@link #finish} pads the last block with zeros, writes it, cuts the file back to the
 * bytes written, and fsyncs. File systems that refuse direct I/O (tmpfs, some network file
 * systems) make {@link #tryCreate} return null: the caller writes through the page cache then.
 *
 * <p>Two buffers: while one is written (a positional write on the {@value #WRITER_THREAD} thread,
 * shared by all streams), the caller fills the other, so the encoding of a node (byte order, CRC)
 * overlaps the disk instead of taking turns with it (one write in flight at a time). A scratch
 * program writes and fsyncs 400 MB in 0.13–0.22 s instead of 0.20–0.24 s with one buffer; four
 * buffers are no faster than two (docs/benchmarks-ingest.md, "Choices on the update path"). A
 * failed write is reported by the next {@link
 * #write} that needs its buffer, or by {@link #finish}. Not thread-safe.
 */
public final class DirectFileOutputStream extends OutputStream {
  /** Buffer size: whole blocks of any power-of-two block size up to 1 MiB. */
  static final int BUFFER_BYTES = 1 << 20;
  /** The writer thread's name (benchmarks count its CPU with the epoch closer's). */
  public static final String WRITER_THREAD = "dplrf-direct-writer";
  /** One daemon thread: direct writes of all streams, one buffer at a time each. */
  private static final ExecutorService WRITER = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, WRITER_THREAD);
    t.setDaemon(true);
    return t;
  });

  private final FileChannel channel;
  private final int block;
  /** The buffer being filled. */
  private ByteBuffer buffer;
  /** The other buffer: being written while {@link #inFlight} is not null. */
  private ByteBuffer spare;
  private Future<?> inFlight;
  /** File offset of {@link #buffer}'s first byte (a multiple of the buffer size). */
  private long offset;
  private long written;
  private boolean finished;

  /** For tests: a stream over {@code channel} with {@code block}-byte alignment. */
  DirectFileOutputStream(FileChannel channel, int block) {
    this.channel = channel;
    this.block = block;
    this.buffer = alignedBuffer(block);
    this.spare = alignedBuffer(block);
  }

  private static ByteBuffer alignedBuffer(int block) {
    ByteBuffer b = ByteBuffer.allocateDirect(BUFFER_BYTES + block).alignedSlice(block);
    b.limit(BUFFER_BYTES);
    return b;
  }

  /**
   * Creates {@code file} (as {@link StateFiles#createForWriting}: new, owner-only) for direct
   * writes.
   *
   * @return null, with no file left behind, if the file system's block size is unknown or not a
   *     power of two up to 1 MiB, or if it refuses direct I/O
   * @throws IOException if the file cannot be created for another reason
   */
  public static DirectFileOutputStream tryCreate(Path file) throws IOException {
    Path dir = Objects.requireNonNull(file.toAbsolutePath().getParent(), "parent of " + file);
    long block;
    try {
      block = Files.getFileStore(dir).getBlockSize();
    } catch (UnsupportedOperationException e) {
      return null;
    }
    if (block <= 0 || block > BUFFER_BYTES || Long.bitCount(block) != 1) {
      return null;
    }
    FileChannel ch;
    try {
      ch = StateFiles.createForWriting(file, Set.of(ExtendedOpenOption.DIRECT));
    } catch (UnsupportedOperationException | IOException e) {
      // EINVAL from open(2) where the file system has no O_DIRECT; a genuine error (no space,
      // no permission) shows again when the caller creates the file without it.
      Files.deleteIfExists(file);
      return null;
    }
    return new DirectFileOutputStream(ch, (int) block);
  }

  @Override
  public void write(int b) throws IOException {
    requireOpen();
    if (!buffer.hasRemaining()) {
      drain();
    }
    buffer.put((byte) b);
    written++;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    requireOpen();
    while (len > 0) {
      if (!buffer.hasRemaining()) {
        drain();
      }
      int n = Math.min(len, buffer.remaining());
      buffer.put(b, off, n);
      off += n;
      len -= n;
      written += n;
    }
  }

  /**
   * Hands the buffer's whole blocks (its position is a multiple of the block size) to the writer
   * thread at their file offset, once the previous write has ended, and goes on in the other
   * buffer.
   */
  private void drain() throws IOException {
    awaitInFlight(); // the spare is free again
    ByteBuffer full = buffer;
    full.flip();
    long at = offset;
    offset += full.remaining();
    inFlight = WRITER.submit(() -> {
      while (full.hasRemaining()) {
        channel.write(full, at + full.position());
      }
      return null;
    });
    buffer = spare;
    spare = full;
    buffer.clear();
    buffer.limit(BUFFER_BYTES);
  }

  /**
   * Waits for the write in flight, if any (through interrupts: it ends by itself, and the caller
   * must not reuse its buffer before); rethrows its failure.
   */
  private void awaitInFlight() throws IOException {
    Future<?> f = inFlight;
    if (f == null) {
      return;
    }
    inFlight = null;
    try {
      Uninterruptibly.get(f);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof IOException io) {
        throw io;
      }
      throw new IOException("direct write failed", c);
    }
  }

  /**
   * Writes what is buffered (the last block padded with zeros), cuts the file back to exactly
   * the bytes written and fsyncs it (data and metadata). No writes after this.
   */
  public void finish() throws IOException {
    writeOut();
    sync();
  }

  /**
   * The first half of {@link #finish}: writes what is buffered (the last block padded with
   * zeros) and cuts the file back to exactly the bytes written. No writes after this; {@link
   * #sync} next ({@code WriteSteps.Step.WRITTEN} lies between the two).
   */
  public void writeOut() throws IOException {
    requireOpen();
    int tail = buffer.position();
    int padded = (tail + block - 1) / block * block; // ≤ the limit: blocks divide BUFFER_BYTES
    while (buffer.position() < padded) {
      buffer.put((byte) 0);
    }
    drain();
    awaitInFlight();
    channel.truncate(written);
    finished = true;
  }

  /** The second half of {@link #finish}: fsyncs the file (data and metadata). */
  public void sync() throws IOException {
    if (!finished || !channel.isOpen()) {
      throw new IOException("sync before writeOut, or after close");
    }
    channel.force(true);
  }

  /** Bytes written so far (the file's length after {@link #finish}). */
  public long written() {
    return written;
  }

  private void requireOpen() throws IOException {
    if (finished || !channel.isOpen()) {
      throw new IOException("stream finished or closed");
    }
  }

  /**
   * Closes the file once a write in flight has ended; without {@link #finish} first, the last
   * partial block is not written.
   */
  @Override
  public void close() throws IOException {
    try {
      awaitInFlight();
    } finally {
      channel.close();
    }
  }
}
