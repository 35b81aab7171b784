package io.dplrf.deploy.serve.completion;

import io.dplrf.deploy.http.CompletionEndpoints.Refused;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.ingest.RatingsStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The fits of mode completion: started on demand ({@link #start}, the operator endpoint) or by
 * the schedule ({@link #epochClosed}: every N epochs), never per update; one at a time, in the
 * background, on committed ratings. Thread-safe.
 *
 * <p><b>Budget.</b> At most R fits ({@link CompletionBudget}). The count of started fits is
 * written durably to the ratings database <em>before</em> a fit reads any rating, so a crash
 * during a fit still counts it (its noise may have been drawn): a restart never gets a fit for
 * free. Each fit draws its noise from its own labelled stream of the secret key, {@code
 * completion/<id>/run/<r>}: r never repeats within a state directory, and id is 128 random bits
 * drawn when the directory's ratings database is created, so that two state directories sharing
 * a key (setting {@code key}) never share noise either — the same noise on two datasets would
 * cancel in the difference of their outputs.
 *
 * <p><b>Model.</b> The latest finished model is written to the database too (its public part:
 * refitting to restore it would spend budget), and served until the next one finishes.
 */
final class CompletionRuns implements AutoCloseable {
  static final String RUNS_META = "completion/runs";
  static final String MODEL_META = "completion/model";
  static final String ID_META = "completion/id";

  /** The algorithm (its adapter to io.dplrf.release.completion) as the runner uses it. */
  interface Fitter {
    /**
     * Fits on the store's committed ratings with the noise of {@code label} (never used before
     * with the key); reports iterations done.
     */
    Model fit(RatingsStore store, String label, Progress progress) throws IOException;

    /** A model written by {@link Model#encode}. */
    Model decode(byte[] bytes) throws IOException;
  }

  /** A fitted model: a public part and the local component. Immutable; thread-safe. */
  interface Model {
    /** The public part: item factors and diagnostics (everything here is released). */
    Map<String, Object> publicJson();

    /** Scores of every item for a user from her own ratings and the public part only. */
    double[] scores(RatingsStore.UserRatings own);

    byte[] encode();
  }

  @FunctionalInterface
  interface Progress {
    void iteration(int done, int total);
  }

  /** A finished fit, as served. */
  record Finished(int run, Model model, Instant at, Duration took) {}

  private final RatingsStore store;
  private final Fitter fitter;
  private final CompletionBudget budget;
  private final int everyEpochs;
  private final Metrics metrics;
  private final PrintStream log;
  private final ExecutorService executor;
  private final String id;
  private int started;
  private boolean running;
  private volatile Finished latest;
  private volatile int iteration;
  private volatile int iterations;
  private volatile String lastError;
  private boolean exhaustedLogged;

  CompletionRuns(RatingsStore store, Fitter fitter, CompletionBudget budget, int everyEpochs,
      Metrics metrics, PrintStream log) throws IOException {
    this.store = store;
    this.fitter = fitter;
    this.budget = budget;
    this.everyEpochs = everyEpochs;
    this.metrics = metrics;
    this.log = log;
    Optional<byte[]> storedId = store.meta(ID_META);
    if (storedId.isPresent()) {
      id = new String(storedId.get(), java.nio.charset.StandardCharsets.US_ASCII);
    } else {
      byte[] r = new byte[16];
      new java.security.SecureRandom().nextBytes(r);
      id = java.util.HexFormat.of().formatHex(r);
      store.putMeta(ID_META, id.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
    this.started = store.meta(RUNS_META).map(b -> java.nio.ByteBuffer.wrap(b).getInt()).orElse(0);
    Optional<byte[]> m = store.meta(MODEL_META);
    if (m.isPresent()) {
      latest = decodeFinished(m.get());
    }
    metrics.completionRunsLeft(Math.max(0, budget.runs() - started));
    executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "dplrf-completion");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Starts fit number started + 1 in the background.
   *
   * @throws Refused 409 while a fit runs or once R fits have started
   */
  synchronized Map<String, Object> start(String reason) {
    if (running) {
      throw new Refused(409, "fit " + started + " is still running; try again when it has"
          + " finished (see /v1/status)");
    }
    if (started >= budget.runs()) {
      throw new Refused(409, "the privacy budget is spent: all R = " + budget.runs() + " fits"
          + " have run; the last model stays available");
    }
    int run = started + 1;
    try {
      // Durable before any rating is read: a crash from here on has spent this fit.
      store.putMeta(RUNS_META, java.nio.ByteBuffer.allocate(4).putInt(run).array());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    started = run;
    running = true;
    metrics.completionRunStarted(budget.runs() - run);
    log.println("dplrf: completion fit " + run + " of " + budget.runs() + " started (" + reason
        + ")");
    executor.execute(() -> fit(run));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("run", run);
    out.put("reason", reason);
    out.put("runsLeft", budget.runs() - run);
    out.put("epsilonPerRun", budget.epsilonPerRun());
    out.put("status", "/v1/status");
    return out;
  }

  /** The schedule: after every {@code everyEpochs}-th epoch, a fit, if one may start. */
  void epochClosed(int epoch) {
    if (everyEpochs <= 0 || epoch % everyEpochs != 0) {
      return;
    }
    try {
      start("schedule: epoch " + epoch);
    } catch (Refused e) {
      synchronized (this) {
        if (started < budget.runs() || !exhaustedLogged) {
          log.println("dplrf: scheduled completion fit after epoch " + epoch + " skipped: "
              + e.getMessage());
          exhaustedLogged = started >= budget.runs();
        }
      }
    }
  }

  private void fit(int run) {
    long t0 = System.nanoTime();
    try {
      Model model = fitter.fit(store, "completion/" + id + "/run/" + run, (done, total) -> {
        if (Thread.currentThread().isInterrupted()) {
          throw new java.util.concurrent.CancellationException("the service is closing");
        }
        iteration = done;
        iterations = total;
        metrics.completionProgress(done, total);
      });
      Duration took = Duration.ofNanos(System.nanoTime() - t0);
      Finished f = new Finished(run, model,
          Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS), took); // as stored
      store.putMeta(MODEL_META, encodeFinished(f));
      latest = f;
      lastError = null;
      metrics.completionRunFinished(took, f.at().getEpochSecond());
      log.println("dplrf: completion fit " + run + " finished in " + took.toMillis() + " ms");
    } catch (IOException | RuntimeException e) {
      // Public (/v1/status): no exception text, which might name data; the details go to the log.
      lastError = "fit " + run + " failed (details in the service log); it counts against the"
          + " budget";
      log.println("dplrf: completion fit " + run + " failed: " + e
          + " (it counts against the budget)");
    } finally {
      synchronized (this) {
        running = false;
      }
    }
  }

  Optional<Finished> latest() {
    return Optional.ofNullable(latest);
  }

  /**
   * Public fields of /v1/status: budget, schedule, whether a fit runs, the latest model's run
   * and finish time. Not the fit's duration nor its iteration progress: a fit's time grows with
   * the stored ratings, which one user changes ({@link #progress}, operator port).
   */
  synchronized Map<String, Object> status() {
    return publicState().json();
  }

  /**
   * The public state, read at once (one lock), so that /v1/status's fields and the status page
   * agree: fits started, whether one runs, the served model and the last failure's public words.
   */
  synchronized Public publicState() {
    return new Public(started, running, Optional.ofNullable(latest), lastError);
  }

  /** What {@link #publicState} reads. */
  final class Public {
    final int started;
    final boolean running;
    final Optional<Finished> latest;
    final String lastError;

    private Public(int started, boolean running, Optional<Finished> latest, String lastError) {
      this.started = started;
      this.running = running;
      this.latest = latest;
      this.lastError = lastError;
    }

    boolean exhausted() {
      return started >= budget.runs();
    }

    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("budget", budget.json(started));
      m.put("schedule", everyEpochs > 0 ? "a fit after every " + everyEpochs + " epochs, and on"
          + " demand (POST /admin/completion/run)" : "on demand only (POST /admin/completion/run)");
      m.put("running", running);
      m.put("exhausted", exhausted());
      m.put("modelRun", latest.map(Finished::run).orElse(null));
      m.put("lastRunTime", latest.map(f -> f.at().toString()).orElse(null));
      m.put("lastError", lastError);
      return m;
    }
  }

  /**
   * The fits' timing, for the operator only (GET /admin/completion): iteration progress of the
   * current (or last) fit and how long the last finished fit took.
   */
  synchronized Map<String, Object> progress() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("running", running);
    m.put("iteration", iteration);
    m.put("iterations", iterations);
    Finished f = latest;
    m.put("modelRun", f == null ? null : f.run());
    m.put("lastRunTime", f == null ? null : f.at().toString());
    m.put("lastRunSeconds", f == null ? null : f.took().toMillis() / 1000.0);
    return m;
  }

  CompletionBudget budget() {
    return budget;
  }

  synchronized int started() {
    return started;
  }

  private static byte[] encodeFinished(Finished f) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(b);
    d.writeInt(f.run());
    d.writeLong(f.at().toEpochMilli());
    d.writeLong(f.took().toNanos());
    byte[] model = f.model().encode();
    d.writeInt(model.length);
    d.write(model);
    d.flush();
    return b.toByteArray();
  }

  private Finished decodeFinished(byte[] bytes) throws IOException {
    DataInputStream d = new DataInputStream(new ByteArrayInputStream(bytes));
    int run = d.readInt();
    Instant at = Instant.ofEpochMilli(d.readLong());
    Duration took = Duration.ofNanos(d.readLong());
    byte[] model = new byte[d.readInt()];
    d.readFully(model);
    return new Finished(run, fitter.decode(model), at, took);
  }

  /** Stops the runner; a fit in progress is abandoned at its next iteration (it stays counted). */
  @Override
  public void close() {
    awaitClosed();
  }

  /** As {@link #close}; true if no fit is left running (only then may the store be closed). */
  boolean awaitClosed() {
    executor.shutdownNow();
    try {
      return executor.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
