package io.dplrf.deploy.cli;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.serve.Service;
import java.io.IOException;
import java.io.PrintStream;

/**
 * {@code dplrf serve [--config FILE] [--name value ...]}: runs the service until SIGINT/SIGTERM
 * (exit 0) or a fatal ingest failure (exit 1). After epoch T it keeps serving the last release and
 * says so.
 */
final class ServeCommand {
  static final String USAGE = """
      usage: dplrf serve [--config FILE] [--name value ...]
        Every setting can be a flag --name value, an environment variable DPLRF_NAME, or a line
        'name = value' of the config file; a flag wins over the environment, which wins over the file.
        Required: rows, cols, rank, epsilon, delta, epochs, and one of epoch-updates / epoch-seconds.
        The settings (docs/user-guide.md, Configuration, says more):
      """;

  private ServeCommand() {}

  /**
   * Runs until SIGINT/SIGTERM (then returns 0 from the shutdown hook's close) or until ingest
   * fails: then the service is stopped and this throws, so the process exits 1 and a supervisor
   * (container restart policy, systemd) restarts it from the last snapshot. A process that keeps
   * answering /health after its ingest died would never release again and nobody would notice.
   */
  static int run(String[] argv, PrintStream out) throws Exception {
    ServiceConfig config = ServiceConfig.load(argv, 1, System.getenv());
    out.println(config.describe());
    Service service = Service.start(config, out);
    Thread hook = new Thread(() -> {
      out.println("dplrf: shutting down (writing a final snapshot)");
      service.close();
    }, "dplrf-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    Throwable failure = service.awaitIngestFailure();
    if (failure == null) {
      return 0; // closed by the shutdown hook; the JVM is exiting
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // already shutting down: the hook closes the service
    }
    service.close();
    String reason = failure.getMessage() == null ? failure.getClass().getSimpleName()
        : failure.getMessage();
    throw new IOException("ingest failed, stopping (state and offsets stay at the last snapshot;"
        + " a restart resumes from it): " + reason, failure);
  }
}
