package io.dplrf.deploy.serve;

import io.dplrf.deploy.http.Health;
import io.dplrf.deploy.http.ModeRoutes;
import io.dplrf.deploy.http.ReleaseCache;
import io.dplrf.deploy.http.Status;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.ingest.Checkpoint;
import io.dplrf.ingest.ContributionBounds;
import io.dplrf.ingest.IngestConfig;
import io.dplrf.ingest.IngestStats;
import io.dplrf.ingest.IngestTarget;
import io.dplrf.ingest.RecordDecoder;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One way the service runs (setting {@code mode}): what it consumes, what it keeps, what it
 * releases, and what it adds to the HTTP API, the status, the counters and the startup banner.
 * {@link Modes#open} is the one place that picks a mode from the configuration; {@link Service}
 * wires everything else — Kafka, the ingest loop, the listeners, the metrics, the lifecycle — the
 * same way for every mode.
 *
 * <p>The modes: {@code serve.tree} (updates and rows: the continual-release tree of noisy
 * sketches), {@code serve.local} (local-DP reports, summed) and {@code serve.completion}
 * (ratings, private matrix completion under joint DP).
 *
 * <p>Thread-safety: {@link #decoder}'s sink and {@link #target} run on the ingest thread; {@link
 * #epochClosed} on the loop's closer thread; {@link #status}, {@link #ingestStats} and {@link
 * #sizeInBytes} on HTTP and metrics threads, and must be safe there.
 */
public interface ServiceMode extends AutoCloseable {

  /** The ingest loop's settings: topic, dead-letter topic, privacy unit and bounds, epoch cut. */
  IngestConfig ingestConfig();

  /** Where the loop keeps its offsets and the mode's state, atomically. */
  Checkpoint checkpoint();

  /** The lifecycle the loop drives: epoch closes, exhaustion, the state in the snapshot. */
  IngestTarget target();

  /**
   * The decoder of one record of this mode's format into this mode's sink, around the loop's own
   * contribution bounds (whose budgets the snapshot keeps).
   */
  RecordDecoder decoder(ContributionBounds bounds);

  /** The snapshot holding epoch {@code epoch}'s close is durable (on the closer thread). */
  void epochClosed(int epoch);

  /**
   * The snapshot is restored, before anything is consumed and before the HTTP listeners open;
   * {@code epochsClosed} as restored, the last of them closed at {@code lastClosed} (null when
   * none is). A mode that releases after every epoch serves that epoch's release again, with
   * that time.
   */
  void restored(int epochsClosed, Instant lastClosed);

  /** The factorizations served on the public port (empty in a mode that releases none). */
  ReleaseCache releases();

  /** Routes this mode adds to the public and the operator port. */
  ModeRoutes routes();

  /**
   * {@code /v1/status} and the status page: what this mode serves ({@link Status.Epochs} for a
   * release after every epoch, {@link Status.Fits} for completion's fits) and its guarantee,
   * derived from what is released, never ahead of it.
   */
  Status status();

  /**
   * What is wrong with this mode's state while it serves (e.g. the tree's damaged node files),
   * for {@code /health}; the service adds what is wrong with ingest. Any thread, cheap.
   */
  default Health health() {
    return Health.OK;
  }

  /**
   * Adds this mode's exact counts to {@code /admin/ingest} (operator port only: not private),
   * beside the loop's state, records consumed, dead letters, checksum and epochs closed.
   */
  void ingestStats(Map<String, Object> m, IngestStats s);

  /**
   * Turns this mode's exact counts into Prometheus counters ({@code now} minus {@code last}) and
   * sets its gauges (epoch, epochs left, exhaustion); called every second.
   */
  void publish(Metrics metrics, IngestStats now, IngestStats last);

  /** Bytes of the mode's state in memory. */
  long sizeInBytes();

  /** What is served and where to push and pull, with the ports as bound. */
  String banner(String bootstrap, int httpPort, int operatorPort);

  /** Waits until the releases of every epoch closed so far are published. */
  default void awaitReleases() throws InterruptedException {}

  /** Lines logged after the banner: advice about the heap, warnings. */
  default List<String> notes() {
    return List.of();
  }

  /** Stops the mode's own threads and closes its stores; idempotent. */
  @Override
  void close();
}
