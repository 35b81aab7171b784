package io.dplrf.deploy.serve.local;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.http.ModeRoutes;
import io.dplrf.deploy.http.ReleaseCache;
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
import io.dplrf.sketch.files.StateFiles;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.randomness.PublicSeed;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

/**
 * Mode {@code local} (docs/local-service.md): clients randomize their own rows under the published
 * protocol ({@code GET /v1/local/protocol}) and push reports; the service sums them exactly
 * ({@link LocalTarget}) and releases the rank-k basis after every epoch. The protocol is the
 * setting {@code local-mechanism}'s ({@link ServedProtocol}: local-DP PCA or LOCAL-ROBUST-PCA);
 * this class and the target are the same for both.
 *
 * <p><b>No budget is spent by the server.</b> Each report is private for its user's row by itself;
 * the sums and every release are post-processing. T (epochs) only bounds how many releases are
 * made.
 */
public final class LocalMode implements ServiceMode {
  /** The public seed's file in the state directory: 64 hex digits and a newline. */
  static final String SEED_FILE = "public-seed";

  private final ServiceConfig config;
  private final StateStore store;
  private final LocalTarget target;
  private final EpochReleases releases;

  private LocalMode(ServiceConfig config, StateStore store, LocalTarget target,
      ModeContext context) {
    this.config = config;
    this.store = store;
    this.target = target;
    this.releases = new EpochReleases(new ReleaseCache(), config.local().epochs(),
        (epoch, at) -> target.release(epoch, config.local().rank(), at), context,
        "no further releases (T bounds releases only in local mode; no budget was spent by the"
            + " server)");
  }

  /** The target of the configured {@code local-mechanism}, restored if the state holds one. */
  public static LocalMode open(ServiceConfig config, ModeContext context) throws IOException {
    // No secret key, no tree, no server noise: each report is private by itself.
    PublicSeed seed = seed(config.stateDir(), config.local().seed().orElse(null));
    return new LocalMode(config, new StateStore(config.stateDir()),
        new LocalTarget(ServedProtocol.of(seed, config), config.local().epochs()), context);
  }

  /**
   * The public seed: the one in {@code stateDir/public-seed} if there is one (it must equal
   * {@code configured} when that is set: the reports summed so far were made with it), else
   * {@code configured}, else a fresh one from SecureRandom ({@link PublicSeed#random}); a new
   * seed is written (atomically) before anything is consumed, so a restart keeps it.
   */
  static PublicSeed seed(Path stateDir, PublicSeed configured) throws IOException {
    Path file = stateDir.resolve(SEED_FILE);
    if (Files.exists(file)) {
      PublicSeed stored;
      try {
        stored = PublicSeed.parse(Files.readString(file, StandardCharsets.US_ASCII).strip());
      } catch (IllegalArgumentException e) {
        throw new IOException(file + " does not hold a public seed: " + e.getMessage(), e);
      }
      if (configured != null && !configured.equals(stored)) {
        throw new IOException("setting seed (" + configured + ") differs from the seed of this "
            + "state directory (" + file + ": " + stored + "), with which its reports were made; "
            + "unset seed, or use a new state directory for a new protocol");
      }
      return stored;
    }
    PublicSeed seed = configured != null ? configured : PublicSeed.random();
    StateFiles.createDirectories(stateDir);
    Path temp = stateDir.resolve(SEED_FILE + ".tmp");
    Files.deleteIfExists(temp);
    try (FileChannel ch = StateFiles.createForWriting(temp)) {
      OutputStream out = Channels.newOutputStream(ch);
      out.write((seed + "\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      ch.force(true);
    }
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
    StateFiles.fsyncDirectory(stateDir);
    return seed;
  }

  /** The status message: T bounds releases, not privacy. */
  static String message(int released, int epochs) {
    String t = "T = " + epochs + " bounds the number of releases only: it is not a privacy"
        + " parameter in local mode (the server spends no budget; each report is private by"
        + " itself)";
    return released >= epochs ? "epoch T reached: no further releases; " + t
        : released == 0 ? "waiting for the first epoch to close; " + t
        : "releasing after every epoch; " + t;
  }

  @Override
  public IngestConfig ingestConfig() {
    return IngestSettings.of(config, new ContributionBounds.Config(config.local().rows(), config.local().cols(),
        config.clip(), ContributionBounds.Unit.LOCAL_REPORT,
        ContributionBounds.BudgetPolicy.CLIP));
  }

  @Override
  public Checkpoint checkpoint() {
    return store;
  }

  @Override
  public IngestTarget target() {
    return target;
  }

  @Override
  public RecordDecoder decoder(ContributionBounds bounds) {
    return target.decoder();
  }

  @Override
  public void epochClosed(int epoch) {
    releases.releaseLater(epoch);
  }

  @Override
  public void restored(int epochsClosed, java.time.Instant lastClosed) {
    if (epochsClosed > 0) {
      releases.release(epochsClosed, lastClosed);
    }
  }

  @Override
  public ReleaseCache releases() {
    return releases.cache();
  }

  @Override
  public ModeRoutes routes() {
    return ModeRoutes.localProtocol(target.served().protocolJson(config.topic()));
  }

  /**
   * (ε, δ) per report, not over the epochs; the release is d × d (U = V, d × k), so rows and
   * cols are both d (local-robust's m user slots are in {@code /v1/local/protocol}).
   */
  @Override
  public Status status() {
    int released = releases.released();
    int d = config.local().cols();
    return new Status(config.epsilon(), config.delta(), config.local().mechanism().cliName(),
        NeighbouringRelation.LOCAL.cliName(), target.served().neighbouring(), "report",
        released >= config.local().epochs(), message(released, config.local().epochs()),
        new Status.Epochs(released, config.local().epochs(), releases.lastRelease(), null,
            config.clip(), d, d, config.local().rank(), Status.Guarantee.PER_REPORT,
            target.served().released()));
  }

  @Override
  public void ingestStats(Map<String, Object> m, IngestStats s) {
    // Local mode counts each valid report as one update (IngestStats): name them reports here.
    m.put("mode", "local");
    m.put("reportsApplied", s.updatesApplied());
    m.put("protocolId", target.protocol().id());
    m.put("mechanism", target.protocol().mechanism());
    if (target.protocol().hasSlots()) {
      m.put("slots", target.protocol().slots()); // m, public; reportsApplied = slots counted
    }
  }

  @Override
  public void publish(Metrics metrics, IngestStats now, IngestStats last) {
    metrics.reportsApplied(now.updatesApplied() - last.updatesApplied());
    int released = releases.released();
    metrics.epochCurrent(released);
    metrics.epochsLeft(config.local().epochs() - released);
    metrics.releaseExhausted(released >= config.local().epochs());
  }

  @Override
  public long sizeInBytes() {
    return target.sizeInBytes();
  }

  @Override
  public String banner(String bootstrap, int httpPort, int operatorPort) {
    return target.served().banner(config, bootstrap, httpPort, operatorPort);
  }

  @Override
  public void awaitReleases() throws InterruptedException {
    releases.awaitQueued();
  }

  @Override
  public void close() {
    releases.close();
  }
}
