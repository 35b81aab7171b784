package io.dplrf.deploy;

import io.dplrf.deploy.cli.Cli;

/** Entry point of the runnable jar; see {@link Cli}. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(Cli.run(args, System.out, System.err));
  }
}
