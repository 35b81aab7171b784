package io.dplrf.deploy.serve;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.serve.completion.CompletionMode;
import io.dplrf.deploy.serve.local.LocalMode;
import io.dplrf.deploy.serve.tree.TreeMode;
import io.dplrf.sketch.files.StateFiles;
import java.io.IOException;

/** The one place that builds the service's mode from its configuration ({@link ServiceMode}). */
public final class Modes {
  private Modes() {}

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
