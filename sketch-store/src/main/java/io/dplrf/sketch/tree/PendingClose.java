package io.dplrf.sketch.tree;

import io.dplrf.sketch.lra.NoisyLinearSketch;

/**
 * An epoch close begun by {@link ContinualSketch#beginClose} and not yet finished by {@link
 * ContinualSketch#finishClose}: its epoch and the set-aside accumulator holding its updates.
 */
public final class PendingClose {
  private final int epoch;
  private final NoisyLinearSketch epochData;
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
