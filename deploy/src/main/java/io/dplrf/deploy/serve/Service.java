package io.dplrf.deploy.serve;

import io.dplrf.deploy.config.KafkaClientSettings;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.http.Health;
import io.dplrf.deploy.http.OperatorApi;
import io.dplrf.deploy.http.PublicApi;
import io.dplrf.deploy.http.ReleaseCache;
import io.dplrf.deploy.http.Status;
import io.dplrf.deploy.http.StatusSource;
import io.dplrf.deploy.kafka.EmbeddedKafka;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.ingest.BrokerContact;
import io.dplrf.ingest.DeadLetterReason;
import io.dplrf.ingest.EpochListener;
import io.dplrf.ingest.IngestLoop;
import io.dplrf.ingest.IngestStats;
import io.dplrf.ingest.OpenEpoch;
import io.dplrf.ingest.StateWrites;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The running service ({@code dplrf serve}), the same for every mode: Kafka (embedded or
 * external) → {@link IngestLoop} → the mode's state ({@link ServiceMode}, made by {@link
 * Modes#open}) → its releases on the public port; exact counts and metrics on the operator port.
 *
 * <p>Data flows one way; the only mutable shared state is the mode's, whose thread-safety the
 * mode states.
 *
 * <p><b>Degraded, not dead.</b> While the ingest consumer gets no answer from its broker ({@link
 * BrokerContact}), {@code /health} says "degraded" with the reason, {@code /v1/status} says that
 * ingest waits, {@code /admin/ingest} and the metrics {@code dplrf_broker_reachable} and {@code
 * dplrf_broker_last_contact_timestamp_seconds} show it, and the consumer lag reads NaN (its last
 * known end is stale); the releases made so far stay served, and ingest resumes by itself when
 * the broker answers again.
 *
 * <p><b>No zombie.</b> The snapshot is restored before the HTTP listeners open, so one that cannot
 * be used, or a state directory whose run cut its epochs otherwise ({@link EpochCut}), fails
 * {@link #start}; a later failure of the ingest loop, or of one of the mode's threads
 * (a release, a fit), is reported by {@link #awaitIngestFailure}, and {@code dplrf serve} then
 * closes the service and exits non-zero instead of answering /health with nothing behind it.
 */
public final class Service implements AutoCloseable {
  private static final String LOOPBACK = "127.0.0.1";
  private final ServiceConfig config;
  private final Metrics metrics;
  /** The dead-letter reasons of the mode's record format, in declaration order. */
  private final List<DeadLetterReason> deadLetterReasons;
  private final ServiceMode mode;
  private final EmbeddedKafka embedded;
  private final String bootstrap;
  private final IngestLoop loop;
  private final Thread ingestThread;
  private final PublicApi publicApi;
  private final OperatorApi operatorApi;
  private final ScheduledExecutorService ticker;
  private final List<KafkaClientMetrics> kafkaMetrics = new ArrayList<>();
  private final CompletableFuture<Throwable> failure = new CompletableFuture<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  /** The loop's counts at the last {@link #publish}, for the counters' differences. */
  private IngestStats lastStats = new IngestStats();
  /** The open epoch last hinted about in the log ({@link #hintIdleEpoch}), or 0. */
  private int hintedEpoch;
  /** Whether the last {@link #publish} found the broker unreachable (logged on each change). */
  private boolean brokerDown;
  /** The epoch the loop closed last and when ({@link ModeContext#closedAt}); null before one. */
  private volatile Closed lastClosed;

  private record Closed(int epoch, Instant at) {}

  private Service(ServiceConfig config, PrintStream log) throws Exception {
    this.config = config;
    EpochCut cut = EpochCut.of(config);
    cut.check(config.stateDir());
    metrics = Modes.metrics(config);
    deadLetterReasons = java.util.EnumSet.copyOf(Modes.deadLetterReasons(config)).stream().toList();
    try {
      mode = Modes.open(config, new ModeContext(metrics, log, failure::complete,
          epoch -> {
            Closed c = lastClosed;
            return c != null && c.epoch() == epoch ? c.at() : null;
          }));
    } catch (Exception | Error e) {
      metrics.close();
      throw e;
    }
    IngestLoop createdLoop = null;
    PublicApi createdPublicApi = null;
    OperatorApi createdOperatorApi = null;
    EmbeddedKafka createdKafka = null;
    try {
      if (config.bootstrapServers().isPresent()) {
        bootstrap = config.bootstrapServers().get();
      } else {
        // Loopback only, whatever `bind` says: the embedded broker has no authentication, and
        // `bind` is the address of the HTTP listeners (a container sets it to 0.0.0.0). Producers
        // elsewhere use a real cluster (bootstrap-servers).
        // A taken port is checked before the broker starts: the broker itself would log every
        // failed component with its stack trace before giving up.
        int port = config.embeddedKafkaPort();
        createdKafka = listen("embedded-kafka-port", LOOPBACK, port, () -> {
          EmbeddedKafka.requireFreePort(LOOPBACK, port);
          return EmbeddedKafka.start(config.stateDir().resolve("kafka"), LOOPBACK, port);
        });
        bootstrap = createdKafka.bootstrapServers();
      }
      embedded = createdKafka;
      createTopics();
      createdLoop = IngestLoop.create(mode.ingestConfig(), kafkaClientProperties(),
          mode.checkpoint(), mode.target(), mode::decoder, new EpochListener() {
            @Override
            public void epochClosed(int epoch) {
              mode.epochClosed(epoch);
            }

            @Override
            public void epochClosed(int epoch, Instant closedAt) {
              lastClosed = new Closed(epoch, closedAt);
              mode.epochClosed(epoch);
            }

            @Override
            public void snapshotWritten(Duration took, long bytes) {
              metrics.snapshotWritten(took, bytes);
            }

            @Override
            public void restored(int epochsClosed, Instant lastClosed) {
              mode.restored(epochsClosed, lastClosed);
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
      // An older backup put back whole agrees with itself: the restore also checks the broker's
      // record of the stream's progress, which tells it from the latest (recovery.md §6).
      createdLoop.restore();
      cut.pin(config.stateDir());
      loop = createdLoop;
      createdPublicApi = listen("http-port", config.bind(), config.httpPort(), () -> PublicApi.start(
          new InetSocketAddress(config.bind(), config.httpPort()), mode.releases(),
          new StatusSource() {
            @Override
            public Status status() {
              return Service.this.status();
            }

            @Override
            public Health health() {
              return Service.this.health();
            }
          }, metrics, mode.routes()));
      IngestLoop closing = createdLoop;
      createdOperatorApi = listen("operator-port", config.operatorBind(), config.operatorPort(),
          () -> OperatorApi.start(new InetSocketAddress(config.operatorBind(),
              config.operatorPort()), metrics, this::ingestStats, config.adminToken(),
              mode.routes(), closing::requestClose));
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
      closeQuietly(createdKafka);
      closeQuietly(mode);
      throw e;
    }
    ticker.scheduleAtFixedRate(() -> publish(log), 1, 1, TimeUnit.SECONDS);
    metrics.ingestRunning(true);
    ingestThread.start();
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
   * {@link #awaitIngestFailure} ({@code dplrf serve} then stops and exits non-zero).
   */
  private void ingest() {
    try {
      loop.run();
    } catch (RuntimeException e) {
      // IngestLoop.fail has logged it with its stack trace; reported through failure below.
    } finally {
      IngestLoop.State s = loop.state();
      metrics.ingestRunning(consuming(s));
      if (s == IngestLoop.State.FAILED) {
        Throwable f = loop.failure();
        failure.complete(f != null ? f : new IllegalStateException("ingest failed"));
      }
    }
  }

  /** Starts everything; logs where to push updates and pull releases. */
  public static Service start(ServiceConfig config, PrintStream log) throws Exception {
    Service s = new Service(config, log);
    log.println(s.mode.banner(s.bootstrap, s.publicApi.port(), s.operatorApi.port()));
    s.mode.notes().forEach(log::println);
    return s;
  }

  /** Starting a listener; a taken port becomes an error naming the setting. */
  private interface Listener<T> {
    T start() throws IOException;
  }

  private static <T> T listen(String setting, String host, int port, Listener<T> listener)
      throws IOException {
    try {
      return listener.start();
    } catch (BindException e) {
      throw new IOException("cannot listen on " + host + ":" + port + " (--" + setting + "): "
          + e.getMessage() + "; choose another port with --" + setting, e);
    }
  }

  /** {@code kafka-config}'s settings and the bootstrap servers, for every Kafka client made here. */
  private Map<String, Object> kafkaClientProperties() {
    return KafkaClientSettings.withBootstrap(config.kafkaClientSettings(), bootstrap);
  }

  private void createTopics() throws IOException, InterruptedException {
    Map<String, Integer> topics = new LinkedHashMap<>(); // the consumed topic first
    topics.put(config.topic(), config.partitions());
    topics.put(config.deadLetterTopic(), 1);
    Topics.ensure(kafkaClientProperties(), bootstrap, topics);
  }

  /** Whether the loop is, or is about to be, consuming (what its broker contact is about). */
  private static boolean consuming(IngestLoop.State s) {
    return s == IngestLoop.State.NEW || s == IngestLoop.State.STARTING
        || s == IngestLoop.State.RUNNING;
  }

  /** The broker contact while the loop consumes; null when it does not (nothing to reach). */
  private BrokerContact brokerWhileConsuming() {
    return consuming(loop.state()) ? loop.brokerContact() : null;
  }

  /**
   * The {@code broker-unreachable} reason while the consumer gets no answer from its broker;
   * empty otherwise.
   */
  private Optional<Health.Reason> brokerUnreachable() {
    BrokerContact c = brokerWhileConsuming();
    if (c == null || c.reachable()) {
      return Optional.empty();
    }
    return Optional.of(new Health.Reason("broker-unreachable", "no answer from the Kafka broker"
        + " for " + c.silentMillis() / 1000 + " s of asking: ingest waits and resumes by itself"
        + " when it answers; the releases made so far are served"));
  }

  /**
   * {@code /v1/status}: the mode's, with what ingest adds — that it waits for the broker, and,
   * for a release after every epoch with epochs cut by the clock, when the open epoch closes (a
   * function of the clock alone; completion's fits follow their own schedule).
   */
  private Status status() {
    Status s = mode.status();
    if (s.exhausted()) {
      return s;
    }
    if (config.epochDuration().isPresent() && s.served() instanceof Status.Epochs e) {
      Instant close = nextClose(loop.openEpoch());
      s = s.withNextEpochClose(close);
      if (e.epoch() == 0) {
        s = s.withMessage(close == null
            ? "waiting for the first record: the first epoch opens when it is read and closes "
                + seconds(config.epochDuration().get()) + " s later"
            : "waiting for the first epoch to close at " + close + " (it opened with the first"
                + " record read)");
      }
    }
    if (config.epochUpdates().isPresent() && s.served() instanceof Status.Epochs
        && loop.state() == IngestLoop.State.RUNNING) {
      OpenEpoch open = loop.openEpoch();
      if (waiting(open, STATUS_WAITING)) {
        s = s.withMessage(waitingEpoch(open.epoch()));
      }
    }
    BrokerContact c = brokerWhileConsuming();
    if (c != null && !c.reachable()) {
      s = s.withMessage("ingest waits for the Kafka broker (no answer for " + c.silentMillis() / 1000
          + " s); " + s.served().stillServed());
    }
    return s;
  }

  /** Exact counts for /admin/ingest (operator port only: not private). */
  private Map<String, Object> ingestStats() {
    IngestStats s = loop.stats();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("state", loop.state().name().toLowerCase(Locale.ROOT));
    m.put("broker", broker());
    m.put("openEpoch", openEpoch());
    m.put("recordsConsumed", s.recordsConsumed());
    mode.ingestStats(m, s);
    Map<String, Object> dl = new LinkedHashMap<>();
    for (DeadLetterReason r : deadLetterReasons) {
      dl.put(r.name().toLowerCase(Locale.ROOT), s.deadLettered(r));
    }
    m.put("recordsDeadLettered", dl);
    m.put("checksum", checksumHex(s.checksum()));
    m.put("epochsClosed", mode.target().epochsClosed());
    return m;
  }

  /** The checksum as the log prints it ({@code IngestStats.toString}): 16 hex digits, zero-padded. */
  static String checksumHex(long checksum) {
    return String.format(Locale.ROOT, "%016x", checksum);
  }

  /**
   * {@code /health}: ingest waiting for its broker or for a refused state write, then the mode's
   * problems (damaged files). Public: host paths under the state directory are named relative to
   * it.
   */
  Health health() {
    Health h = brokerUnreachable().map(r -> new Health(List.of(r))).orElse(Health.OK);
    var blocked = loop.stateWrites().blocked();
    if (blocked.isPresent()) {
      Health.Reason r = stateWriteRefused(blocked.get());
      h = h.and(new Health(List.of(new Health.Reason(r.code(), relative(r.message())))));
    }
    return h.and(mode.health());
  }

  /**
   * {@code /health}'s reason while the state directory refuses a write. An epoch's close is
   * written while the loop reads on (the pipelined close), so ingest goes on to the end of the
   * open epoch at most and then waits; a snapshot's write stops it at once.
   */
  static Health.Reason stateWriteRefused(StateWrites.Blocked b) {
    return new Health.Reason("state-write-refused", b.what() + " failed (" + b.reason()
        + ") since " + b.since() + ", " + b.attempts() + " attempt(s): ingest reads on at most to"
        + " the end of the open epoch, then waits; the write is retried every 30 s at most, and"
        + " ingest resumes by itself once it succeeds; the releases made so far stay available");
  }

  /** {@code text} with the state directory's absolute path replaced by its setting's name. */
  private String relative(String text) {
    String dir = config.stateDir().toAbsolutePath().normalize().toString();
    return text.replace(dir + java.io.File.separator, "").replace(dir, "<state-dir>");
  }

  /** Turns the loop's exact counters into Prometheus counters (by difference) and gauges. */
  private synchronized void publish(PrintStream log) {
    try {
      IngestStats s = loop.stats();
      metrics.recordsConsumed(s.recordsConsumed() - lastStats.recordsConsumed());
      mode.publish(metrics, s, lastStats);
      for (DeadLetterReason r : deadLetterReasons) {
        metrics.deadLettered(r, s.deadLettered(r) - lastStats.deadLettered(r));
      }
      lastStats = s;
      BrokerContact c = brokerWhileConsuming();
      boolean reachable = c == null || c.reachable();
      metrics.brokerContact(reachable, loop.brokerContact().lastAnswerMillis());
      if (reachable) {
        loop.lag().forEach((tp, lag) -> metrics.consumerLag(tp.partition(), lag));
      } else {
        metrics.consumerLagUnknown();
      }
      if (reachable == brokerDown) {
        brokerDown = !reachable;
        log.println(brokerDown ? "dplrf: " + brokerUnreachable().map(Health.Reason::message).orElse("")
            : "dplrf: the Kafka broker answers again");
      }
      hintIdleEpoch(log);
      metrics.sketchMemory(mode.sizeInBytes());
      metrics.stateWrites(loop.stateWrites().blocked().isPresent(), loop.stateWrites().failures());
      metrics.ingestRunning(consuming(loop.state()));
    } catch (RuntimeException e) {
      log.println("dplrf: metrics update failed: " + e.getMessage());
    }
  }

  /** {@code /admin/ingest}'s "broker": what the consumer knows of it. */
  private Map<String, Object> broker() {
    BrokerContact c = loop.brokerContact();
    BrokerContact consuming = brokerWhileConsuming();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("bootstrapServers", bootstrap);
    m.put("state", consuming == null ? "not consuming"
        : consuming.reachable() ? "reachable" : "unreachable");
    m.put("lastContact", c.lastAnswerMillis() == 0 ? null
        : Instant.ofEpochMilli(c.lastAnswerMillis()).toString());
    m.put("silentSeconds", c.silentMillis() / 1000.0);
    m.put("unreachableAfterSeconds", BrokerContact.UNREACHABLE_AFTER.toSeconds());
    return m;
  }

  /** {@code /admin/ingest}'s "openEpoch": the epoch being filled and when it closes. */
  private Map<String, Object> openEpoch() {
    OpenEpoch e = loop.openEpoch();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("epoch", e.epoch());
    m.put("openedAt", e.startMillis() == 0 ? null : Instant.ofEpochMilli(e.startMillis()).toString());
    if (config.epochUpdates().isPresent()) {
      m.put("updatePositions", e.updatePositions());
      m.put("closesAtUpdatePositions", config.epochUpdates().getAsLong());
      // Null until this process reads a record: the snapshot does not keep the time.
      m.put("lastRecordAt", e.lastRecordMillis() == 0 ? null
          : Instant.ofEpochMilli(e.lastRecordMillis()).toString());
      m.put("idleCloseSeconds", config.epochIdle().toMillis() / 1000.0);
    } else {
      Instant close = nextClose(e);
      m.put("closesAt", close == null ? null : close.toString());
    }
    return m;
  }

  /** With epochs by the clock, when {@code e} closes; null until the first record opens it. */
  private Instant nextClose(OpenEpoch e) {
    return e.startMillis() == 0 ? null
        : Instant.ofEpochMilli(e.startMillis()).plus(config.epochDuration().orElseThrow());
  }

  private static String seconds(Duration d) {
    return java.math.BigDecimal.valueOf(d.toNanos(), 9).stripTrailingZeros().toPlainString();
  }

  /** How long a partial epoch waits without records before {@code /v1/status} says so. */
  static final Duration STATUS_WAITING = Duration.ofSeconds(5);

  /** How long a partial epoch waits without records before the log says so, once per epoch. */
  private static final Duration IDLE_HINT = Duration.ofSeconds(60);

  /**
   * Whether {@code e}, an epoch cut by count, holds updates and has read no record for {@code
   * after}: a stream that ended inside it, or paused. Public: whether the open epoch is empty
   * and when records arrive are functions of the records' number and times, which the epoch cut
   * already reveals (docs/privacy/epoch-boundaries.md).
   */
  private static boolean waiting(OpenEpoch e, Duration after) {
    return e.updatePositions() > 0 && e.idleSinceMillis() > 0
        && System.currentTimeMillis() - e.idleSinceMillis() >= after.toMillis();
  }

  /** What {@code /v1/status} and the log say of a waiting epoch: when and how it closes. */
  private String waitingEpoch(int epoch) {
    String how = "POST /admin/close-epoch on the operator port closes it now";
    return "epoch " + epoch + " holds updates and waits for more (the count epoch-updates is not"
        + " reached); " + (config.epochIdle().isZero()
            ? "epoch-idle-seconds is 0 in this run, so it stays open until the count is reached: "
                + how
            : "it closes by itself " + seconds(config.epochIdle()) + " s after the last record"
                + " (epoch-idle-seconds), or " + how);
  }

  /**
   * With epochs by count: once an epoch that holds updates has read no record for {@link
   * #IDLE_HINT}, says once in the log that it waits and how it closes — a stream that ends inside
   * an epoch would otherwise leave its last updates unreleased without a word. The exact count of
   * update positions is the operator's (this log and {@code /admin/ingest}).
   */
  private void hintIdleEpoch(PrintStream log) {
    if (config.epochUpdates().isEmpty() || loop.state() != IngestLoop.State.RUNNING) {
      return;
    }
    OpenEpoch e = loop.openEpoch();
    if (e.epoch() != hintedEpoch && waiting(e, IDLE_HINT)) {
      hintedEpoch = e.epoch();
      log.println("dplrf: " + e.updatePositions() + " of " + config.epochUpdates().getAsLong()
          + " update positions read, no record for " + IDLE_HINT.toSeconds() + " s: "
          + waitingEpoch(e.epoch()));
    }
  }

  public ReleaseCache releases() {
    return mode.releases();
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
    mode.awaitReleases();
  }

  /**
   * Blocks until the ingest loop or one of the mode's threads fails, and returns why; returns
   * null once the service is closed. Exhaustion at epoch T is not a failure: the service keeps
   * serving the last release.
   */
  public Throwable awaitIngestFailure() throws InterruptedException {
    try {
      return failure.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e); // never completed exceptionally
    }
  }

  /**
   * Stops ingest (writing a final snapshot unless it failed), the mode's threads, the servers and
   * the embedded broker. Idempotent; safe from any thread.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    failure.complete(null);
    ticker.shutdownNow();
    loop.close();
    try {
      ingestThread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    mode.close(); // a release under way is finished: its epoch is already snapshotted
    kafkaMetrics.forEach(KafkaClientMetrics::close);
    publicApi.close();
    operatorApi.close();
    metrics.close();
    if (embedded != null) {
      embedded.close();
    }
  }
}
