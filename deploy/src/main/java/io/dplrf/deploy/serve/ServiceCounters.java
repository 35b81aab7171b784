package io.dplrf.deploy.serve;

import io.dplrf.deploy.http.Release;
import io.dplrf.deploy.http.ReleaseCache;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.ingest.DeadLetterReason;
import io.dplrf.ingest.IngestLoop;
import io.dplrf.ingest.IngestStats;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The service's exact counters, per mode: as JSON for {@code /admin/ingest} and as Prometheus
 * counters (by difference, every second) and gauges. Exact counts are not private: operator port
 * only. Out of {@link Service} so that the wiring stays one class and the per-mode counting another.
 */
final class ServiceCounters {
  private final ServiceConfig config;
  private final Metrics metrics;
  /** The mode's state: exactly one of completion, local, target is non-null. */
  private final CompletionMode completion;
  private final LocalAggregate local;
  private final TreeTarget target;
  private final ReleaseCache cache;
  private final PrintStream log;
  private IngestStats lastStats = new IngestStats();

  ServiceCounters(ServiceConfig config, Metrics metrics, CompletionMode completion,
      LocalAggregate local, TreeTarget target, ReleaseCache cache, PrintStream log) {
    this.config = config;
    this.metrics = metrics;
    this.completion = completion;
    this.local = local;
    this.target = target;
    this.cache = cache;
    this.log = log;
  }

  /** Bytes the mode's state holds in memory (sketch tree, report sum or nothing but the store). */
  long sizeInBytes() {
    return completion != null ? completion.sizeInBytes()
        : local != null ? local.sizeInBytes() : target.sizeInBytes();
  }

  /** Exact counts for /admin/ingest (operator port only: not private). */
  Map<String, Object> ingestStats(IngestLoop loop) {
    IngestStats s = loop.stats();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("state", loop.state().name().toLowerCase(Locale.ROOT));
    m.put("recordsConsumed", s.recordsConsumed());
    if (completion != null) {
      completion.ingestStats(m, s);
    } else if (ServiceDescription.localMode(config)) {
      // Local mode counts each valid report as one update (IngestStats): name them reports here.
      m.put("mode", "local");
      m.put("reportsApplied", s.updatesApplied());
      m.put("protocolId", local.protocolId());
      local.ingestStats(m);
    } else if (ServiceDescription.rowsMode(config)) {
      // Rows mode counts each valid row as one update (IngestStats): name them rows here.
      m.put("mode", "rows");
      m.put("rowsApplied", s.updatesApplied());
      m.put("rowsClipped", s.updatesClipped());
    } else {
      m.put("updatesConsumed", s.updatesConsumed());
      m.put("updatesApplied", s.updatesApplied());
      m.put("updatesClipped", s.updatesClipped());
      m.put("updatesDropped", s.updatesDropped());
    }
    Map<String, Object> dl = new LinkedHashMap<>();
    for (DeadLetterReason r : DeadLetterReason.values()) {
      dl.put(r.name().toLowerCase(Locale.ROOT), s.deadLettered(r));
    }
    m.put("recordsDeadLettered", dl);
    m.put("checksum", Long.toUnsignedString(s.checksum(), 16));
    m.put("epochsClosed", completion != null ? completion.store().target().epochsClosed()
        : local != null ? local.epochsClosed() : target.epochsClosed());
    return m;
  }

  /** Turns the loop's exact counters into Prometheus counters (by difference) and gauges. */
  synchronized void publish(IngestLoop loop) {
    try {
      IngestStats s = loop.stats();
      metrics.recordsConsumed(s.recordsConsumed() - lastStats.recordsConsumed());
      if (completion != null) {
        metrics.ratings(s.updatesApplied() - lastStats.updatesApplied(),
            s.updatesDropped() - lastStats.updatesDropped());
        metrics.ratingsStored(completion.store().ratingsStored(), completion.store().users());
      } else if (ServiceDescription.localMode(config)) {
        metrics.reportsApplied(s.updatesApplied() - lastStats.updatesApplied());
      } else if (ServiceDescription.rowsMode(config)) {
        metrics.rowsApplied(s.updatesApplied() - lastStats.updatesApplied());
        metrics.rowsClipped(s.updatesClipped() - lastStats.updatesClipped());
      } else {
        metrics.updatesConsumed(s.updatesConsumed() - lastStats.updatesConsumed());
        metrics.updatesApplied(s.updatesApplied() - lastStats.updatesApplied());
        metrics.updatesClipped(s.updatesClipped() - lastStats.updatesClipped());
        metrics.updatesDropped(s.updatesDropped() - lastStats.updatesDropped());
      }
      for (DeadLetterReason r : DeadLetterReason.values()) {
        for (long x = lastStats.deadLettered(r); x < s.deadLettered(r); x++) {
          metrics.deadLettered(r.name().toLowerCase(Locale.ROOT));
        }
      }
      lastStats = s;
      loop.lag().forEach((tp, lag) -> metrics.consumerLag(tp.partition(), lag));
      int released = cache.latest().map(Release::epoch).orElse(0);
      metrics.epochCurrent(released);
      metrics.epochsLeft(config.epochs() - released);
      metrics.releaseExhausted(completion != null ? completion.exhausted()
          : released >= config.epochs());
      metrics.sketchMemory(sizeInBytes());
      IngestLoop.State st = loop.state();
      metrics.ingestRunning(st == IngestLoop.State.NEW || st == IngestLoop.State.RUNNING);
    } catch (RuntimeException e) {
      log.println("dplrf: metrics update failed: " + e.getMessage());
    }
  }
}
