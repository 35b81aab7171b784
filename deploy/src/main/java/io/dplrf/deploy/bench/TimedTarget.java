package io.dplrf.deploy.bench;

import io.dplrf.ingest.IngestTarget;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * An ingest target that times the epoch closes and the snapshot that follows each (up to the
 * listener), for {@link IngestBench}; the benchmark never restores, so {@link #readState} fails.
 */
final class TimedTarget implements IngestTarget {
  private final IngestTarget target;
  final double[] close;
  final double[] finish;
  final double[] snapshot;
  private final long[] closeEnd;

  TimedTarget(IngestTarget target, int epochs) {
    this.target = target;
    this.close = new double[epochs];
    this.finish = new double[epochs];
    this.snapshot = new double[epochs];
    this.closeEnd = new long[epochs];
  }

  @Override
  public void update(int i, int j, double delta) {
    target.update(i, j, delta);
  }

  @Override
  public void closeEpoch() {
    long t0 = System.nanoTime();
    target.closeEpoch();
    int e = target.epochsClosed() - 1;
    closeEnd[e] = System.nanoTime();
    close[e] = (closeEnd[e] - t0) / 1e9;
  }

  @Override
  public ClosingEpoch beginCloseEpoch() {
    long t0 = System.nanoTime();
    ClosingEpoch c = target.beginCloseEpoch();
    if (c == null) {
      return null;
    }
    int e = c.epoch() - 1;
    close[e] = (System.nanoTime() - t0) / 1e9;
    return new ClosingEpoch() {
      @Override
      public int epoch() {
        return c.epoch();
      }

      @Override
      public void finish() throws IOException {
        long f0 = System.nanoTime();
        c.finish();
        closeEnd[e] = System.nanoTime();
        finish[e] = (closeEnd[e] - f0) / 1e9;
      }

      @Override
      public void writeState(OutputStream out) throws IOException {
        c.writeState(out);
      }
    };
  }

  void snapshotDone(int epoch) {
    snapshot[epoch - 1] = (System.nanoTime() - closeEnd[epoch - 1]) / 1e9;
  }

  @Override
  public boolean exhausted() {
    return target.exhausted();
  }

  @Override
  public int epochsClosed() {
    return target.epochsClosed();
  }

  @Override
  public void writeState(OutputStream out) throws IOException {
    target.writeState(out);
  }

  @Override
  public void readState(InputStream in) throws IOException {
    throw new UncheckedIOException(new IOException("the benchmark never restores"));
  }
}
