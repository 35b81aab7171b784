package io.dplrf.sketch.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectFileOutputStreamTest {
  @TempDir Path dir;

  /** Opens a direct stream, or skips the test where the file system refuses direct I/O. */
  private DirectFileOutputStream open(Path file) throws IOException {
    DirectFileOutputStream out = DirectFileOutputStream.tryCreate(file);
    assumeTrue(out != null, "this file system refuses O_DIRECT (" + Files.getFileStore(dir) + ")");
    return out;
  }

  /**
   * The file holds exactly the bytes written, whatever the length relative to the block and the
   * buffer (the padding of the last block is cut off), written in chunks of any size and bytewise.
   */
  @Test
  void finish_leavesExactlyTheBytesWritten() throws Exception {
    int b = DirectFileOutputStream.BUFFER_BYTES;
    SplittableRandom r = new SplittableRandom(11);
    for (int length : new int[] {0, 1, 511, 4095, 4096, 4097, b - 1, b, b + 1, 3 * b + 12345}) {
      byte[] data = new byte[length];
      r.nextBytes(data);
      Path f = dir.resolve("f" + length);
      try (DirectFileOutputStream out = open(f)) {
        int p = 0;
        while (p < length) {
          if (r.nextInt(4) == 0) {
            out.write(data[p++]);
          } else {
            int n = Math.min(length - p, 1 + r.nextInt(3 * 4096));
            out.write(data, p, n);
            p += n;
          }
        }
        out.finish();
        assertEquals(length, out.written());
      }
      assertArrayEquals(data, Files.readAllBytes(f), "length " + length);
    }
  }

  @Test
  void tryCreate_createsTheFileOwnerOnly_andRefusesWritesAfterFinish() throws Exception {
    Path f = dir.resolve("node.tmp");
    try (DirectFileOutputStream out = open(f)) {
      out.write(new byte[] {1, 2, 3}, 0, 3);
      out.finish();
      assertThrows(IOException.class, () -> out.write(4));
      assertThrows(IOException.class, out::finish);
    }
    assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(f));
    if (Files.getFileStore(dir).supportsFileAttributeView(PosixFileAttributeView.class)) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
    }
  }

  /**
   * A write that fails on the writer thread is reported to the caller, by the write that needs
   * its buffer back or at the latest by {@link DirectFileOutputStream#finish}, and never passes
   * for written: here the channel is read-only, so every positional write fails.
   */
  @Test
  void aFailedBackgroundWrite_isReportedToTheCaller() throws Exception {
    Path f = dir.resolve("read-only");
    Files.write(f, new byte[0]);
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
      DirectFileOutputStream out = new DirectFileOutputStream(ch, 4096);
      byte[] chunk = new byte[DirectFileOutputStream.BUFFER_BYTES];
      IOException e = assertThrows(IOException.class, () -> {
        out.write(chunk, 0, chunk.length); // fills the first buffer
        out.write(chunk, 0, chunk.length); // hands it to the writer, fills the second
        out.write(1); // hands the second over once the first write has ended: it failed
        out.finish();
      });
      assertEquals("direct write failed", e.getMessage());
      out.close(); // nothing left in flight: closes without a second report
    }
  }
}
