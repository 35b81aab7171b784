package io.dplrf.deploy.config;

import io.dplrf.deploy.config.ServiceConfig.Raw;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Parses one setting at a time from its raw value into a typed value, or fails with one message
 * shape: "NAME must be REQUIREMENT. Provided value: V (where)", or "missing required setting NAME:
 * give --NAME, DPLRF_NAME or a 'NAME = ...' line". Each parsed value is also kept as the text
 * {@link ServiceConfig#describe()} shows. {@link ServiceConfig} parses the common settings with
 * it, and each mode's settings record ({@link TreeSettings}, {@link LocalSettings}, {@link
 * CompletionSettings}) its own.
 */
final class SettingParser {
  private final Map<String, Raw> raw;
  private final Map<String, String> shown = new LinkedHashMap<>();

  SettingParser(Map<String, Raw> raw) {
    this.raw = raw;
  }

  /** Whether the setting was given (by flag, environment or file). */
  boolean given(String name) {
    return raw.containsKey(name);
  }

  /** The values parsed so far as {@link ServiceConfig#describe()} shows them, by name. */
  Map<String, String> shown() {
    return shown;
  }

  /** Refuses {@code name} if it was given: it has no meaning here ({@code requirement} says why). */
  void refuse(String name, String requirement) {
    if (given(name)) {
      throw invalid(name, requirement);
    }
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

  private <T> T show(String name, T value) {
    shown.put(name, value == null ? null
        : value instanceof Enum<?> e ? cliName(e) : value.toString());
    return value;
  }

  interface DoubleCheck {
    boolean ok(double x);
  }

  /** A number meeting {@code check}; {@code fallback} if absent (required when null). */
  double number(String name, String requirement, DoubleCheck check, Double fallback) {
    Raw r = raw.get(name);
    if (r == null) {
      if (fallback == null) {
        throw missing(name);
      }
      return show(name, fallback);
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
    return show(name, x);
  }

  /** An optional number meeting {@code check}: NaN if absent. */
  double optionalNumber(String name, String requirement, DoubleCheck check) {
    double x = number(name, requirement, check, Double.NaN);
    if (Double.isNaN(x)) {
      shown.put(name, null);
    }
    return x;
  }

  int positiveInt(String name) {
    if (!given(name)) {
      throw missing(name);
    }
    return optionalPositiveInt(name).getAsInt();
  }

  OptionalInt optionalPositiveInt(String name) {
    return optionalIntIn(name, 1, Integer.MAX_VALUE);
  }

  int intIn(String name, int fallback, int lo, int hi) {
    OptionalInt x = optionalIntIn(name, lo, hi);
    return show(name, x.isPresent() ? x.getAsInt() : fallback);
  }

  OptionalInt optionalIntIn(String name, int lo, int hi) {
    Raw r = raw.get(name);
    if (r == null) {
      shown.put(name, null);
      return OptionalInt.empty();
    }
    String requirement = hi == Integer.MAX_VALUE ? "an integer >= " + lo
        : "an integer in [" + lo + ", " + hi + "]";
    try {
      int x = Integer.parseInt(r.value());
      if (x < lo || x > hi) {
        throw invalid(name, requirement);
      }
      show(name, x);
      return OptionalInt.of(x);
    } catch (NumberFormatException e) {
      throw invalid(name, requirement);
    }
  }

  OptionalLong optionalPositiveLong(String name) {
    Raw r = raw.get(name);
    if (r == null) {
      shown.put(name, null);
      return OptionalLong.empty();
    }
    try {
      long x = Long.parseLong(r.value());
      if (x < 1) {
        throw invalid(name, "an integer >= 1");
      }
      show(name, x);
      return OptionalLong.of(x);
    } catch (NumberFormatException e) {
      throw invalid(name, "an integer >= 1");
    }
  }

  /** An enum constant as written in config: lower case, '-' for '_' (priv2-sparse). */
  static String cliName(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  <E extends Enum<E>> E choice(String name, Class<E> type, E fallback) {
    return choice(name, EnumSet.allOf(type), fallback);
  }

  /** One of {@code allowed}, by its {@link #cliName}. */
  <E extends Enum<E>> E choice(String name, Set<E> allowed, E fallback) {
    Raw r = raw.get(name);
    if (r == null) {
      return show(name, fallback);
    }
    for (E e : allowed) {
      if (cliName(e).equals(r.value())) {
        return show(name, e);
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

  /** A string meeting {@code check}; {@code fallback} (may be null) if absent. */
  String string(String name, String fallback, String requirement, StringCheck check) {
    Raw r = raw.get(name);
    if (r == null) {
      return show(name, fallback);
    }
    if (!check.ok(r.value())) {
      throw invalid(name, requirement);
    }
    return show(name, r.value());
  }

  Optional<Path> optionalPath(String name) {
    Raw r = raw.get(name);
    if (r != null && r.value().isEmpty()) {
      throw invalid(name, "a non-empty path");
    }
    return Optional.ofNullable(show(name, r == null ? null : Path.of(r.value())));
  }

  Path path(String name, String fallback) {
    Raw r = raw.get(name);
    if (r != null && r.value().isEmpty()) {
      throw invalid(name, "a non-empty path");
    }
    return show(name, Path.of(r == null ? fallback : r.value()));
  }

  /** Records a value that is not read from a setting of its own name (derived, or forced). */
  <T> T derived(String name, T value) {
    return show(name, value);
  }
}
