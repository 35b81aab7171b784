package io.dplrf.deploy.serve.completion;

import io.dplrf.deploy.config.CompletionSettings;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.http.CompletionEndpoints;
import io.dplrf.deploy.http.ModeRoutes;
import io.dplrf.deploy.http.ReleaseCache;
import io.dplrf.deploy.http.Status;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.deploy.serve.IngestSettings;
import io.dplrf.deploy.serve.ModeContext;
import io.dplrf.deploy.serve.ServiceMode;
import io.dplrf.ingest.Checkpoint;
import io.dplrf.ingest.ContributionBounds;
import io.dplrf.ingest.IngestConfig;
import io.dplrf.ingest.IngestStats;
import io.dplrf.ingest.IngestTarget;
import io.dplrf.ingest.RatingsStore;
import io.dplrf.ingest.RecordDecoder;
import io.dplrf.release.completion.BiasedCompletion;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Mode completion (docs/completion-service.md), as the {@link Service} wires it: the RocksDB
 * ratings store (the ingest loop's checkpoint and target), the fits ({@link CompletionRuns}) and
 * the joint-DP endpoints ({@link CompletionEndpoints}: public model, per-user predictions behind
 * per-user tokens, operator actions). Thread-safe.
 *
 * <p><b>Joint DP.</b> A fit's output (the biased model's global offset, item biases, λ_u and
 * residual factors, or Frank–Wolfe's item factors and noisy eigen statistics) is DP for one
 * user's ratings and is public. User u's prediction is computed from u's own stored ratings and
 * that public output (her own bias and the local component, paper 004 Algorithm 1 A_local), so
 * the predictions of all other users together are DP for u's ratings: joint DP (Kearns et al.
 * 2014; paper 004 Definition 2.2). That holds only if nobody but u sees u's prediction, hence
 * the per-user token. Exact counts (users, ratings) are operator-only.
 */
public final class CompletionMode implements ServiceMode, CompletionEndpoints {
  private final ServiceConfig config;
  private final RatingsStore store;
  private final UserTokens tokens;
  private final CompletionRuns runs;
  /** Completion serves no factorization: the public port's release routes answer 404, saying so. */
  private final ReleaseCache noReleases = ReleaseCache.none("this service releases no"
      + " factorization: mode completion serves its fits' model at /v1/completion (see"
      + " /v1/status)");

  private CompletionMode(ServiceConfig config, RatingsStore store, UserTokens tokens,
      CompletionRuns runs) {
    this.config = config;
    this.store = store;
    this.tokens = tokens;
    this.runs = runs;
  }

  /**
   * Opens the ratings store in the state directory (RocksDB, also the loop's checkpoint: offsets
   * in the same batch) and restores the runs' bookkeeping and latest model.
   */
  public static CompletionMode open(ServiceConfig config, ModeContext context) throws IOException {
    SecretKey key = SecretKey.loadOrCreate(config.key());
    return open(config, CompletionFit.create(config, key), key, context.metrics(), context.log());
  }

  /** As above, with the fits made by {@code fitter}. */
  static CompletionMode open(ServiceConfig config, CompletionRuns.Fitter fitter, SecretKey key,
      Metrics metrics, PrintStream log) throws IOException {
    RatingsStore store = RatingsStore.open(config.stateDir(), config.completion().maxRatings());
    try {
      CompletionRuns runs = new CompletionRuns(store, fitter,
          new CompletionBudget(config.epsilon(), config.delta(), config.completion().runs()),
          config.completion().everyEpochs(), metrics, log);
      return new CompletionMode(config, store, new UserTokens(key), runs);
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
  }

  RatingsStore store() {
    return store;
  }

  // ---- ServiceMode ------------------------------------------------------------------------------

  @Override
  public IngestConfig ingestConfig() {
    return IngestSettings.of(config, new ContributionBounds.Config(config.completion().users(), config.completion().items(),
        config.clip(), ContributionBounds.Unit.USER_RATING,
        ContributionBounds.BudgetPolicy.CLIP));
  }

  @Override
  public Checkpoint checkpoint() {
    return store;
  }

  @Override
  public IngestTarget target() {
    return store.target();
  }

  /**
   * The ratings decoder on the declared scale: a record with a rating outside [rating-min,
   * rating-max] is dead-lettered whole ({@code RATING_OUT_OF_RANGE}), never clamped — a rating
   * off the scale is a producer's bug.
   */
  @Override
  public RecordDecoder decoder(ContributionBounds bounds) {
    return RecordDecoder.ratings(bounds, config.completion().ratingMin(),
        config.completion().ratingMax(), store.sink());
  }

  /** The ingest loop closed and committed {@code epoch}: the schedule may start a fit. */
  @Override
  public void epochClosed(int epoch) {
    runs.epochClosed(epoch);
  }

  @Override
  public void restored(int epochsClosed, java.time.Instant lastClosed) {
    // The runs' bookkeeping and latest model were restored when the store opened.
  }

  @Override
  public ReleaseCache releases() {
    return noReleases;
  }

  @Override
  public ModeRoutes routes() {
    return ModeRoutes.completion(this);
  }

  /**
   * Fits, not epochs: epochs only cut checkpoints and the schedule here, and what the budget
   * counts is fits started of R. Read from one {@link CompletionRuns#publicState}, so the page
   * and the {@code completion} object agree. No clip (refused in this mode: the rating scale
   * bounds a rating) and no rank (the model's is not a setting).
   */
  @Override
  public Status status() {
    CompletionRuns.Public p = runs.publicState();
    CompletionSettings s = config.completion();
    Status.Fits fits = new Status.Fits(p.started, s.runs(), p.running,
        p.latest.map(f -> OptionalInt.of(f.run())).orElse(OptionalInt.empty()),
        p.latest.map(CompletionRuns.Finished::at).orElse(null),
        runs.budget().epsilonPerRun(), s.users(), s.items(), released(config),
        statusFields(p));
    return new Status(config.epsilon(), config.delta(), mechanism(config),
        NeighbouringRelation.ONE_USER.cliName(), neighbouring(config), "user", p.exhausted(),
        message(p), fits);
  }

  /** What a fit releases, in words (the status page's subtitle). */
  static String released(ServiceConfig config) {
    return "private matrix completion, joint DP ("
        + (config.completion().model() == CompletionSettings.Model.BIASED
            ? "biased model: global offset, item biases, private Frank–Wolfe on the residuals"
            : "private Frank–Wolfe") + "), ratings in [" + config.completion().ratingMin() + ", "
        + config.completion().ratingMax() + "]";
  }

  @Override
  public void publish(Metrics metrics, IngestStats now, IngestStats last) {
    metrics.ratings(now.updatesApplied() - last.updatesApplied(),
        now.updatesDropped() - last.updatesDropped());
    metrics.ratingsStored(store.ratingsStored(), store.users());
    metrics.releaseExhausted(exhausted());
  }

  @Override
  public String banner(String bootstrap, int httpPort, int operatorPort) {
    return banner(config, bootstrap, httpPort, operatorPort);
  }

  /** True once the R fits have started. */
  boolean exhausted() {
    return runs.started() >= config.completion().runs();
  }

  // ---- CompletionEndpoints --------------------------------------------------------------------

  @Override
  public Optional<Map<String, Object>> model() {
    return runs.latest().map(f -> {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("run", f.run());
      m.put("finished", f.at().toString());
      m.put("users", config.completion().users());
      m.put("items", config.completion().items());
      m.putAll(f.model().publicJson());
      return m;
    });
  }

  @Override
  public Map<String, Object> statusFields() {
    return statusFields(runs.publicState());
  }

  private Map<String, Object> statusFields(CompletionRuns.Public p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("model", config.completion().model().name().toLowerCase(Locale.ROOT));
    m.put("maxRatings", config.completion().maxRatings());
    m.put("ratingMin", config.completion().ratingMin());
    m.put("ratingMax", config.completion().ratingMax());
    m.putAll(p.json());
    return m;
  }

  @Override
  public Map<String, Object> operatorStatus() {
    return runs.progress();
  }

  @Override
  public int users() {
    return config.completion().users();
  }

  @Override
  public int items() {
    return config.completion().items();
  }

  @Override
  public boolean tokenValid(int user, String token) {
    return tokens.valid(user, token);
  }

  @Override
  public String issueToken(int user) {
    return tokens.issue(user);
  }

  @Override
  public Map<String, Object> run() {
    return runs.start("operator request");
  }

  /**
   * The local component: scores from the user's own committed ratings and the latest public
   * model; the top n items she has not rated, best first (ties: lower item id first).
   */
  @Override
  public Map<String, Object> predictions(int user, int n) throws IOException {
    CompletionRuns.Finished f = runs.latest().orElseThrow(
        () -> new Refused(404, "no completion model yet: no run has finished"));
    RatingsStore.UserRatings own = store.ratings(user);
    double[] scores = f.model().scores(own);
    boolean[] rated = new boolean[scores.length];
    for (int item : own.items()) {
      rated[item] = true;
    }
    List<Integer> candidates = new ArrayList<>();
    for (int j = 0; j < scores.length; j++) {
      if (!rated[j]) {
        candidates.add(j);
      }
    }
    candidates.sort((a, b) -> {
      int c = Double.compare(scores[b], scores[a]);
      return c != 0 ? c : Integer.compare(a, b);
    });
    List<Map<String, Object>> top = new ArrayList<>();
    for (int k = 0; k < Math.min(n, candidates.size()); k++) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("item", candidates.get(k));
      e.put("score", scores[candidates.get(k)]);
      top.add(e);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("user", user);
    out.put("run", f.run());
    out.put("rated", own.size());
    out.put("predictions", top);
    return out;
  }

  // ---- operator view and words ----------------------------------------------------------------

  /** Fields of /admin/ingest (exact, not private). */
  @Override
  public void ingestStats(Map<String, Object> m, IngestStats s) {
    m.put("mode", "completion");
    m.put("ratingsConsumed", s.updatesConsumed());
    m.put("ratingsApplied", s.updatesApplied());
    m.put("ratingsDropped", s.updatesDropped());
    m.put("ratingsStored", store.ratingsStored());
    m.put("users", store.users());
    m.put("completionRunsStarted", runs.started());
  }

  @Override
  public long sizeInBytes() {
    try {
      return store.sizeInBytes();
    } catch (IOException e) {
      return -1;
    }
  }

  /** The mechanism's name in /v1/status: the configured model's, as release documents name it. */
  static String mechanism(ServiceConfig config) {
    return config.completion().model() == CompletionSettings.Model.BIASED
        ? BiasedCompletion.MECHANISM : Mechanism.PRIVATE_FRANK_WOLFE.cliName();
  }

  static String neighbouring(ServiceConfig config) {
    CompletionSettings s = config.completion();
    return "streams differing in all rating records of one user (i = the user), each rating in ["
        + s.ratingMin() + ", " + s.ratingMax() + "], at most " + s.maxRatings() + " items per"
        + " user (latest rating wins)"
        + (s.model() == CompletionSettings.Model.BIASED
            ? "; joint DP: the global offset, item biases, lambda_u and residual factors are"
                + " public, each user's own bias and predictions are served to that user only"
            : ", rows clipped to ||P_Omega(Y_i)||_2 <= L at fit time; joint DP: item factors and"
                + " diagnostics are public, each user's predictions are served to that user only")
        // A fit reads the ratings committed at the last epoch close: where that cut falls is
        // public (docs/privacy/continual-release.md §7), so it must not depend on the values.
        + (config.epochUpdates().isPresent()
            ? "; epochs are cut by record count: the number, lengths, order and arrival times of a"
                + " user's records are public, their values protected"
            : "; epochs are cut by the clock: arrival times are public");
  }

  private String message(CompletionRuns.Public p) {
    return p.exhausted() ? "all " + config.completion().runs() + " fits have run: the privacy"
        + " budget is spent; the last model stays available"
        : p.latest.isEmpty() ? (p.running ? "fit " + p.started + " is running; its model"
            + " appears at /v1/completion when it finishes"
            : "no fit yet: POST /admin/completion/run on the operator port"
                + (config.completion().everyEpochs() > 0 ? " or wait for the schedule" : ""))
        : "serving the model of fit " + p.latest.get().run();
  }

  static String banner(ServiceConfig config, String bootstrap, int httpPort, int operatorPort) {
    CompletionSettings s = config.completion();
    return String.format(Locale.ROOT, """
        dplrf serving private matrix completion (%s, joint DP) of %d users x %d items, ratings \
        in [%s, %s], at most %d ratings per user; (%s, %s)-DP over at most %d fits
          push ratings:   Kafka %s, topic %s (records of 16-byte big-endian ratings: int32 user, int32 item, \
        float64 rating)
                          e.g. ./dplrf produce --input ratings.csv --topic %s --bootstrap-servers %s
          pull releases:  http://%s:%d/v1/completion   (status: /v1/status; a user's own \
        predictions: /v1/users/{id}/predictions with her token)
          operator:       http://%s:%d/metrics, /admin/ingest, POST /admin/completion/run, \
        POST /admin/users/{id}/token%s
          state:          %s""", s.model() == CompletionSettings.Model.BIASED
            ? "biased model: global offset, item and user biases, private Frank-Wolfe on the"
                + " residuals" : "private Frank-Wolfe",
        s.users(), s.items(), s.ratingMin(), s.ratingMax(), s.maxRatings(), config.epsilon(),
        config.delta(), s.runs(), bootstrap,
        config.topic(), config.topic(), bootstrap, config.bind(), httpPort, config.operatorBind(),
        operatorPort, config.adminToken().isPresent() ? " (token required)" : "",
        config.stateDir());
  }

  /** Stops the fits, then closes the database (not while a fit could still read it). */
  @Override
  public void close() {
    if (runs.awaitClosed()) {
      store.close();
    }
  }
}
