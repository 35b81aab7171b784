package io.dplrf.deploy.serve;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.config.TreeSettings;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.deploy.serve.completion.CompletionMode;
import io.dplrf.deploy.serve.local.LocalMode;
import io.dplrf.deploy.serve.tree.TreeMode;
import io.dplrf.ingest.DeadLetterReason;
import io.dplrf.sketch.files.StateFiles;
import java.io.IOException;
import java.util.Set;

/** The one place that builds the service's mode from its configuration ({@link ServiceMode}). */
public final class Modes {
  private Modes() {}

  /** The service's metrics: the meters every mode updates and those of {@code config}'s mode. */
  public static Metrics metrics(ServiceConfig config) {
    return new Metrics(meters(config.mode()), deadLetterReasons(config));
  }

  /**
   * The dead-letter reasons the mode's record format can give: the ones its metrics export and
   * {@code /admin/ingest} lists (docs/operations.md, metrics), so that none stays at 0 for ever.
   */
  public static Set<DeadLetterReason> deadLetterReasons(ServiceConfig config) {
    return switch (config.mode()) {
      case UPDATES -> DeadLetterReason.ofUpdates(
          config.tree().privacyUnit() == TreeSettings.PrivacyUnit.KEY);
      case ROWS -> DeadLetterReason.ofRows();
      case LOCAL -> DeadLetterReason.ofLocalReports(config.local().robust());
      case COMPLETION -> DeadLetterReason.ofRatings();
    };
  }

  /** The meter groups {@code mode} updates; no other mode's meters are registered. */
  public static Set<Metrics.Group> meters(ServiceConfig.Mode mode) {
    return switch (mode) {
      case UPDATES -> Set.of(Metrics.Group.EPOCH_RELEASES, Metrics.Group.UPDATES);
      case ROWS -> Set.of(Metrics.Group.EPOCH_RELEASES, Metrics.Group.ROWS);
      case LOCAL -> Set.of(Metrics.Group.EPOCH_RELEASES, Metrics.Group.LOCAL_REPORTS);
      case COMPLETION -> Set.of(Metrics.Group.COMPLETION);
    };
  }

  /**
   * Checks what the mode refuses before anything exists (a refused configuration leaves no
   * trace), creates the state directory, then opens the mode's state in it.
   */
  public static ServiceMode open(ServiceConfig config, ModeContext context) throws IOException {
    switch (config.mode()) {
      case UPDATES, ROWS -> TreeMode.check(config);
      default -> { }
    }
    // rwx------ when created here: the directory holds the raw state (snapshot, node files or
    // the ratings database, the embedded broker's records, by default the key).
    StateFiles.createDirectories(config.stateDir());
    return switch (config.mode()) {
      case UPDATES, ROWS -> TreeMode.open(config, context);
      case LOCAL -> LocalMode.open(config, context);
      case COMPLETION -> CompletionMode.open(config, context);
    };
  }
}
