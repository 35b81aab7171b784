package io.dplrf.ingest;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A {@link RecordingTarget} that closes epochs in two steps, as the sketch tree does with its node
 * files: at {@link #beginCloseEpoch} the epoch ends and its state is captured; {@code finish}
 * (on the loop's closer thread) can be held at a gate or made to fail.
 */
final class PipelinedTarget extends RecordingTarget {
  /** When set, finish waits for it. */
  volatile CountDownLatch gate;
  /** While set, every finish throws it (a node write the state directory refuses). */
  volatile IOException failing;
  /** Failed finishes. */
  final java.util.concurrent.atomic.AtomicInteger attempts =
      new java.util.concurrent.atomic.AtomicInteger();
  /** Epochs whose finish has completed, in order. */
  final List<Integer> finished = java.util.Collections.synchronizedList(new ArrayList<>());

  PipelinedTarget(int epochs) {
    super(epochs);
  }

  @Override
  public ClosingEpoch beginCloseEpoch() {
    closeEpoch();
    int epoch = closed;
    byte[] atBoundary;
    try {
      atBoundary = stateBytes();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return new ClosingEpoch() {
      @Override
      public int epoch() {
        return epoch;
      }

      @Override
      public void finish() throws IOException {
        CountDownLatch g = gate;
        if (g != null) {
          try {
            g.await();
          } catch (InterruptedException e) {
            throw new IOException("interrupted", e);
          }
        }
        IOException f = failing;
        if (f != null) {
          attempts.incrementAndGet();
          throw f;
        }
        finished.add(epoch);
      }

      @Override
      public void writeState(OutputStream out) throws IOException {
        out.write(atBoundary);
      }
    };
  }
}
