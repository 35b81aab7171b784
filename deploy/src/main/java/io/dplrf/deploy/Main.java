package io.dplrf.deploy;

/** Placeholder entry point of {@code ./dplrf}; replaced by the real command line. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.err.println("usage: dplrf factorize|serve|produce|demo [options] (not implemented yet)");
    System.exit(args.length == 0 || args[0].equals("--help") ? 0 : 2);
  }
}
