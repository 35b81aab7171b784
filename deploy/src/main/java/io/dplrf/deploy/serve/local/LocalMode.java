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
import io.dplrf.sketch.params.NeighbouringRelation;
import java.io.IOException;
import java.util.Map;

/**
 * Mode {@code local} (docs/local-service.md): clients randomize their own rows under the published
 * protocol ({@code GET /v1/local/protocol}) and push reports; the service sums them exactly
 * ({@link LocalAggregate}) and releases the rank-k basis after every epoch.
 *
 * <p><b>No budget is spent by the server.</b> Each report is private for its user's row by itself;
 * the sums and every release are post-processing. T (epochs) only bounds how many releases are
 * made.
 */
public final class LocalMode implements ServiceMode {
  private final ServiceConfig config;
  private final StateStore store;
  private final LocalAggregate aggregate;
  private final EpochReleases releases;

  private LocalMode(ServiceConfig config, StateStore store, LocalAggregate aggregate,
      ModeContext context) {
    this.config = config;
    this.store = store;
    this.aggregate = aggregate;
    this.releases = new EpochReleases(new ReleaseCache(), config.local().epochs(),
        (epoch, at) -> aggregate.release(epoch, config.local().rank(), at), context,
        "no further releases (T bounds releases only in local mode; no budget was spent by the"
            + " server)");
  }

  /** The aggregate of the configured {@code local-mechanism}, restored if the state holds one. */
  public static LocalMode open(ServiceConfig config, ModeContext context) throws IOException {
    // No secret key, no tree, no server noise: each report is private by itself.
    return new LocalMode(config, new StateStore(config.stateDir()),
        LocalPcaParts.aggregate(config), context);
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
    return aggregate;
  }

  @Override
  public RecordDecoder decoder(ContributionBounds bounds) {
    return aggregate.decoder();
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
    return ModeRoutes.localProtocol(aggregate.protocolJson(config.topic()));
  }

  @Override
  public Status status() {
    int released = releases.released();
    return new Status(released, config.local().epochs(), config.epsilon(), config.delta(),
        config.local().mechanism().cliName(), NeighbouringRelation.LOCAL.cliName(),
        aggregate.neighbouring(), config.clip(), "report", released >= config.local().epochs(),
        LocalPcaParts.message(released, config.local().epochs()), releases.lastRelease(), config.local().rows(),
        config.local().cols(), config.local().rank());
  }

  @Override
  public void ingestStats(Map<String, Object> m, IngestStats s) {
    // Local mode counts each valid report as one update (IngestStats): name them reports here.
    m.put("mode", "local");
    m.put("reportsApplied", s.updatesApplied());
    m.put("protocolId", aggregate.protocolId());
    aggregate.ingestStats(m);
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
    return aggregate.sizeInBytes();
  }

  @Override
  public String banner(String bootstrap, int httpPort, int operatorPort) {
    return aggregate.banner(config, bootstrap, httpPort, operatorPort);
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
