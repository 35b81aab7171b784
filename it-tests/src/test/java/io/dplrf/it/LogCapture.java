package io.dplrf.it;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What the service logs while it is open: {@link System#err} (where slf4j-simple writes, looked
 * up at every line) is teed into a buffer, so the log still reaches the console. Tests run one
 * at a time in the suite's JVM.
 */
final class LogCapture implements AutoCloseable {
  private final PrintStream original = System.err;
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

  LogCapture() {
    OutputStream tee = new OutputStream() {
      @Override
      public void write(int b) {
        original.write(b);
        synchronized (buffer) {
          buffer.write(b);
        }
      }

      @Override
      public void write(byte[] b, int off, int len) {
        original.write(b, off, len);
        synchronized (buffer) {
          buffer.write(b, off, len);
        }
      }
    };
    System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
  }

  /** The lines logged so far. */
  String[] lines() {
    synchronized (buffer) {
      return buffer.toString(StandardCharsets.UTF_8).split("\n");
    }
  }

  @Override
  public void close() {
    System.setErr(original);
  }
}
