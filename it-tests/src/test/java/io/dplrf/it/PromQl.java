package io.dplrf.it;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression (as written in a Grafana panel) selects, found by removing
 * everything that is not one: string literals, Grafana variables, label matchers {@code {...}},
 * range and subquery selectors {@code [...]}, label lists of {@code by}, {@code without},
 * {@code on}, {@code ignoring}, {@code group_left} and {@code group_right}, numbers and durations,
 * and PromQL's functions, aggregations and keywords. What remains are metric names.
 *
 * <p>Strict where silence would hide a name: an identifier called like a function that is not a
 * PromQL function, and a selector naming its metric through {@code __name__}, are errors.
 */
final class PromQl {
  private PromQl() {}

  /** Functions and aggregation operators (Prometheus 3.x documentation), called with "(". */
  private static final Set<String> FUNCTIONS = Set.of(
      // aggregation operators
      "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk",
      "topk", "quantile", "limitk", "limit_ratio",
      // functions
      "abs", "absent", "absent_over_time", "ceil", "changes", "clamp", "clamp_max", "clamp_min",
      "day_of_month", "day_of_week", "day_of_year", "days_in_month", "delta", "deriv",
      "double_exponential_smoothing", "exp", "floor", "histogram_avg", "histogram_count",
      "histogram_fraction", "histogram_quantile", "histogram_stddev", "histogram_stdvar",
      "histogram_sum", "holt_winters", "hour", "idelta", "increase", "info", "irate", "label_join",
      "label_replace", "ln", "log2", "log10", "minute", "month", "predict_linear", "rate", "resets",
      "round", "scalar", "sgn", "sort", "sort_desc", "sort_by_label", "sort_by_label_desc", "sqrt",
      "time", "timestamp", "vector", "year", "avg_over_time", "min_over_time", "max_over_time",
      "sum_over_time", "count_over_time", "quantile_over_time", "stddev_over_time",
      "stdvar_over_time", "last_over_time", "present_over_time", "mad_over_time",
      "first_over_time", "ts_of_min_over_time", "ts_of_max_over_time", "ts_of_last_over_time",
      "ts_of_first_over_time", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh",
      "sin", "sinh", "tan", "tanh", "deg", "rad", "pi", "start", "end", "step");

  /** Keywords and literals that are not metric names (compared in lower case). */
  private static final Set<String> KEYWORDS = Set.of(
      "and", "or", "unless", "bool", "offset", "atan2", "inf", "nan",
      "by", "without", "on", "ignoring", "group_left", "group_right");

  private static final Pattern STRING =
      Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");
  /** Grafana template variables: ${name...}, [[name]], $name (e.g. $__rate_interval). */
  private static final Pattern GRAFANA_VARIABLE =
      Pattern.compile("\\$\\{[^}]*\\}|\\[\\[[^\\]]*\\]\\]|\\$\\w+");
  private static final Pattern LABEL_MATCHERS = Pattern.compile("\\{[^{}]*\\}");
  private static final Pattern RANGE = Pattern.compile("\\[[^\\[\\]]*\\]");
  private static final Pattern LABEL_LIST = Pattern.compile(
      "\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^()]*\\)", Pattern.CASE_INSENSITIVE);
  /** A number (also 1e-6, 0x1F) or a duration (5m, 1h30m), or an identifier. */
  private static final Pattern TOKEN = Pattern.compile(
      "(?<number>(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?\\w*)|(?<ident>[A-Za-z_:][A-Za-z0-9_:]*)");

  /** The metric names selected by {@code expr}, in order of appearance. */
  static Set<String> metricNames(String expr) {
    String s = STRING.matcher(expr).replaceAll(" ");
    s = GRAFANA_VARIABLE.matcher(s).replaceAll(" ");
    Matcher braces = LABEL_MATCHERS.matcher(s);
    while (braces.find()) {
      if (braces.group().contains("__name__")) {
        throw new IllegalArgumentException("selector by __name__ is not supported: " + expr);
      }
    }
    s = LABEL_MATCHERS.matcher(s).replaceAll(" ");
    s = RANGE.matcher(s).replaceAll(" ");
    s = LABEL_LIST.matcher(s).replaceAll(" ");
    if (s.matches("(?s).*[{}\\[\\]\"'`$].*")) {
      throw new IllegalArgumentException("cannot read PromQL (nested or unbalanced brackets?): " + expr
          + " -> " + s);
    }
    Set<String> names = new LinkedHashSet<>();
    Matcher m = TOKEN.matcher(s);
    while (m.find()) {
      String ident = m.group("ident");
      if (ident == null) {
        continue; // a number or a duration
      }
      boolean called = nextNonSpace(s, m.end()) == '(';
      if (called) {
        if (!FUNCTIONS.contains(ident)) {
          throw new IllegalArgumentException("unknown PromQL function '" + ident + "' in: " + expr);
        }
      } else if (!KEYWORDS.contains(ident.toLowerCase(Locale.ROOT))) {
        names.add(ident);
      }
    }
    return names;
  }

  private static char nextNonSpace(String s, int from) {
    for (int x = from; x < s.length(); x++) {
      if (!Character.isWhitespace(s.charAt(x))) {
        return s.charAt(x);
      }
    }
    return 0;
  }
}
