package io.dplrf.sketch.tree;

import io.dplrf.sketch.lra.NoisyLinearSketch;

/**
 * An epoch close begun by {@link ContinualSketch#beginClose} and not yet finished by {@link
 * ContinualSketch#finishClose}: its epoch, the set-aside accumulator holding its updates, and,
 * once finishing has started, how far the nodes are made and written ({@link MergeUp}), so that a
 * finish that failed on a node write resumes at that write.
 */
public final class PendingClose {
  private final int epoch;
  private final NoisyLinearSketch epochData;
  /** Null until the accumulator has become the leaf; then the next node to write. */
  private MergeUp progress;
  private boolean finished;

  PendingClose(int epoch, NoisyLinearSketch epochData) {
    this.epoch = epoch;
    this.epochData = epochData;
  }

  public int epoch() {
    return epoch;
  }

  NoisyLinearSketch epochData() {
    return epochData;
  }

  MergeUp progress() {
    return progress;
  }

  void progress(MergeUp p) {
    progress = p;
  }

  boolean finished() {
    return finished;
  }

  void finish() {
    finished = true;
  }

  @Override
  public String toString() {
    return "PendingClose[epoch " + epoch + (finished ? ", finished]" : "]");
  }
}
