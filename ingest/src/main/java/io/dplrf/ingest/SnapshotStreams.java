package io.dplrf.ingest;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** The two stream wrappers {@link StateStore#read} uses to hand the target exactly its state. */
final class SnapshotStreams {
  private SnapshotStreams() {}

  /** Counts the bytes read through it. */
  static final class CountingInputStream extends FilterInputStream {
    long count;

    CountingInputStream(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int r = in.read(b, off, len);
      if (r > 0) {
        count += r;
      }
      return r;
    }
  }

  /** Exactly {@code remaining} bytes of the underlying stream; ignores close. */
  static final class LimitedInputStream extends FilterInputStream {
    long remaining;

    LimitedInputStream(InputStream in, long limit) {
      super(in);
      this.remaining = limit;
    }

    @Override
    public int read() throws IOException {
      if (remaining <= 0) {
        return -1;
      }
      int b = in.read();
      if (b >= 0) {
        remaining--;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (remaining <= 0) {
        return len == 0 ? 0 : -1;
      }
      int r = in.read(b, off, (int) Math.min(len, remaining));
      if (r > 0) {
        remaining -= r;
      }
      return r;
    }

    @Override
    public long skip(long n) throws IOException {
      long s = in.skip(Math.min(n, remaining));
      remaining -= s;
      return s;
    }

    @Override
    public int available() throws IOException {
      return (int) Math.min(in.available(), remaining);
    }

    @Override
    public void close() {}

    @Override
    public boolean markSupported() {
      return false;
    }
  }
}
