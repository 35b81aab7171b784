package io.dplrf.deploy.serve;

import io.dplrf.deploy.config.KafkaClientSettings;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.http.OperatorApi;
import io.dplrf.deploy.http.PublicApi;
import io.dplrf.deploy.http.Release;
import io.dplrf.deploy.http.ReleaseCache;
import io.dplrf.deploy.http.Status;
import io.dplrf.deploy.kafka.EmbeddedKafka;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.ingest.Checkpoint;
import io.dplrf.ingest.ContributionBounds;
import io.dplrf.ingest.RecordDecoder;
import java.util.function.Function;
import io.dplrf.ingest.EpochListener;
import io.dplrf.ingest.IngestConfig;
import io.dplrf.ingest.IngestLoop;
import io.dplrf.ingest.IngestStats;
import io.dplrf.ingest.StateStore;
import io.dplrf.sketch.files.StateFiles;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.lra.RobustPlan;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.tree.TreeConfig;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The running service (`dplrf serve`): Kafka (embedded or external) → {@link IngestLoop} →
 * {@link TreeTarget} (the binary tree of noisy sketches) → on every epoch close one release,
 * factorized once and cached → public HTTP API; exact counts and metrics on the operator port.
 *
 * <p>Data flows one way; the only mutable shared state is the release cache (swapped
 * atomically) and the tree, whose epoch closes and range releases are serialised by
 * {@link TreeTarget}.
 *
 * <p><b>No zombie.</b> The snapshot is restored before the HTTP listeners open, so one that cannot
 * be used fails {@link #start}; a later failure of the ingest loop is reported by {@link
 * #awaitIngestFailure}, and {@code dplrf serve} then closes the service and exits non-zero instead
 * of answering /health with ingest dead.
 *
 * <p>The per-mode exact counters live in {@link ServiceCounters}, completion mode in {@link
 * CompletionMode}.
 */
public final class Service implements AutoCloseable {
  private static final String LOOPBACK = "127.0.0.1";
  private final ServiceConfig config;
  private final PrintStream log;
  private final Metrics metrics = new Metrics();
  private final ReleaseCache cache;
  /** The tree (modes updates and rows), or null in mode local. */
  private final TreeTarget target;
  /** Mode local: the sum of the reports, and its protocol; null otherwise. */
  private final LocalAggregate local;
  /** Mode completion: the ratings store, the fits and their endpoints; null otherwise. */
  private final CompletionMode completion;
  private final EmbeddedKafka embedded;
  private final String bootstrap;
  private final IngestLoop loop;
  private final Thread ingestThread;
  private final PublicApi publicApi;
  private final OperatorApi operatorApi;
  private final ScheduledExecutorService ticker;
  /**
   * Computes each epoch's release off the ingest thread, in epoch order, so that ingest goes on
   * while a release draws its noise and factorizes (tens of seconds at m = n = 100,000).
   */
  private final ExecutorService releaser = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "dplrf-release");
    t.setDaemon(true);
    return t;
  });
  private final java.util.List<KafkaClientMetrics> kafkaMetrics = new java.util.ArrayList<>();
  private final CompletableFuture<Throwable> ingestFailure = new CompletableFuture<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Instant lastRelease;
  /** Exact counts for /admin/ingest and the Prometheus counters, per mode. */
  private final ServiceCounters counters;

  private Service(ServiceConfig config, PrintStream log) throws Exception {
    this.config = config;
    this.log = log;
    if (!ServiceDescription.localMode(config) && !ServiceDescription.completionMode(config)) { // before anything is created: a refused configuration leaves no trace
      // Key/row units bound a unit's total ℓ1 mass Σ|Δ| ≤ C: the entrywise-ℓ1 relation, which the
      // Priv2 plans (docs/privacy/l1-units.md) and the robust ones (robust.md §4) cover. Priv1's
      // tree analysis needs the same rank-one difference in every node: one update.
      if (config.mechanism() == Mechanism.PRIV1
          && config.privacyUnit() != ServiceConfig.PrivacyUnit.UPDATE) {
        throw new IllegalArgumentException("mechanism priv1 protects one update only (its privacy"
            + " argument needs the same rank-one difference in every tree node); use mechanism"
            + " priv2-sparse (the default) with privacy-unit "
            + config.privacyUnit().name().toLowerCase(Locale.ROOT));
      }
    }
    Path state = config.stateDir();
    // rwx------ when created here: the directory holds the raw state (snapshot, node files, the
    // embedded broker's records, by default the key).
    StateFiles.createDirectories(state);
    StateStore files = new StateStore(state);
    if (ServiceDescription.completionMode(config)) {
      // The ratings live in RocksDB, which is also the checkpoint (offsets in the same batch).
      SecretKey key = SecretKey.loadOrCreate(config.key());
      completion = CompletionMode.open(config, state, CompletionFit.create(config, key), key,
          metrics, log);
      local = null;
      target = null;
      cache = new ReleaseCache();
    } else if (ServiceDescription.localMode(config)) {
      // No secret key, no tree, no server noise: each report is private by itself (LocalMode).
      completion = null;
      local = LocalMode.aggregate(config);
      target = null;
      cache = new ReleaseCache();
    } else {
      completion = null;
      local = null;
      target = openTree(config, state, files);
      cache = new ReleaseCache(target::rangeRelease);
    }
    counters = new ServiceCounters(config, metrics, completion, local, target, cache, log);
    Checkpoint store = completion != null ? completion.store() : files;

    if (config.bootstrapServers().isPresent()) {
      embedded = null;
      bootstrap = config.bootstrapServers().get();
    } else {
      // Loopback only, whatever `bind` says: the embedded broker has no authentication, and `bind`
      // is the address of the HTTP listeners (a container sets it to 0.0.0.0). Producers elsewhere
      // use a real cluster (bootstrap-servers).
      embedded = EmbeddedKafka.start(state.resolve("kafka"), LOOPBACK, config.embeddedKafkaPort());
      bootstrap = embedded.bootstrapServers();
    }
    IngestLoop createdLoop = null;
    PublicApi createdPublicApi = null;
    OperatorApi createdOperatorApi = null;
    try {
      createTopics();

      IngestConfig ingest = ServiceDescription.ingestConfig(config);
      Map<String, Object> clientProps = kafkaClientProperties();
      Function<ContributionBounds, RecordDecoder> decoder = completion != null
          ? b -> RecordDecoder.ratings(b, completion.store().sink())
          : local != null ? b -> local.decoder()
          : ServiceDescription.rowsMode(config) ? b -> RecordDecoder.rows(b.config(), target::addRow)
          : b -> RecordDecoder.updates(b, target::update);
      createdLoop = IngestLoop.create(ingest, clientProps, store,
          completion != null ? completion.store().target() : local != null ? local : target,
          decoder, new EpochListener() {
        @Override
        public void epochClosed(int epoch) {
          if (completion != null) {
            completion.epochClosed(epoch); // a scheduled fit, if due; no release per epoch
          } else {
            releaseLater(epoch);
          }
        }

        @Override
        public void snapshotWritten(java.time.Duration took, long bytes) {
          metrics.snapshotWritten(took, bytes);
        }

        @Override
        public void restored(int epochsClosed) {
          if (epochsClosed > 0 && completion == null) {
            release(epochsClosed); // a release lost between the snapshot and a crash
          }
        }
      });
      createdLoop.bindClientMetrics(client -> {
        KafkaClientMetrics binder = null;
        if (client instanceof org.apache.kafka.clients.consumer.Consumer<?, ?> c) {
          binder = new KafkaClientMetrics(c);
        } else if (client instanceof org.apache.kafka.clients.producer.Producer<?, ?> p) {
          binder = new KafkaClientMetrics(p);
        }
        if (binder != null) {
          binder.bindTo(metrics.registry());
          kafkaMetrics.add(binder);
        }
      });
      // Restore before any listener accepts a request: a snapshot that cannot be used (other key,
      // other settings, corrupt) is a failed start, never a healthy process without releases.
      createdLoop.restore();
      loop = createdLoop;

      Map<String, Object> protocolJson = local == null ? null : local.protocolJson(config.topic());
      createdPublicApi = listen("http-port", config.httpPort(), () -> PublicApi.start(
          new InetSocketAddress(config.bind(), config.httpPort()), cache, this::status, metrics,
          protocolJson, completion));
      createdOperatorApi = listen("operator-port", config.operatorPort(), () -> OperatorApi.start(
          new InetSocketAddress(config.bind(), config.operatorPort()), metrics,
          () -> counters.ingestStats(this.loop),
          config.adminToken(), completion));
      publicApi = createdPublicApi;
      operatorApi = createdOperatorApi;
      ingestThread = new Thread(this::ingest, "dplrf-ingest");
      ingestThread.setDaemon(true);
      ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "dplrf-metrics");
        t.setDaemon(true);
        return t;
      });
    } catch (Exception | Error e) {
      // A failed start (a port in use, a bad snapshot, ...) must not leave anything running.
      closeQuietly(createdPublicApi);
      closeQuietly(createdOperatorApi);
      closeQuietly(createdLoop);
      kafkaMetrics.forEach(KafkaClientMetrics::close);
      metrics.close();
      releaser.shutdownNow();
      if (embedded != null) {
        embedded.close();
      }
      closeQuietly(completion);
      throw e;
    }
    ticker.scheduleAtFixedRate(() -> counters.publish(this.loop), 1, 1, TimeUnit.SECONDS);
    metrics.ingestRunning(true);
    ingestThread.start();
  }

  /** Modes updates and rows: the binary tree of noisy sketches, keyed by the secret key. */
  private static TreeTarget openTree(ServiceConfig config, Path state, StateStore store)
      throws java.io.IOException {
    Mechanism mechanism = config.mechanism();
    SecretKey key = SecretKey.loadOrCreate(config.key());
    SketchSizes sizes = mechanism.robust()
        ? RobustPlan.defaultSizes(config.rows(), config.cols(), config.rank(),
            boxed(config.sketchCols()), boxed(config.sketchRows()))
        : SketchSizes.of(config.rows(), config.cols(), config.rank(),
            boxed(config.sketchCols()), boxed(config.sketchRows()), config.alpha());
    // Rows mode: the tree sketches the d×d matrix AᵀA, to which one row adds x xᵀ with
    // ‖x xᵀ‖_F = ‖x‖₂² ≤ C²; the Priv2 plan is private for every difference of Frobenius norm
    // ≤ its clip (AtaSketch, docs/rows.md), so the tree is calibrated with clip C².
    double treeClip = ServiceDescription.rowsMode(config) ? config.clip() * config.clip() : config.clip();
    TreeConfig tree = new TreeConfig(mechanism, ServiceDescription.relation(config), sizes,
        new PrivacyParams(config.epsilon(), config.delta()), treeClip, config.epochs(), true,
        config.p());
    TreeTarget target = TreeTarget.open(tree, key, state.resolve("nodes"), store.exists());
    target.describeReleases(ServiceDescription.releaseMetadata(config));
    HeapAdvice.nodesInMemory(tree, Runtime.getRuntime().maxMemory())
        .ifPresent(target::keepInMemoryAtMost);
    return target;
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      // already failing; the first error is the one reported
    }
  }

  /**
   * The ingest thread: runs the loop; if it fails, the service must not go on as a process that
   * answers /health but never releases again, so the failure is handed to whoever waits in
   * {@link #awaitIngestFailure} (`dplrf serve` then stops and exits non-zero).
   */
  private void ingest() {
    try {
      loop.run();
    } catch (RuntimeException e) {
      // IngestLoop.fail has logged it with its stack trace; reported through ingestFailure below.
    } finally {
      IngestLoop.State s = loop.state();
      metrics.ingestRunning(s == IngestLoop.State.NEW || s == IngestLoop.State.RUNNING);
      if (s == IngestLoop.State.FAILED) {
        Throwable f = loop.failure();
        ingestFailure.complete(f != null ? f : new IllegalStateException("ingest failed"));
      }
    }
  }

  /** Starts everything; logs where to push updates and pull releases. */
  public static Service start(ServiceConfig config, PrintStream log) throws Exception {
    Service s = new Service(config, log);
    log.println(s.completion != null ? CompletionMode.banner(config, s.bootstrap,
        s.publicApi.port(), s.operatorApi.port()) : ServiceDescription.banner(config, s.local,
        s.bootstrap, s.publicApi.port(), s.operatorApi.port()));
    if (config.adminToken().isEmpty() && !isLoopback(config.bind())) {
      log.println("dplrf: WARNING the operator port (exact counts, not private) listens on "
          + config.bind() + " without an admin-token; set admin-token or bind to 127.0.0.1");
    }
    if (s.target != null) {
      HeapAdvice.advice(s.target.config(), Runtime.getRuntime().maxMemory())
          .ifPresent(log::println);
    }
    return s;
  }

  private static boolean isLoopback(String host) {
    try {
      return java.net.InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  /** Starting a listener; a taken port becomes an error naming the setting. */
  private interface Listener<T> {
    T start() throws java.io.IOException;
  }

  private <T> T listen(String setting, int port, Listener<T> listener) throws java.io.IOException {
    try {
      return listener.start();
    } catch (java.net.BindException e) {
      throw new java.io.IOException("cannot listen on " + config.bind() + ":" + port + " ("
          + setting + "): " + e.getMessage(), e);
    }
  }

  private static Integer boxed(java.util.OptionalInt o) {
    return o.isPresent() ? o.getAsInt() : null;
  }

  /** {@code kafka-config}'s settings and the bootstrap servers, for every Kafka client made here. */
  private Map<String, Object> kafkaClientProperties() {
    return KafkaClientSettings.withBootstrap(config.kafkaClientSettings(), bootstrap);
  }

  private void createTopics() throws java.io.IOException, InterruptedException {
    Map<String, Integer> topics = new java.util.LinkedHashMap<>(); // the updates topic first
    topics.put(config.topic(), config.partitions());
    topics.put(config.deadLetterTopic(), 1);
    Topics.ensure(kafkaClientProperties(), bootstrap, topics);
  }

  /**
   * Queues the release of epoch {@code epoch}, whose snapshot is durable. A failed release stops
   * the service like a failed ingest ({@link #awaitIngestFailure}): a process that no longer
   * releases must not look healthy.
   */
  private void releaseLater(int epoch) {
    metrics.releaseQueued();
    try {
      releaser.execute(() -> {
        try {
          release(epoch);
        } catch (RuntimeException | Error e) {
          log.println("dplrf: the release of epoch " + epoch + " failed: " + e);
          ingestFailure.complete(e);
        } finally {
          metrics.releaseEnded();
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      metrics.releaseEnded(); // shutting down
      throw e;
    }
  }

  /** Computes and caches the prefix release after epoch {@code epoch}: once per epoch. */
  private void release(int epoch) {
    long t0 = System.nanoTime();
    Instant now = Instant.now();
    if (local != null) {
      cache.publish(local.release(epoch, config.rank(), now));
    } else {
      var r = target.prefix(epoch, config.rank());
      cache.publish(new Release(1, epoch, r.factorization(), r.report(), now,
          target.releaseMetadata()));
    }
    lastRelease = now;
    metrics.releaseDuration(java.time.Duration.ofNanos(System.nanoTime() - t0));
    metrics.epochCurrent(epoch);
    metrics.epochsLeft(config.epochs() - epoch);
    metrics.sketchMemory(counters.sizeInBytes());
    metrics.releaseExhausted(epoch >= config.epochs());
    if (local != null && epoch >= config.epochs()) {
      log.println("dplrf: epoch " + epoch + " of " + config.epochs() + " closed: no further"
          + " releases (T bounds releases only in local mode; no budget was spent by the server)");
    } else if (epoch >= config.epochs()) {
      log.println("dplrf: epoch " + epoch + " of " + config.epochs()
          + " closed: the privacy budget is spent; the last release stays available, no new ones");
    }
  }

  /** Status as served: derived from what has been released, never ahead of the cache. */
  private Status status() {
    if (completion != null) {
      // Epochs only cut checkpoints and the schedule here; what the budget counts is fits, so
      // epoch/epochs (and the status page) show fits started of R.
      return new Status(completion.started(), config.completion().runs(), config.epsilon(),
          config.delta(),
          ServiceDescription.mechanismName(config), ServiceDescription.relationName(config),
          ServiceDescription.neighbouring(config),
          config.clip(), ServiceDescription.privacyUnit(config), completion.exhausted(),
          CompletionMode.message(completion), completion.lastRun(), config.rows(), config.cols(),
          0);
    }
    int released = cache.latest().map(Release::epoch).orElse(0);
    boolean exhausted = released >= config.epochs();
    String message = local != null ? LocalMode.message(released, config.epochs())
        : exhausted
        ? "epoch T = " + config.epochs() + " reached: the privacy budget is spent, no further releases"
        : released == 0 ? "waiting for the first epoch to close"
        : "releasing after every epoch";
    return new Status(released, config.epochs(), config.epsilon(), config.delta(),
        ServiceDescription.mechanismName(config), ServiceDescription.relationName(config),
        ServiceDescription.neighbouring(config), config.clip(),
        ServiceDescription.privacyUnit(config), exhausted, message, lastRelease,
        config.rows(), config.cols(), config.rank());
  }

  public ReleaseCache releases() {
    return cache;
  }

  public int httpPort() {
    return publicApi.port();
  }

  public int operatorPort() {
    return operatorApi.port();
  }

  public String bootstrapServers() {
    return bootstrap;
  }

  public IngestStats stats() {
    return loop.stats();
  }

  public IngestLoop.State ingestState() {
    return loop.state();
  }

  /**
   * Blocks until the ingest loop ends (exhaustion, failure or close) and the releases of the
   * epochs it closed are published.
   */
  public void awaitIngest() throws InterruptedException {
    ingestThread.join();
    try {
      releaser.submit(() -> { }).get();
    } catch (ExecutionException | java.util.concurrent.RejectedExecutionException e) {
      // closed meanwhile: nothing more will be published
    }
  }

  /**
   * Blocks until the ingest loop fails, and returns why; returns null once the service is
   * closed. Exhaustion at epoch T is not a failure: the service keeps serving the last release.
   */
  public Throwable awaitIngestFailure() throws InterruptedException {
    try {
      return ingestFailure.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e); // never completed exceptionally
    }
  }

  /**
   * Stops ingest (writing a final snapshot unless it failed), the servers and the embedded broker.
   * Idempotent; safe from any thread.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    ingestFailure.complete(null);
    ticker.shutdownNow();
    loop.close();
    try {
      ingestThread.join(30_000);
      releaser.shutdown(); // a release under way is finished: its epoch is already snapshotted
      releaser.awaitTermination(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    releaser.shutdownNow();
    kafkaMetrics.forEach(KafkaClientMetrics::close);
    publicApi.close();
    operatorApi.close();
    metrics.close();
    if (embedded != null) {
      embedded.close();
    }
    if (completion != null) {
      completion.close();
    }
  }
}
