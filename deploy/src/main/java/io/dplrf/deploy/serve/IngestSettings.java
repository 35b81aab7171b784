package io.dplrf.deploy.serve;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.ingest.ContributionBounds;
import io.dplrf.ingest.IngestConfig;

/** The ingest loop's settings every mode shares: topics and the epoch cut. */
public final class IngestSettings {
  private IngestSettings() {}

  /** The loop's settings for {@code bounds}; the epoch length goes through exactly. */
  public static IngestConfig of(ServiceConfig config, ContributionBounds.Config bounds) {
    return (config.epochUpdates().isPresent()
        ? IngestConfig.byUpdates(config.topic(), bounds, config.epochUpdates().getAsLong())
            .withIdleClose(config.epochIdle())
        : IngestConfig.byTime(config.topic(), bounds, config.epochDuration().orElseThrow()))
        .withDeadLetterTopic(config.deadLetterTopic());
  }
}
