package io.dplrf.deploy.config;

import io.dplrf.deploy.config.ServiceConfig.Raw;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where {@link ServiceConfig}'s raw values come from: flags, the environment and the config file,
 * in that order of precedence (ServiceConfig's class comment), each value with its source.
 * Unknown names and repeated names are {@link ConfigException}s here; values are checked by
 * ServiceConfig.
 */
final class ConfigSources {
  private static final List<String> NAMES = ServiceConfig.NAMES;
  private static final Pattern LINE = Pattern.compile("([A-Za-z0-9][A-Za-z0-9-]*)\\s*[=:]\\s*(.*)");

  private ConfigSources() {}

  /**
   * Loads from command-line flags (from {@code argv[from]} on, {@code --config FILE} among them),
   * the given environment and the config file.
   */
  static Map<String, ServiceConfig.Raw> read(String[] argv, int from, Map<String, String> env) {
    Map<String, String> flags = new LinkedHashMap<>();
    for (int x = from; x < argv.length; x++) {
      String arg = argv[x];
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new ConfigException("unexpected argument '" + arg + "'");
      }
      String name = arg.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else if (x + 1 < argv.length) {
        value = argv[++x];
      } else {
        throw new ConfigException("flag --" + name + " needs a value");
      }
      if (!name.equals("config") && !NAMES.contains(name)) {
        throw unknownFlag(name);
      }
      if (flags.put(name, value) != null) {
        throw new ConfigException("flag --" + name + " given twice");
      }
    }
    String file = flags.remove("config");
    if (file == null) {
      file = emptyToNull(env.get("DPLRF_CONFIG"));
    }
    return read(file == null ? null : Path.of(file), env, flags);
  }

  /**
   * Loads from an optional config file, an environment map and flag values (names without
   * dashes). Throws {@link ConfigException} for any mistake.
   */
  static Map<String, ServiceConfig.Raw> read(Path file, Map<String, String> env,
      Map<String, String> flags) {
    Map<String, Raw> raw = new LinkedHashMap<>();
    if (file != null) {
      readFile(file, raw);
    }
    for (String name : NAMES) {
      String var = envName(name);
      String v = emptyToNull(env.get(var));
      if (v != null) {
        raw.put(name, new Raw(v.trim(), Source.ENV, "env " + var));
      }
    }
    for (Map.Entry<String, String> f : flags.entrySet()) {
      if (!NAMES.contains(f.getKey())) {
        throw unknownFlag(f.getKey());
      }
      raw.put(f.getKey(), new Raw(f.getValue().trim(), Source.FLAG, "flag --" + f.getKey()));
    }
    return raw;
  }

  private static ConfigException unknownFlag(String name) {
    List<String> flags = new java.util.ArrayList<>(NAMES);
    flags.add("config");
    return new ConfigException("unknown setting in flag --" + name
        + Spelling.didYouMean(name, flags, "--") + " ('dplrf serve --help' lists every setting)");
  }

  /** {@code epoch-updates} → {@code DPLRF_EPOCH_UPDATES}. */
  static String envName(String name) {
    return "DPLRF_" + name.toUpperCase(Locale.ROOT).replace('-', '_');
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  private static void readFile(Path file, Map<String, Raw> raw) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
    }
    for (int n = 1; n <= lines.size(); n++) {
      String line = lines.get(n - 1).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = file + ":" + n;
      Matcher m = LINE.matcher(line);
      if (!m.matches()) {
        throw new ConfigException(where + ": expected 'name = value' or 'name: value'. Provided line: " + line);
      }
      String name = m.group(1);
      if (!NAMES.contains(name)) {
        throw new ConfigException(where + ": unknown setting '" + name + "'"
            + Spelling.didYouMean(name, NAMES, ""));
      }
      if (raw.containsKey(name)) {
        throw new ConfigException(where + ": setting '" + name + "' given twice (first at "
            + raw.get(name).where().substring("file ".length()) + ")");
      }
      raw.put(name, new Raw(m.group(2).strip(), Source.FILE, "file " + where));
    }
  }
}
