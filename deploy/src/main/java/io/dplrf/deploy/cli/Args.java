package io.dplrf.deploy.cli;

import io.dplrf.deploy.config.Spelling;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Command-line options of one sub-command: {@code --name value} pairs and bare {@code --flag}s.
 * Unknown options, repeated options and missing values are errors naming the option.
 */
public final class Args {
  private final String command;
  private final Map<String, String> values = new LinkedHashMap<>();
  private final Set<String> flags;
  private final List<String> used = new ArrayList<>();

  private Args(String command, Set<String> flags) {
    this.command = command;
    this.flags = flags;
  }

  /**
   * @param options names (without dashes) that take a value
   * @param flags names that take none
   */
  public static Args parse(String command, String[] argv, int from, Set<String> options, Set<String> flags) {
    Args a = new Args(command, flags);
    for (int x = from; x < argv.length; x++) {
      String arg = argv[x];
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new UsageException(command + ": unexpected argument '" + arg + "'");
      }
      String name = arg.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (flags.contains(name)) {
        if (value != null) {
          throw new UsageException(command + ": option --" + name + " takes no value");
        }
        value = "true";
      } else if (options.contains(name)) {
        if (value == null) {
          if (x + 1 >= argv.length) {
            throw new UsageException(command + ": option --" + name + " needs a value");
          }
          value = argv[++x];
        }
      } else {
        java.util.List<String> known = new java.util.ArrayList<>(options);
        known.addAll(flags);
        java.util.Collections.sort(known);
        throw new UsageException(command + ": unknown option --" + name
            + Spelling.didYouMean(name, known, "--"));
      }
      if (a.values.put(name, value) != null) {
        throw new UsageException(command + ": option --" + name + " given twice");
      }
    }
    return a;
  }

  public boolean flag(String name) {
    return values.containsKey(name) && flags.contains(name);
  }

  public String string(String name, String fallback) {
    String v = values.get(name);
    return v != null ? v : fallback;
  }

  public String required(String name) {
    String v = values.get(name);
    if (v == null) {
      throw new UsageException(command + ": missing required option --" + name);
    }
    return v;
  }

  public Integer integerOrNull(String name) {
    String v = values.get(name);
    if (v == null) {
      return null;
    }
    try {
      return Integer.valueOf(v.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(command + ": --" + name + " must be an integer. Provided value: " + v);
    }
  }

  public int integer(String name, int fallback) {
    Integer v = integerOrNull(name);
    return v != null ? v : fallback;
  }

  public double number(String name, double fallback) {
    String v = values.get(name);
    return v == null ? fallback : parseNumber(name, v);
  }

  public double requiredNumber(String name) {
    return parseNumber(name, required(name));
  }

  private double parseNumber(String name, String v) {
    try {
      double d = Double.parseDouble(v.trim());
      if (!Double.isFinite(d)) {
        throw new NumberFormatException();
      }
      return d;
    } catch (NumberFormatException e) {
      throw new UsageException(command + ": --" + name + " must be a finite number. Provided value: " + v);
    }
  }

  /** A command-line mistake: printed as one line, exit code 2. */
  public static final class UsageException extends RuntimeException {
    public UsageException(String message) {
      super(message);
    }
  }
}
