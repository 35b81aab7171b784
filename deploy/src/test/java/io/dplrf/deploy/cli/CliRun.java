package io.dplrf.deploy.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * {@code dplrf ARGS} through {@link Cli#run}, as the jar's main runs it: the exit code, stdout,
 * the command's stderr, and what else reached {@link System#err} meanwhile (loggers write there),
 * so that a test can check that a mistake costs one line and no stack trace.
 */
record CliRun(int code, String out, String err, String log) {

  static CliRun of(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream systemErr = System.err;
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintStream l = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      System.setErr(l);
      try {
        code = Cli.run(args, o, e);
      } finally {
        System.setErr(systemErr);
      }
    }
    return new CliRun(code, out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8), log.toString(StandardCharsets.UTF_8));
  }

  /** The command's stderr as its lines. */
  String[] errLines() {
    return err.strip().isEmpty() ? new String[0] : err.strip().split("\n");
  }

  @Override
  public String toString() {
    return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err + "--- log\n" + log;
  }
}
