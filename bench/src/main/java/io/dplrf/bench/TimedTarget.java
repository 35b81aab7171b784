package io.dplrf.bench;

import io.dplrf.deploy.serve.tree.TreeTarget;
import io.dplrf.ingest.IngestTarget;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The tree as {@link IngestBench} drives it: counts the updates applied, with the time of every
 * {@link #SAMPLE}-th so that the rate over any interval can be read afterwards, and marks the end
 * of each epoch. Epoch 1 ends with its buffered updates applied on the ingest thread, before its
 * close begins, so that the first window holds the whole ingest work of its updates and no part
 * of a close. The benchmark never restores, so {@link #readState} fails.
 */
final class TimedTarget implements IngestTarget {
  /** Updates between two time samples (a power of two). */
  static final int SAMPLE = 1 << 16;

  /** The first window's CPU by group of threads and the host's, taken where it ends. */
  record Window(Map<String, Double> cpuSeconds, HostCpu.Usage host) {}

  private final TreeTarget target;
  private final Supplier<Window> windowEnd;
  private final long[] sampleNanos;
  private long count;
  private final long[] epochEnd = new long[3];
  private Window window;

  TimedTarget(TreeTarget target, long updates, Supplier<Window> windowEnd) {
    this.target = target;
    this.windowEnd = windowEnd;
    this.sampleNanos = new long[(int) (updates / SAMPLE) + 2];
  }

  /** The loop starts now: update count 0. */
  void start(long nanos) {
    sampleNanos[0] = nanos;
  }

  /** The sink of the loop's update decoder: applies and counts. */
  void update(int i, int j, double delta) {
    target.update(i, j, delta);
    if ((++count & (SAMPLE - 1)) == 0) {
      sampleNanos[(int) (count / SAMPLE)] = System.nanoTime();
    }
  }

  @Override
  public void closeEpoch() {
    throw new IllegalStateException("the benchmark's tree closes in the background");
  }

  @Override
  public ClosingEpoch beginCloseEpoch() {
    int e = target.epochsClosed() + 1;
    if (e == 1) {
      target.applyBufferedUpdates();
      epochEnd[1] = System.nanoTime();
      window = windowEnd.get();
    } else {
      epochEnd[e] = System.nanoTime();
    }
    ClosingEpoch c = target.beginCloseEpoch();
    if (c == null) {
      throw new IllegalStateException("the benchmark's tree closes in the background");
    }
    return c;
  }

  /** When epoch {@code e} (1 or 2) ended: the first window's end for epoch 1. */
  long epochEnd(int e) {
    return epochEnd[e];
  }

  /** The first window's CPU. */
  Window window() {
    return window;
  }

  /** Updates applied per second between two instants of the run, read from the samples. */
  double rate(long from, long to) {
    return (countAt(to) - countAt(from)) / ((to - from) / 1e9);
  }

  /** Updates applied by {@code nanos}, interpolated between the samples around it. */
  private double countAt(long nanos) {
    int last = (int) (count / SAMPLE);
    for (int s = 1; s <= last; s++) {
      if (sampleNanos[s] >= nanos) {
        long t0 = sampleNanos[s - 1];
        return SAMPLE * (s - 1 + (double) (nanos - t0) / Math.max(1, sampleNanos[s] - t0));
      }
    }
    return count;
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
