package io.dplrf.sketch.continual;

import io.dplrf.sketch.lra.Priv2Sketch;

/**
 * An epoch close begun by {@link BltStream#beginClose} and not yet finished by {@link
 * BltStream#finishClose}: its epoch and the set-aside accumulator holding its updates.
 */
public final class PendingBltClose {
  private final int epoch;
  private final Priv2Sketch epochData;
  private volatile boolean finished;

  PendingBltClose(int epoch, Priv2Sketch epochData) {
    this.epoch = epoch;
    this.epochData = epochData;
  }

  public int epoch() {
    return epoch;
  }

  Priv2Sketch epochData() {
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
    return "PendingBltClose[epoch " + epoch + (finished ? ", finished]" : "]");
  }
}
