package io.dplrf.deploy.serve;

import io.dplrf.deploy.metrics.Metrics;
import java.io.PrintStream;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * What {@link Service} hands a mode: the metrics registry, the log (the service's standard output),
 * where a failure on one of the mode's own threads goes, so that a service that no longer
 * releases stops instead of answering {@code /health}, and when each epoch closed.
 *
 * @param failed takes the failure; the service then closes and {@code dplrf serve} exits non-zero
 * @param closedAt the time epoch e closed, as the snapshot keeps it ({@link
 *     io.dplrf.ingest.EpochListener#epochClosed(int, Instant)}), during {@link
 *     ServiceMode#epochClosed}{@code (e)}; null when unknown. A release is dated by it, so that
 *     the time a restart serves again ({@link ServiceMode#restored}) is the same.
 */
public record ModeContext(Metrics metrics, PrintStream log, Consumer<Throwable> failed,
    IntFunction<Instant> closedAt) {

  /** A context that knows no close times: releases are dated when they are computed. */
  public ModeContext(Metrics metrics, PrintStream log, Consumer<Throwable> failed) {
    this(metrics, log, failed, epoch -> null);
  }
}
