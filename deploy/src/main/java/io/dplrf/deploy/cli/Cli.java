package io.dplrf.deploy.cli;

import io.dplrf.deploy.config.SettingsHelp;
import io.dplrf.deploy.config.Spelling;
import io.dplrf.deploy.io.InputException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Dispatches {@code dplrf <command>}. Errors become one line on stderr: exit 2 for a usage or
 * parameter mistake, 1 for bad input or a failure while running. Never a stack trace for a
 * user's mistake.
 */
public final class Cli {
  static final String USAGE = """
      dplrf: differentially private low-rank factorization

      usage: dplrf <command> [options]
        demo        the service on an embedded Kafka with a synthetic stream; prints each release's error
        serve       the streaming service: Kafka in, a private release after every epoch, HTTP out
        produce     push a matrix file to the service's Kafka topic
        factorize   one-shot private factorization of a matrix file
        pca         one-shot row-level private PCA (one row per user) of a matrix file
        complete    private matrix completion (joint DP, Frank-Wolfe) of a ratings file, with test RMSE
        plan        before any data: the noise floor of the service's releases at its settings
        bench       benchmarks, each printing our figure beside a baseline of the same run: 'dplrf bench' lists them
        health      exit 0 when a running service answers on /health (for container health checks)
        help        this text

      'dplrf <command> --help' describes a command.
      """;

  /** The commands of {@link #USAGE}, for "did you mean". */
  private static final List<String> COMMANDS = List.of("demo", "serve", "produce", "factorize",
      "pca", "complete", "bench", "health", "help");

  private Cli() {}

  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h")) {
      out.print(USAGE);
      return args.length == 0 ? 2 : 0;
    }
    String command = args[0];
    boolean help = args.length > 1 && (args[1].equals("--help") || args[1].equals("-h"));
    return guarded(command, err, () -> switch (command) {
      case "factorize" -> help ? usage(FactorizeCommand.USAGE, out) : FactorizeCommand.run(args, out, err);
      case "pca" -> help ? usage(PcaCommand.USAGE, out) : PcaCommand.run(args, out, err);
      case "plan" -> help ? usage(PlanCommand.USAGE, out) : PlanCommand.run(args, out, err);
      case "complete" -> help ? usage(CompleteCommand.USAGE, out) : CompleteCommand.run(args, out, err);
      case "serve" -> help ? usage(ServeCommand.USAGE + SettingsHelp.text(), out)
          : ServeCommand.run(args, out);
      case "produce" -> help ? usage(ProduceCommand.USAGE, out) : ProduceCommand.run(args, out, err);
      case "demo" -> help ? usage(DemoCommand.USAGE, out) : DemoCommand.run(args, out);
      case "health" -> help ? usage(HealthCommand.USAGE, out)
          : HealthCommand.run(args, out, err, System.getenv());
      case "bench" -> {
        // The benchmarks are their own jar (module bench), outside the production one.
        err.println("dplrf bench: the benchmarks are not in this jar; run them with the launcher,"
            + " ./dplrf bench (bench/target/dplrf-bench.jar)");
        yield 2;
      }
      default -> {
        err.println("dplrf: unknown command '" + command + "'"
            + Spelling.didYouMean(command, COMMANDS, "") + " (try 'dplrf help')");
        yield 2;
      }
    });
  }

  /** A command's body: its exit code, or an exception that {@link #guarded} turns into one line. */
  @FunctionalInterface
  public interface Command {
    int run() throws Exception;
  }

  /**
   * Runs {@code body}, printing any error as one line on {@code err}: exit 2 for a usage or
   * parameter mistake, 1 for bad input or a failure while running. Shared with the benchmark jar.
   */
  public static int guarded(String command, PrintStream err, Command body) {
    try {
      return body.run();
    } catch (Args.UsageException e) {
      err.println("dplrf " + e.getMessage());
      return 2;
    } catch (IllegalArgumentException e) {
      err.println("dplrf " + command + ": " + e.getMessage());
      return 2;
    } catch (InputException e) {
      err.println("dplrf " + command + ": " + e.getMessage());
      return 1;
    } catch (IOException | UncheckedIOException e) {
      err.println("dplrf " + command + ": " + oneLine(e));
      return 1;
    } catch (Exception e) {
      err.println("dplrf " + command + ": internal error: " + oneLine(e));
      return 1;
    }
  }

  private static int usage(String text, PrintStream out) {
    out.print(text);
    return 0;
  }

  private static String oneLine(Throwable e) {
    // File-system exceptions carry only the path as their message.
    if (e instanceof java.nio.file.NoSuchFileException f) {
      return "no such file or directory: " + f.getFile();
    }
    if (e instanceof java.nio.file.AccessDeniedException f) {
      return "permission denied: " + f.getFile();
    }
    if (e instanceof java.nio.file.FileSystemException f && f.getReason() == null) {
      return e.getClass().getSimpleName() + ": " + f.getFile();
    }
    String m = e.getMessage();
    return (m == null ? e.getClass().getSimpleName() : m).replace('\n', ' ');
  }
}
