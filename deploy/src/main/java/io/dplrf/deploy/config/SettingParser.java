package io.dplrf.deploy.config;

import io.dplrf.deploy.config.ServiceConfig.Raw;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Parses one setting of {@link ServiceConfig} at a time from its raw value into the values map,
 * or fails with one message shape: "NAME must be REQUIREMENT. Provided value: V (where)", or
 * "missing required setting NAME: give --NAME, DPLRF_NAME or a 'NAME = ...' line".
 */
final class SettingParser {
  private final Map<String, Raw> raw;
  private final Map<String, Object> values;

  SettingParser(Map<String, Raw> raw, Map<String, Object> values) {
    this.raw = raw;
    this.values = values;
  }

  ConfigException invalid(String name, String requirement) {
    Raw r = raw.get(name);
    return new ConfigException(name + " must be " + requirement + ". Provided value: " + r.value()
        + " (" + r.where() + ")");
  }

  ConfigException missing(String name) {
    return new ConfigException("missing required setting " + name + ": give --" + name + ", "
        + ServiceConfig.envName(name) + " or a '" + name + " = ...' line in the config file");
  }

  interface DoubleCheck {
    boolean ok(double x);
  }

  void number(String name, String requirement, DoubleCheck check, Double fallback) {
    Raw r = raw.get(name);
    if (r == null) {
      if (fallback == null) {
        throw missing(name);
      }
      values.put(name, fallback);
      return;
    }
    double x;
    try {
      x = Double.parseDouble(r.value());
    } catch (NumberFormatException e) {
      throw invalid(name, requirement);
    }
    if (!check.ok(x)) {
      throw invalid(name, requirement);
    }
    values.put(name, x);
  }

  void positiveInt(String name) {
    if (!raw.containsKey(name)) {
      throw missing(name);
    }
    optionalPositiveInt(name);
  }

  void optionalPositiveInt(String name) {
    intIn(name, null, 1, Integer.MAX_VALUE);
  }

  void intIn(String name, Integer fallback, int lo, int hi) {
    Raw r = raw.get(name);
    if (r == null) {
      values.put(name, fallback);
      return;
    }
    String requirement = hi == Integer.MAX_VALUE ? "an integer >= " + lo
        : "an integer in [" + lo + ", " + hi + "]";
    try {
      int x = Integer.parseInt(r.value());
      if (x < lo || x > hi) {
        throw invalid(name, requirement);
      }
      values.put(name, x);
    } catch (NumberFormatException e) {
      throw invalid(name, requirement);
    }
  }

  void optionalPositiveLong(String name) {
    Raw r = raw.get(name);
    if (r == null) {
      values.put(name, null);
      return;
    }
    try {
      long x = Long.parseLong(r.value());
      if (x < 1) {
        throw invalid(name, "an integer >= 1");
      }
      values.put(name, x);
    } catch (NumberFormatException e) {
      throw invalid(name, "an integer >= 1");
    }
  }

  /** An enum constant as written in config: lower case, '-' for '_' (priv2-sparse). */
  static String cliName(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  <E extends Enum<E>> void choice(String name, Class<E> type, E fallback) {
    choice(name, java.util.EnumSet.allOf(type), fallback);
  }

  /** One of {@code allowed}, by its {@link #cliName}. */
  <E extends Enum<E>> void choice(String name, java.util.Set<E> allowed, E fallback) {
    Raw r = raw.get(name);
    if (r == null) {
      values.put(name, fallback);
      return;
    }
    for (E e : allowed) {
      if (cliName(e).equals(r.value())) {
        values.put(name, e);
        return;
      }
    }
    StringBuilder names = new StringBuilder();
    for (E e : allowed) {
      names.append(names.length() == 0 ? "" : ", ").append(cliName(e));
    }
    throw invalid(name, "one of " + names);
  }

  interface StringCheck {
    boolean ok(String s);
  }

  void string(String name, String fallback, String requirement, StringCheck check) {
    Raw r = raw.get(name);
    if (r == null) {
      values.put(name, fallback);
    } else if (!check.ok(r.value())) {
      throw invalid(name, requirement);
    } else {
      values.put(name, r.value());
    }
  }

  void optionalPath(String name) {
    Raw r = raw.get(name);
    if (r != null && r.value().isEmpty()) {
      throw invalid(name, "a non-empty path");
    }
    values.put(name, r == null ? null : Path.of(r.value()));
  }

  void path(String name, String fallback) {
    Raw r = raw.get(name);
    if (r != null && r.value().isEmpty()) {
      throw invalid(name, "a non-empty path");
    }
    values.put(name, Path.of(r == null ? fallback : r.value()));
  }
}
