package io.dplrf.deploy.serve.tree;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.config.TreeSettings;
import io.dplrf.deploy.http.Health;
import io.dplrf.deploy.http.ModeRoutes;
import io.dplrf.deploy.http.ReleaseCache;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.deploy.http.Status;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.deploy.serve.EpochReleases;
import io.dplrf.deploy.serve.IngestSettings;
import io.dplrf.deploy.serve.ModeContext;
import io.dplrf.deploy.serve.ServiceMode;
import io.dplrf.ingest.Checkpoint;
import io.dplrf.ingest.ContributionBounds;
import io.dplrf.ingest.IngestConfig;
import io.dplrf.ingest.IngestStats;
import io.dplrf.ingest.IngestTarget;
import io.dplrf.ingest.RecordDecoder;
import io.dplrf.ingest.StateStore;
import io.dplrf.release.ReportedFactorization;
import io.dplrf.sketch.lra.RobustPlan;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.continual.BltConfig;
import io.dplrf.sketch.factorization.BltOptimizer;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.tree.TreeConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Modes {@code updates} and {@code rows}: continual release of noisy sketches ({@link
 * TreeTarget}) through the BLT factorization or the binary tree (setting {@code continual}), a
 * release after every epoch, and range releases on demand.
 *
 * <ul>
 *   <li>{@code updates}: turnstile updates of an m×n matrix A; the privacy unit is one update, or
 *       a record key's or a row's updates (bounded in ℓ1: docs/privacy/l1-units.md).
 *   <li>{@code rows}: row records, each clipped to ‖x‖₂ ≤ C; the tree sketches the d×d matrix
 *       AᵀA, to which a row adds x xᵀ with ‖x xᵀ‖_F ≤ C² (the ata-sketch, docs/rows.md).
 * </ul>
 */
public final class TreeMode implements ServiceMode {
  private final ServiceConfig config;
  private final boolean rows;
  private final StateStore store;
  private final TreeTarget tree;
  private final EpochReleases releases;
  private final ContributionBounds.Config bounds;
  private final PrintStream log;
  /** Whether this process has said in the log that updates (rows) are being clipped. */
  private boolean clipWarned;

  private TreeMode(ServiceConfig config, StateStore store, TreeTarget tree, ModeContext context) {
    this.config = config;
    this.log = context.log();
    this.rows = config.tree().rowRecords();
    this.store = store;
    this.tree = tree;
    this.bounds = bounds(config);
    Map<String, Object> metadata = releaseMetadata(config);
    tree.describeReleases(metadata);
    this.releases = new EpochReleases(new ReleaseCache(tree::rangeRelease), config.tree().epochs(),
        (epoch, at) -> {
          ReportedFactorization r = tree.prefix(epoch, config.tree().rank());
          return new ServedRelease(1, epoch, r.factorization(), r.report(), at, metadata);
        }, context, "the privacy budget is spent; the last release stays available, no new ones");
  }

  /**
   * What this mode refuses before anything is created: priv1 with a key or row unit (its tree
   * analysis needs the same rank-one difference in every node: one update).
   */
  public static void check(ServiceConfig config) {
    if (!config.tree().rowRecords() && config.tree().mechanism() == Mechanism.PRIV1
        && config.tree().privacyUnit() != TreeSettings.PrivacyUnit.UPDATE) {
      throw new IllegalArgumentException("mechanism priv1 protects one update only (its privacy"
          + " argument needs the same rank-one difference in every tree node); use mechanism"
          + " priv2-sparse (the default) with privacy-unit "
          + config.tree().privacyUnit().name().toLowerCase(Locale.ROOT));
    }
  }

  /** The tree, keyed by the secret key, restored from the state directory if it holds one. */
  public static TreeMode open(ServiceConfig config, ModeContext context) throws IOException {
    StateStore store = new StateStore(config.stateDir());
    SecretKey key = SecretKey.loadOrCreate(config.key());
    TreeTarget target;
    if (config.tree().continual() == TreeSettings.Continual.FACTORIZATION) {
      BltConfig blt = bltConfig(config);
      int buffers = BltOptimizer.optimize(blt.epochs()).buffers(); // public: T alone
      HeapAdvice.bltRefusal(blt, buffers, Runtime.getRuntime().maxMemory(),
          HeapAdvice.machineMemory()).ifPresent(why -> {
        throw new IllegalArgumentException(why);
      });
      target = TreeTarget.factorization(blt, key, config.stateDir().resolve("blt"), store.exists());
    } else {
      TreeConfig tree = treeConfig(config);
      target = TreeTarget.tree(tree, key, config.stateDir().resolve("nodes"), store.exists());
      HeapAdvice.nodesInMemory(tree, Runtime.getRuntime().maxMemory())
          .ifPresent(target::keepInMemoryAtMost);
    }
    return new TreeMode(config, store, target, context);
  }

  /**
   * The tree's parameters from the settings: sketch sizes, relation, budget, clip, T. One place,
   * shared with {@code dplrf plan}, which calibrates the same stream before any data.
   */
  public static TreeConfig treeConfig(ServiceConfig config) {
    Mechanism mechanism = config.tree().mechanism();
    SketchSizes sizes = mechanism.robust()
        ? RobustPlan.defaultSizes(config.tree().rows(), config.tree().cols(), config.tree().rank(),
            boxed(config.tree().sketchCols()), boxed(config.tree().sketchRows()))
        : SketchSizes.of(config.tree().rows(), config.tree().cols(), config.tree().rank(),
            boxed(config.tree().sketchCols()), boxed(config.tree().sketchRows()), config.tree().alpha());
    // Rows mode: the tree sketches the d×d matrix AᵀA, to which one row adds x xᵀ with
    // ‖x xᵀ‖_F = ‖x‖₂² ≤ C²; the Priv2 plan is private for every difference of Frobenius norm
    // ≤ its clip (AtaSketch, docs/rows.md), so the tree is calibrated with clip C².
    boolean rows = config.tree().rowRecords();
    double treeClip = rows ? config.clip() * config.clip() : config.clip();
    return new TreeConfig(mechanism, relation(config), sizes,
        new PrivacyParams(config.epsilon(), config.delta()), treeClip, config.tree().epochs(), true,
        config.tree().p());
  }

  /**
   * The BLT stream's parameters ({@code continual = factorization}): the sizes, relation, budget,
   * clip and T of {@link #treeConfig}. Shared with {@code dplrf plan}.
   */
  public static BltConfig bltConfig(ServiceConfig config) {
    TreeConfig t = treeConfig(config);
    return new BltConfig(t.mechanism(), t.relation(), t.sizes(), t.privacy(), t.clip(),
        t.epochs(), true);
  }

  /**
   * The privacy unit and its bounds: one row record clipped to C in rows mode, else the unit,
   * clamp and budget of {@code privacy-unit}, {@code clip} and {@code budget-policy}.
   */
  static ContributionBounds.Config bounds(ServiceConfig config) {
    return new ContributionBounds.Config(config.tree().rows(), config.tree().cols(), config.clip(),
        config.tree().rowRecords() ? ContributionBounds.Unit.ROW_RECORD
            : ContributionBounds.Unit.valueOf(config.tree().privacyUnit().name()),
        ContributionBounds.BudgetPolicy.valueOf(config.tree().budgetPolicy().name()));
  }

  private static Integer boxed(OptionalInt o) {
    return o.isPresent() ? o.getAsInt() : null;
  }

  /**
   * The neighbouring relation the tree is calibrated for: rows mode's AᵀA changes by x xᵀ,
   * bounded in Frobenius norm; in mode updates every unit is bounded in ℓ1
   * (docs/privacy/l1-units.md): one update is one entry, a key's or a row's updates spread over
   * entries and epochs; priv1 covers one rank-one update.
   */
  public static NeighbouringRelation relation(ServiceConfig config) {
    if (config.tree().rowRecords()) {
      return NeighbouringRelation.FROBENIUS;
    }
    return switch (config.tree().mechanism()) {
      case PRIV1 -> NeighbouringRelation.RANK_ONE;
      case ROBUST_LRA, ROBUST_PCA -> NeighbouringRelation.ENTRYWISE_L1;
      case PRIV2, PRIV2_SPARSE -> config.tree().privacyUnit() == TreeSettings.PrivacyUnit.UPDATE
          ? NeighbouringRelation.ONE_ENTRY : NeighbouringRelation.ENTRYWISE_L1;
      default -> throw new IllegalStateException(config.tree().mechanism() + " does not stream");
    };
  }

  /** The mechanism as /v1/status names it: rows mode runs Priv2 on AᵀA, the ata-sketch. */
  static String mechanismName(ServiceConfig config) {
    return config.tree().rowRecords() ? Mechanism.ATA_SKETCH.cliName()
        : config.tree().mechanism().cliName();
  }

  /** "update", "key" or "row" in mode updates; "row" (one row record) in rows mode. */
  static String privacyUnit(ServiceConfig config) {
    return config.tree().rowRecords() ? "row"
        : config.tree().privacyUnit().name().toLowerCase(Locale.ROOT);
  }

  /**
   * The neighbouring relation on streams, in words (docs/privacy/README.md §1), including what the
   * epoch cut makes public (docs/privacy/continual-release.md §7, epoch-boundaries.md).
   */
  public static String neighbouring(ServiceConfig config) {
    String c = String.valueOf(config.clip());
    if (config.tree().rowRecords()) {
      return "streams differing in one row record x, clipped to ||x||_2 <= " + c + " (one row"
          + " added or removed: AᵀA changes by x xᵀ, ||x xᵀ||_F <= " + config.clip() * config.clip()
          + ")" + (config.epochUpdates().isPresent()
          ? "; with epochs cut by row count the other stream holds an all-zero row in its place"
              + " (which records arrive, their lengths, ids, order and times are public)"
          : "; the other stream holds an all-zero row in its place (epochs are cut by the clock at"
              + " the times records are read, from the run's first record: which records arrive,"
              + " their lengths, ids, order and read times are public)");
    }
    String unit = switch (config.tree().privacyUnit()) {
      case UPDATE -> "streams differing in one update (i, j, delta) with |delta| <= " + c;
      case KEY -> "streams differing in all updates carrying one record key, sum |delta| <= " + c;
      case ROW -> "streams differing in all updates to one row, sum |delta| <= " + c;
    };
    String relation = config.tree().mechanism().robust()
        ? "entrywise l1 (robust, p = " + config.tree().p() + ", pure epsilon-DP): "
        : relation(config) == NeighbouringRelation.ENTRYWISE_L1
        ? "entrywise l1 (the unit's updates may spread over entries and epochs): " : "";
    return relation + unit + (config.epochUpdates().isPresent()
        ? "; the other stream holds zero updates in their place (epochs are cut by update count:"
            + " which records arrive, their lengths, keys, order and times are public)"
        : "; the other stream holds zero updates in their place (epochs are cut by the clock at"
            + " the times records are read, from the run's first record: which records arrive,"
            + " their lengths, keys, order and read times are public)");
  }

  /**
   * What every release says about its guarantee (the "metadata" of the release document):
   * mechanism, relation, unit, budget.
   */
  public static Map<String, Object> releaseMetadata(ServiceConfig config) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("mechanism", mechanismName(config));
    m.put("continual", config.tree().continual().name().toLowerCase(Locale.ROOT));
    m.put("relation", relation(config).cliName());
    m.put("neighbouring", neighbouring(config));
    m.put("privacyUnit", privacyUnit(config));
    m.put("epsilon", config.epsilon());
    m.put("delta", config.delta());
    m.put("clip", config.clip());
    m.put("epochs", config.tree().epochs());
    return m;
  }

  @Override
  public IngestConfig ingestConfig() {
    return IngestSettings.of(config, bounds);
  }

  @Override
  public Checkpoint checkpoint() {
    return store;
  }

  @Override
  public IngestTarget target() {
    return tree;
  }

  @Override
  public RecordDecoder decoder(ContributionBounds b) {
    return rows ? RecordDecoder.rows(b.config(), tree::addRow)
        : RecordDecoder.updates(b, tree::update);
  }

  @Override
  public void epochClosed(int epoch) {
    tree.releasable(epoch);
    releases.releaseLater(epoch);
  }

  /**
   * The release of the last closed epoch is made again (it may have been lost between its
   * epoch's snapshot and a crash, and is never stored): the same nodes and noise, dated by the
   * epoch's close. The closed-node files the restore did not read are checked in the background.
   */
  @Override
  public void restored(int epochsClosed, Instant lastClosed) {
    tree.releasable(epochsClosed);
    tree.checkNodeFiles();
    if (epochsClosed > 0) {
      releases.release(epochsClosed, lastClosed);
    }
  }

  @Override
  public Health health() {
    return tree.health();
  }

  @Override
  public ReleaseCache releases() {
    return releases.cache();
  }

  @Override
  public ModeRoutes routes() {
    return ModeRoutes.none();
  }

  @Override
  public Status status() {
    int released = releases.released();
    boolean exhausted = released >= config.tree().epochs();
    String message = exhausted
        ? "epoch T = " + config.tree().epochs() + " reached: the privacy budget is spent, no further releases"
        : released == 0 ? "waiting for the first epoch to close"
        : "releasing after every epoch";
    return new Status(released, config.tree().epochs(), config.epsilon(), config.delta(),
        mechanismName(config), relation(config).cliName(), neighbouring(config), config.clip(),
        privacyUnit(config), exhausted, message, releases.lastRelease(), config.tree().rows(),
        config.tree().cols(), config.tree().rank());
  }

  @Override
  public void ingestStats(Map<String, Object> m, IngestStats s) {
    if (rows) {
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
  }

  @Override
  public void publish(Metrics metrics, IngestStats now, IngestStats last) {
    if (rows) {
      metrics.rowsApplied(now.updatesApplied() - last.updatesApplied());
      metrics.rowsClipped(now.updatesClipped() - last.updatesClipped());
    } else {
      metrics.updatesConsumed(now.updatesConsumed() - last.updatesConsumed());
      metrics.updatesApplied(now.updatesApplied() - last.updatesApplied());
      metrics.updatesClipped(now.updatesClipped() - last.updatesClipped());
      metrics.updatesDropped(now.updatesDropped() - last.updatesDropped());
    }
    if (!clipWarned && now.updatesClipped() > 0) {
      clipWarned = true;
      log.println(clipWarning(config, rows ? now.updatesApplied() : now.updatesConsumed(),
          now.updatesClipped()));
    }
    int released = releases.released();
    metrics.epochCurrent(released);
    metrics.epochsLeft(config.tree().epochs() - released);
    metrics.releaseExhausted(released >= config.tree().epochs());
    metrics.stateFiles(tree.damagedFiles(), tree.verifiedFiles());
  }

  /**
   * The log's one warning that the contribution bound {@code clip} changes the data, as {@code
   * dplrf factorize} warns on its terminal: {@code clipped} of {@code read} updates (rows) so far.
   * Exact counts, for the operator's log only (and {@code /admin/ingest}).
   */
  static String clipWarning(ServiceConfig config, long read, long clipped) {
    String how = config.tree().rowRecords()
        ? clipped + " of " + read + " rows read so far had a norm above clip " + config.clip()
            + " and were scaled down to it"
        : switch (config.tree().privacyUnit()) {
          case UPDATE -> clipped + " of " + read + " updates read so far had |delta| above clip "
              + config.clip() + " and were clamped to it";
          case KEY, ROW -> clipped + " of " + read + " updates read so far went beyond their "
              + config.tree().privacyUnit().name().toLowerCase(Locale.ROOT) + "'s budget clip "
              + config.clip() + " (sum of |delta| over the stream) and were clipped to what was left";
        };
    return "dplrf: WARNING: " + how + ": the releases are of the clipped data. Choose clip as the"
        + " largest change one " + (config.tree().rowRecords() ? "row"
            : config.tree().privacyUnit().name().toLowerCase(Locale.ROOT))
        + " may make (e.g. the top of a rating scale); clip is pinned with the run, so a new"
        + " value needs a new state directory. Said once; exact counts at /admin/ingest";
  }

  @Override
  public long sizeInBytes() {
    return tree.sizeInBytes();
  }

  @Override
  public String banner(String bootstrap, int httpPort, int operatorPort) {
    if (rows) {
      return String.format(Locale.ROOT, """
          dplrf serving rows of dimension d = %d (ata-sketch: rank-%d factorization of the d x d \
          matrix AᵀA), rows clipped to norm %s, (%s, %s)-DP over T = %d epochs
            push rows:      Kafka %s, topic %s (records: int64 row id, then (int32 j, float64 x) \
          pairs, big-endian)
                            e.g. ./dplrf produce --format rows --input FILE.csv --topic %s \
          --bootstrap-servers %s
            pull releases:  http://%s:%d/v1/release/latest   (status: /v1/status)
            operator:       http://%s:%d/metrics, /admin/ingest%s
            state:          %s""", config.tree().cols(), config.tree().rank(), config.clip(), config.epsilon(),
          config.delta(), config.tree().epochs(), bootstrap, config.topic(), config.topic(), bootstrap,
          config.bind(), httpPort, config.operatorBind(), operatorPort,
          config.adminToken().isPresent() ? " (token required)" : "", config.stateDir());
    }
    return String.format(Locale.ROOT, """
        dplrf serving a %dx%d matrix, rank %d, mechanism %s, continual %s, %s over T = %d epochs
          push updates:   Kafka %s, topic %s (records of 16-byte big-endian updates: int32 i, int32 j, float64 delta)
                          e.g. ./dplrf produce --input FILE --topic %s --bootstrap-servers %s
          pull releases:  http://%s:%d/v1/release/latest   (status: /v1/status)
          operator:       http://%s:%d/metrics, /admin/ingest%s
          state:          %s""",
        config.tree().rows(), config.tree().cols(), config.tree().rank(), config.tree().mechanism().cliName(),
        config.tree().continual().name().toLowerCase(Locale.ROOT),
        config.tree().mechanism().robust() // Laplace, docs/privacy/robust.md: delta is not used
            ? "pure " + config.epsilon() + "-DP (entrywise l1 neighbours)"
            : "(" + config.epsilon() + ", " + config.delta() + ")-DP",
        config.tree().epochs(), bootstrap, config.topic(), config.topic(), bootstrap, config.bind(),
        httpPort, config.operatorBind(), operatorPort,
        config.adminToken().isPresent() ? " (token required)" : "", config.stateDir());
  }

  @Override
  public List<String> notes() {
    long heap = Runtime.getRuntime().maxMemory();
    java.util.ArrayList<String> notes = new java.util.ArrayList<>();
    String dir;
    java.util.OptionalLong peak;
    java.util.OptionalLong disk;
    if (tree.stream() instanceof FactorizationStream f) {
      int buffers = f.stream().plan().parameters().buffers();
      dir = "blt/";
      peak = java.util.OptionalLong.of(HeapAdvice.peakBytes(f.stream().config(), buffers));
      disk = java.util.OptionalLong.of(HeapAdvice.diskBytes(f.stream().config(), buffers));
    } else if (tree.stream() instanceof TreeStream t) {
      // A BLT stream that does not fit is refused at start; a tree keeps fewer nodes in memory.
      notes.addAll(HeapAdvice.advice(t.config(), heap).stream().toList());
      dir = "nodes/";
      peak = HeapAdvice.peakBytes(t.config());
      disk = HeapAdvice.diskBytes(t.config());
    } else {
      return notes;
    }
    if (peak.isPresent()) {
      long free;
      try {
        free = java.nio.file.Files.getFileStore(config.stateDir()).getUsableSpace();
      } catch (IOException e) {
        free = Long.MAX_VALUE;
      }
      notes.add(HeapAdvice.footprint(peak.getAsLong(), heap, disk, free, dir));
    }
    return notes;
  }

  @Override
  public void awaitReleases() throws InterruptedException {
    releases.awaitQueued();
  }

  @Override
  public void close() {
    releases.close();
    tree.close();
  }
}
