package io.dplrf.deploy.serve;

import io.dplrf.deploy.metrics.Metrics;
import java.io.PrintStream;
import java.util.function.Consumer;

/**
 * What {@link Service} hands a mode: the metrics registry, the log (the service's standard output)
 * and where a failure on one of the mode's own threads goes, so that a service that no longer
 * releases stops instead of answering {@code /health}.
 *
 * @param failed takes the failure; the service then closes and {@code dplrf serve} exits non-zero
 */
public record ModeContext(Metrics metrics, PrintStream log, Consumer<Throwable> failed) {}
