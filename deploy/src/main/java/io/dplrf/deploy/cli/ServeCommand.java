package io.dplrf.deploy.cli;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.serve.Service;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;

/**
 * {@code dplrf serve [--config FILE] [--name value ...]}: runs the service until SIGINT/SIGTERM.
 * After epoch T it keeps serving the last release and says so.
 */
final class ServeCommand {
  static final String USAGE = """
      usage: dplrf serve [--config FILE] [--name value ...]
        Every setting can be a flag --name value, an environment variable DPLRF_NAME, or a line
        'name = value' of the config file; a flag wins over the environment, which wins over the file.
        Required: rows, cols, rank, epsilon, delta, epochs, and one of epoch-updates / epoch-seconds.
        See README.md (Configuration) for every setting.
      """;

  private ServeCommand() {}

  static int run(String[] argv, PrintStream out) throws Exception {
    ServiceConfig config = ServiceConfig.load(argv, 1, System.getenv());
    out.println(config.describe());
    Service service = Service.start(config, out);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      out.println("dplrf: shutting down (writing a final snapshot)");
      service.close();
      stopped.countDown();
    }, "dplrf-shutdown"));
    stopped.await();
    return 0;
  }
}
