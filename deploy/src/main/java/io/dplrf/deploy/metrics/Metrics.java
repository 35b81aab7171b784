package io.dplrf.deploy.metrics;

import io.dplrf.ingest.DeadLetterReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The service's metrics: one {@link PrometheusMeterRegistry} and the meters the rest of the
 * service updates through the helpers below. Thread-safe.
 *
 * <p><b>Only the running mode's meters exist.</b> A registry has the meters every mode updates
 * and the {@link Group}s its mode asks for ({@code Modes.metrics}), nothing else, so that a scrape
 * never shows another mode's meters stuck at 0; a helper of a group this registry lacks throws
 * {@link IllegalStateException} (a wiring mistake). {@link #Metrics()} has the common meters only
 * (listeners without a mode).
 *
 * <p>Exported names (Prometheus). Every mode: {@code dplrf_records_consumed_total},
 * {@code dplrf_records_dead_lettered_total{reason}} (each reason the mode's record format can
 * give, at 0 from the start), {@code dplrf_consumer_lag{partition}}, {@code dplrf_broker_reachable},
 * {@code dplrf_broker_last_contact_timestamp_seconds}, {@code dplrf_state_writes_blocked},
 * {@code dplrf_state_write_failures_total}, {@code dplrf_state_damaged_files},
 * {@code dplrf_state_files_verified}, {@code dplrf_sketch_memory_bytes},
 * {@code dplrf_release_exhausted}, {@code dplrf_ingest_running},
 * {@code dplrf_snapshot_duration_seconds}, {@code dplrf_snapshot_size_bytes},
 * {@code dplrf_http_requests_seconds{route,method,status}} and the JVM binders' meters. Modes
 * that release per epoch (updates, rows, local): {@code dplrf_epoch_current},
 * {@code dplrf_epochs_left}, {@code dplrf_release_duration_seconds},
 * {@code dplrf_releases_pending}. Mode updates: {@code dplrf_updates_consumed_total},
 * {@code dplrf_updates_applied_total}, {@code dplrf_updates_clipped_total},
 * {@code dplrf_updates_dropped_total}. Mode rows: {@code dplrf_rows_applied_total},
 * {@code dplrf_rows_clipped_total}. Mode local: {@code dplrf_reports_applied_total}. Mode
 * completion: {@code dplrf_ratings_applied_total}, {@code dplrf_ratings_dropped_total},
 * {@code dplrf_ratings_stored}, {@code dplrf_ratings_users}, {@code dplrf_completion_runs_total},
 * {@code dplrf_completion_runs_left}, {@code dplrf_completion_run_duration_seconds},
 * {@code dplrf_completion_iteration}, {@code dplrf_completion_iterations},
 * {@code dplrf_completion_last_run_timestamp_seconds}.
 *
 * <p>Kafka client metrics are bound by the ingest wiring, e.g.
 * {@code new KafkaClientMetrics(consumer).bindTo(metrics.registry())}.
 */
public final class Metrics implements AutoCloseable {
  private final PrometheusMeterRegistry registry;
  private final Set<Group> groups;
  private final JvmGcMetrics gc;
  private final Counter recordsConsumed;
  private final Map<DeadLetterReason, Counter> deadLettered = new EnumMap<>(DeadLetterReason.class);
  private final AtomicLong epochCurrent;
  private final AtomicLong epochsLeft;
  private final AtomicLong sketchMemory = new AtomicLong();
  private final AtomicLong exhausted = new AtomicLong();
  private final AtomicLong ingestRunning = new AtomicLong();
  /** Partition → its lag as {@link Double#doubleToLongBits} (NaN: unknown). */
  private final Map<Integer, AtomicLong> lag = new ConcurrentHashMap<>();
  private final Timer snapshotDuration;
  private final DistributionSummary snapshotSize;
  // Modes that release per epoch (updates, rows, local); null in the others.
  private final AtomicLong releasesPending;
  private final Timer releaseDuration;
  // Mode updates.
  private final Counter updatesConsumed;
  private final Counter updatesApplied;
  private final Counter updatesClipped;
  private final Counter updatesDropped;
  // Mode rows.
  private final Counter rowsApplied;
  private final Counter rowsClipped;
  // Mode local.
  private final Counter reportsApplied;
  // Mode completion.
  private final Counter ratingsApplied;
  private final Counter ratingsDropped;
  private final Counter completionRuns;
  private final AtomicLong ratingsStored;
  private final AtomicLong ratingsUsers;
  private final AtomicLong runsLeft;
  private final AtomicLong iteration;
  private final AtomicLong iterations;
  private final AtomicLong lastRun;
  private final AtomicLong brokerReachable = new AtomicLong(1);
  private final AtomicLong brokerLastContactMillis = new AtomicLong();
  private final AtomicLong stateWritesBlocked = new AtomicLong();
  private final Counter stateWriteFailures;
  private long stateWriteFailuresSeen;
  private final AtomicLong stateDamagedFiles = new AtomicLong();
  private final AtomicLong stateFilesVerified = new AtomicLong();
  private final Timer runDuration;

  /** The meters of one kind of mode, registered only in a registry that asks for them. */
  public enum Group {
    /**
     * Modes that release per epoch: {@code dplrf_epoch_current}, {@code dplrf_epochs_left},
     * {@code dplrf_releases_pending}, {@code dplrf_release_duration_seconds}.
     */
    EPOCH_RELEASES,
    /** Mode updates: updates consumed, applied, clipped, dropped. */
    UPDATES,
    /** Mode rows: rows applied and clipped. */
    ROWS,
    /** Mode local: reports applied. */
    LOCAL_REPORTS,
    /** Mode completion: ratings, the store's size, fits and their progress. */
    COMPLETION
  }

  /** The meters every mode updates, and no group's. */
  public Metrics() {
    this(Set.of());
  }

  /** The meters every mode updates and those of {@code groups}; every dead-letter reason. */
  public Metrics(Set<Group> groups) {
    this(groups, EnumSet.allOf(DeadLetterReason.class));
  }

  /**
   * The meters every mode updates and those of {@code groups}, with a dead-letter counter for
   * each of {@code reasons} (those the mode's record format can give).
   */
  public Metrics(Set<Group> groups, Set<DeadLetterReason> reasons) {
    this.groups = groups.isEmpty() ? EnumSet.noneOf(Group.class) : EnumSet.copyOf(groups);
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    gc = new JvmGcMetrics();
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);

    recordsConsumed = counter("dplrf.records.consumed", "Kafka records read from the update topic");
    // Every reason from the start, so that rate() and increase() see the first dead letter.
    for (DeadLetterReason r : EnumSet.copyOf(reasons)) {
      deadLettered.put(r, Counter.builder("dplrf.records.dead.lettered")
          .description("malformed records sent to the dead-letter topic, by reason code")
          .tag("reason", r.name().toLowerCase(Locale.ROOT)).register(registry));
    }
    Gauge.builder("dplrf.sketch.memory", sketchMemory, AtomicLong::get).baseUnit("bytes")
        .description("memory held by the noisy sketches and tree nodes").register(registry);
    Gauge.builder("dplrf.release.exhausted", exhausted, AtomicLong::get)
        .description("1 once epoch T has been released and releasing has stopped").register(registry);
    Gauge.builder("dplrf.ingest.running", ingestRunning, AtomicLong::get)
        .description("1 while the ingest loop restores, waits for its topic or consumes; 0 once it"
            + " has ended (failed, stopped, or exhausted at epoch T)").register(registry);
    Gauge.builder("dplrf.state.writes.blocked", stateWritesBlocked, AtomicLong::get)
        .description("1 while ingest waits for a state write (node file, snapshot) that the state"
            + " directory refuses (no space left, I/O error); it is retried until it succeeds")
        .register(registry);
    stateWriteFailures = counter("dplrf.state.write.failures",
        "failed attempts of state writes (each is retried; see dplrf_state_writes_blocked)");
    Gauge.builder("dplrf.state.damaged.files", stateDamagedFiles, AtomicLong::get)
        .description("state files found damaged (checksum, truncation, missing): range releases"
            + " that need one answer 500 until it is restored").register(registry);
    Gauge.builder("dplrf.state.files.verified", stateFilesVerified, AtomicLong::get)
        .description("closed-node files checked by the background check since start")
        .register(registry);
    Gauge.builder("dplrf.broker.reachable", brokerReachable, AtomicLong::get)
        .description("0 once the ingest consumer has asked the Kafka broker for 15 s without any"
            + " answer (broker stopped, stalled or cut off); 1 otherwise, also while ingest is not"
            + " consuming").register(registry);
    Gauge.builder("dplrf.broker.last.contact.timestamp", brokerLastContactMillis,
            m -> m.get() / 1000.0).baseUnit("seconds")
        .description("when the ingest consumer last had an answer from the Kafka broker (seconds"
            + " since 1970), 0 before the first").register(registry);
    snapshotDuration = Timer.builder("dplrf.snapshot.duration")
        .description("time to write a crash-safe state snapshot").register(registry);
    snapshotSize = DistributionSummary.builder("dplrf.snapshot.size").baseUnit("bytes")
        .description("size of written state snapshots").register(registry);

    boolean epochReleases = this.groups.contains(Group.EPOCH_RELEASES);
    // Both follow the published release (Service.publish), so current + left = T always. Mode
    // completion has fits, not epoch releases (dplrf_completion_runs_left): a constant 0 there
    // would fire the "no release" and "budget almost spent" alerts.
    epochCurrent = epochReleases ? gauge("dplrf.epoch.current",
        "the latest released epoch, 0..T (0 before the first release)") : null;
    epochsLeft = epochReleases ? gauge("dplrf.epochs.left", "releases left before the privacy"
        + " budget is spent: T minus the latest released epoch") : null;
    releasesPending = epochReleases ? gauge("dplrf.releases.pending", "epoch releases queued or"
        + " being computed; above 1 for long, epochs close faster than releases are computed and"
        + " the served release falls behind") : null;
    releaseDuration = epochReleases ? Timer.builder("dplrf.release.duration")
        .description("time to post-process the tree nodes into a release").register(registry)
        : null;

    boolean updates = this.groups.contains(Group.UPDATES);
    updatesConsumed = updates ? counter("dplrf.updates.consumed",
        "updates decoded from consumed records") : null;
    updatesApplied = updates ? counter("dplrf.updates.applied",
        "updates folded into the sketches") : null;
    updatesClipped = updates ? counter("dplrf.updates.clipped",
        "updates whose delta was clamped to the clip bound or the unit's remaining budget") : null;
    updatesDropped = updates ? counter("dplrf.updates.dropped",
        "updates dropped because their privacy unit's budget was spent") : null;

    boolean rows = this.groups.contains(Group.ROWS);
    rowsApplied = rows ? counter("dplrf.rows.applied",
        "rows mode: valid rows whose outer product x xT was folded into the sketches") : null;
    rowsClipped = rows ? counter("dplrf.rows.clipped",
        "rows mode: applied rows scaled down to l2 norm <= clip") : null;

    reportsApplied = this.groups.contains(Group.LOCAL_REPORTS) ? counter("dplrf.reports.applied",
        "local mode: valid local-DP reports added to the sum") : null;

    boolean completion = this.groups.contains(Group.COMPLETION);
    ratingsApplied = completion ? counter("dplrf.ratings.applied", "completion mode: ratings"
        + " stored (new, or replacing the user's earlier rating of the item)") : null;
    ratingsDropped = completion ? counter("dplrf.ratings.dropped", "completion mode: ratings of a"
        + " new item dropped because the user holds max-ratings items") : null;
    completionRuns = completion ? counter("dplrf.completion.runs", "completion mode: private"
        + " Frank-Wolfe fits started (each spends its share of the budget)") : null;
    ratingsStored = completion ? gauge("dplrf.ratings.stored",
        "completion mode: ratings in the store (committed)") : null;
    ratingsUsers = completion ? gauge("dplrf.ratings.users",
        "completion mode: users with at least one stored rating") : null;
    runsLeft = completion ? gauge("dplrf.completion.runs.left",
        "completion mode: fits left before the budget's R runs are spent") : null;
    iteration = completion ? gauge("dplrf.completion.iteration",
        "completion mode: Frank-Wolfe iterations done in the current (or last) fit") : null;
    iterations = completion ? gauge("dplrf.completion.iterations",
        "completion mode: T, the iterations of the current (or last) fit") : null;
    if (completion) {
      lastRun = new AtomicLong();
      Gauge.builder("dplrf.completion.last.run.timestamp", lastRun, AtomicLong::get)
          .baseUnit("seconds")
          .description("completion mode: when the last fit finished (seconds since 1970), 0 if none")
          .register(registry);
      runDuration = Timer.builder("dplrf.completion.run.duration")
          .description("completion mode: time of one private Frank-Wolfe fit").register(registry);
    } else {
      lastRun = null;
      runDuration = null;
    }
  }

  private AtomicLong gauge(String name, String description) {
    AtomicLong holder = new AtomicLong();
    Gauge.builder(name, holder, AtomicLong::get).description(description).register(registry);
    return holder;
  }

  /** {@code meter}, which must be in one of this registry's groups. */
  private <T> T own(T meter, String name) {
    if (meter == null) {
      throw new IllegalStateException("meter " + name + " belongs to another mode; this registry"
          + " has the common meters and " + (groups.isEmpty() ? "no group" : "the groups " + groups));
    }
    return meter;
  }

  private Counter counter(String name, String description) {
    return Counter.builder(name).description(description).register(registry);
  }

  /** The registry, for binders such as Kafka's {@code KafkaClientMetrics}. */
  public MeterRegistry registry() {
    return registry;
  }

  /** The Prometheus text exposition of every meter. */
  public String scrape() {
    return registry.scrape();
  }

  /** The Prometheus exposition in the given format ({@code Accept} header value), see {@link PrometheusMeterRegistry#scrape(String)}. */
  public String scrape(String contentType) {
    return registry.scrape(contentType);
  }

  /** Mode completion: ratings stored and dropped since the last call (by difference). */
  public void ratings(long applied, long dropped) {
    own(ratingsApplied, "dplrf.ratings.applied").increment(applied);
    own(ratingsDropped, "dplrf.ratings.dropped").increment(dropped);
  }

  /** Mode completion: the store's committed sizes. */
  public void ratingsStored(long ratings, long users) {
    own(ratingsStored, "dplrf.ratings.stored").set(ratings);
    own(ratingsUsers, "dplrf.ratings.users").set(users);
  }

  /** Mode completion: a fit started; {@code left} runs remain after it. */
  public void completionRunStarted(int left) {
    own(completionRuns, "dplrf.completion.runs").increment();
    own(runsLeft, "dplrf.completion.runs.left").set(left);
    own(iteration, "dplrf.completion.iteration").set(0);
  }

  public void completionRunsLeft(int left) {
    own(runsLeft, "dplrf.completion.runs.left").set(left);
  }

  /** Mode completion: iteration {@code t} of {@code total} is done. */
  public void completionProgress(int t, int total) {
    own(iteration, "dplrf.completion.iteration").set(t);
    own(iterations, "dplrf.completion.iterations").set(total);
  }

  /** Mode completion: a fit finished after {@code took}, at {@code epochSecond}. */
  public void completionRunFinished(Duration took, long epochSecond) {
    own(runDuration, "dplrf.completion.run.duration").record(took);
    own(lastRun, "dplrf.completion.last.run.timestamp").set(epochSecond);
  }

  public void recordsConsumed(long n) {
    recordsConsumed.increment(n);
  }

  public void updatesConsumed(long n) {
    own(updatesConsumed, "dplrf.updates.consumed").increment(n);
  }

  public void updatesApplied(long n) {
    own(updatesApplied, "dplrf.updates.applied").increment(n);
  }

  public void updatesClipped(long n) {
    own(updatesClipped, "dplrf.updates.clipped").increment(n);
  }

  public void rowsApplied(long n) {
    own(rowsApplied, "dplrf.rows.applied").increment(n);
  }

  public void reportsApplied(long n) {
    own(reportsApplied, "dplrf.reports.applied").increment(n);
  }

  public void rowsClipped(long n) {
    own(rowsClipped, "dplrf.rows.clipped").increment(n);
  }

  public void updatesDropped(long n) {
    own(updatesDropped, "dplrf.updates.dropped").increment(n);
  }

  /** Counts {@code n} more records sent to the dead-letter topic for {@code reason}. */
  public void deadLettered(DeadLetterReason reason, long n) {
    Counter c = deadLettered.get(reason);
    if (c == null) {
      throw new IllegalStateException("dead-letter reason " + reason + " is not one of this"
          + " mode's " + deadLettered.keySet() + " (Modes.deadLetterReasons)");
    }
    c.increment(n);
  }

  /** The latest released epoch (0 before the first release). */
  public void epochCurrent(long epoch) {
    own(epochCurrent, "dplrf.epoch.current").set(epoch);
  }

  /** T minus the latest released epoch. */
  public void epochsLeft(long left) {
    own(epochsLeft, "dplrf.epochs.left").set(left);
  }

  /** An epoch's release was queued ({@link #releaseEnded} when it has run, or failed). */
  public void releaseQueued() {
    own(releasesPending, "dplrf.releases.pending").incrementAndGet();
  }

  public void releaseEnded() {
    own(releasesPending, "dplrf.releases.pending").decrementAndGet();
  }

  /** Consumer lag (records) of one partition of the update topic. */
  public void consumerLag(int partition, long records) {
    lag.computeIfAbsent(partition, p -> {
      AtomicLong holder = new AtomicLong();
      Gauge.builder("dplrf.consumer.lag", holder, h -> Double.longBitsToDouble(h.get()))
          .description("records behind the end of the partition; NaN while the broker is"
              + " unreachable (the end last fetched is stale)")
          .tag("partition", Integer.toString(p)).register(registry);
      return holder;
    }).set(Double.doubleToLongBits(records));
  }

  /** Every partition's lag is unknown (NaN) until the next {@link #consumerLag}. */
  public void consumerLagUnknown() {
    lag.values().forEach(h -> h.set(Double.doubleToLongBits(Double.NaN)));
  }

  /**
   * The ingest consumer's contact with its broker.
   *
   * @param reachable false once it has asked for the threshold without an answer
   * @param lastAnswerEpochMillis when it last had an answer (ms since 1970), 0 before the first
   */
  public void brokerContact(boolean reachable, long lastAnswerEpochMillis) {
    brokerReachable.set(reachable ? 1 : 0);
    brokerLastContactMillis.set(lastAnswerEpochMillis);
  }

  public void sketchMemory(long bytes) {
    sketchMemory.set(bytes);
  }

  public void releaseExhausted(boolean isExhausted) {
    exhausted.set(isExhausted ? 1 : 0);
  }

  /** Whether the ingest loop is alive (see the gauge's description). */
  public void ingestRunning(boolean running) {
    ingestRunning.set(running ? 1 : 0);
  }

  /**
   * The ingest loop's state writes: whether one waits now, and the failed attempts so far (the
   * counter follows by difference).
   */
  public synchronized void stateWrites(boolean blocked, long failures) {
    stateWritesBlocked.set(blocked ? 1 : 0);
    if (failures > stateWriteFailuresSeen) {
      stateWriteFailures.increment(failures - stateWriteFailuresSeen);
      stateWriteFailuresSeen = failures;
    }
  }

  /** Damaged state files known now, and files checked by the background check. */
  public void stateFiles(long damaged, long verified) {
    stateDamagedFiles.set(damaged);
    stateFilesVerified.set(verified);
  }

  public Timer releaseDuration() {
    return own(releaseDuration, "dplrf.release.duration");
  }

  public void releaseDuration(Duration d) {
    own(releaseDuration, "dplrf.release.duration").record(d);
  }

  public Timer snapshotDuration() {
    return snapshotDuration;
  }

  /** Records one snapshot write: its duration and its size in bytes. */
  public void snapshotWritten(Duration d, long bytes) {
    snapshotDuration.record(d);
    snapshotSize.record(bytes);
  }

  /**
   * Times one HTTP request.
   *
   * @param route the route <i>template</i> ({@code /v1/rows/{i}}), or {@code unmatched}; never a
   *     concrete path
   * @param method GET or HEAD; anything else is tagged {@code other}
   */
  public void httpRequest(String route, String method, int status, long nanos) {
    String m = "GET".equals(method) || "HEAD".equals(method) ? method : "other";
    Timer.builder("dplrf.http.requests")
        .description("HTTP requests served, by route template, method and status")
        .tag("route", route).tag("method", m).tag("status", Integer.toString(status))
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
