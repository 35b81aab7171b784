package io.dplrf.deploy.config;

import io.dplrf.deploy.config.ServiceConfig.Mode;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settings table of {@code dplrf serve --help}: every name of {@link ServiceConfig#NAMES} in
 * its order, its default, the modes that read it, and a one-line meaning.
 *
 * <p>Only the meanings are written here. The names, the defaults and the modes come from the
 * settings classes themselves: each mode's configuration is parsed from its required settings
 * alone (placeholder values), and a setting's default is what that parse resolved it to, as the
 * startup log shows it; a setting the parse needed is "required", one that resolved to nothing
 * is "-" (its meaning says what unset does). So the table cannot drift from the parser: a changed
 * default or a new setting shows up here, and a new setting without a meaning shows an empty one
 * (ServiceConfigTest fails on that).
 */
public final class SettingsHelp {
  /** One line each; what an unset optional setting means is said here. */
  private static final Map<String, String> MEANINGS = meanings(
      "mode", "updates, rows (row records, AᵀA), local (local-DP reports) or completion",
      "rows", "m, the number of rows (public; completion: users)",
      "cols", "n, the number of columns (public; completion: items; rows: d)",
      "rank", "k, the rank of each release",
      "epsilon", "ε of the whole stream (every epoch's release together)",
      "delta", "δ of the whole stream",
      "mechanism", "priv2-sparse, priv2, priv1 (update unit), robust-lra, robust-pca; rows: priv2",
      "continual", "prefix releases: factorization (BLT; the default for priv2* in mode updates) or tree (binary tree; the default otherwise, and the only choice in mode rows)",
      "epochs", "T, the number of releases the budget covers",
      "epoch-updates", "close an epoch after this many updates read (or epoch-seconds); pinned at the first start",
      "epoch-seconds", "close an epoch after this many seconds (or epoch-updates); pinned at the first start",
      "epoch-idle-seconds", "with epoch-updates: also close a non-empty epoch after this long without a record; 0: off; pinned at the first start",
      "clip", "C, the contribution bound of one privacy unit",
      "privacy-unit", "update, key (the Kafka record key) or row",
      "budget-policy", "key/row units: clip an update beyond the budget, or drop it",
      "sketch-cols", "t, sketch width; unset: paper 002's default for (m, n, k, alpha)",
      "sketch-rows", "v, sketch height; unset: the mechanism's default",
      "alpha", "accuracy parameter of the default sketch sizes",
      "p", "robust mechanisms: the l_p exponent, in [1, 2)",
      "state-dir", "snapshots, released nodes, the embedded broker's data",
      "key", "the secret key file (created with owner-only permissions if absent)",
      "bootstrap-servers", "your Kafka cluster; unset: an embedded broker on 127.0.0.1",
      "kafka-config", "Kafka client properties file (security.protocol, sasl.*, ssl.*)",
      "topic", "the topic consumed (default by mode)",
      "dead-letter-topic", "where malformed records go, with the reason in a header",
      "partitions", "partitions of the topics the service creates",
      "embedded-kafka-port", "port of the embedded broker (no bootstrap-servers)",
      "bind", "address of the HTTP listeners",
      "http-port", "the public API and status page",
      "operator-port", "/metrics and /admin (exact counts: not public)",
      "operator-bind", "address of the operator listener; unset: bind (off loopback: needs a token)",
      "admin-token", "bearer token the operator port requires; unset: open",
      "seed", "local: the public seed (64 hex digits); unset: the state dir's or a new one",
      "rating-min", "completion: the lowest rating of the public scale",
      "rating-max", "completion: the highest rating of the public scale",
      "completion-model", "biased (offset, item biases, user biases, FW on residuals) or fw",
      "max-ratings", "ξ, the most distinct items kept per user",
      "completion-runs", "R, the most fits the budget covers",
      "completion-every-epochs", "fit after every N closed epochs; 0: on demand only",
      "completion-iterations", "Frank-Wolfe iterations; unset: paper 004 Cor. 3.1",
      "completion-row-norm", "L, the bound on a user's (residual) row; unset: from the scale",
      "completion-nuclear-norm", "the nuclear-norm bound; unset: √(mn)·L/√ξ",
      "completion-solver", "full (dense, up to 2000 items) or oja",
      "completion-oja-steps", "oja solver: Γ, the steps per eigenvector",
      "completion-user-shrinkage", "biased: λ_u; auto: estimated privately in the same budget",
      "completion-item-clip", "biased: τ, the RMS bound of a user's centred ratings",
      "completion-offset", "fw: public constant subtracted from ratings; unset: mid-scale",
      "local-mechanism", "local (local-DP PCA) or local-robust (LOCAL-ROBUST-PCA)");

  /**
   * The least each mode needs; placeholders, valid together. {@code epoch-updates} stands for
   * "one of epoch-updates and epoch-seconds".
   */
  private static final Map<Mode, Map<String, String>> REQUIRED = new EnumMap<>(Map.of(
      Mode.UPDATES, Map.of("rows", "100", "cols", "100", "rank", "1", "epsilon", "1",
          "delta", "1e-6", "epochs", "1", "epoch-updates", "1"),
      Mode.ROWS, Map.of("mode", "rows", "cols", "100", "rank", "1", "epsilon", "1",
          "delta", "1e-6", "epochs", "1", "epoch-updates", "1"),
      Mode.LOCAL, Map.of("mode", "local", "cols", "100", "rank", "1", "epsilon", "1",
          "delta", "1e-6", "epochs", "1", "epoch-updates", "1"),
      Mode.COMPLETION, Map.of("mode", "completion", "rows", "100", "cols", "100", "epsilon", "1",
          "delta", "1e-6", "epoch-updates", "1", "rating-min", "0", "rating-max", "5")));

  private SettingsHelp() {}

  /** The meaning of {@code name}; empty if it has none. */
  static String meaning(String name) {
    return MEANINGS.getOrDefault(name, "");
  }

  /** The table, one line per setting, preceded by a heading line. */
  public static String text() {
    Map<Mode, ServiceConfig> probes = new EnumMap<>(Mode.class);
    for (Mode m : Mode.values()) {
      try {
        probes.put(m, ServiceConfig.load(null, Map.of(), REQUIRED.get(m)));
      } catch (ConfigException e) {
        // A mode whose required settings changed: its defaults show as "?" (and the test fails).
      }
    }
    List<String[]> rows = new ArrayList<>();
    for (String name : ServiceConfig.NAMES) {
      List<String> modes = new ArrayList<>();
      String shown = "?";
      for (Mode m : Mode.values()) {
        ServiceConfig probe = probes.get(m);
        if (probe == null || !probe.reads(name)) {
          continue;
        }
        modes.add(SettingParser.cliName(m));
        if (!shown.equals("?")) {
          continue; // the first mode that reads it gives the default
        }
        if (REQUIRED.get(m).containsKey(name) && !name.equals("mode")) {
          shown = "required";
        } else {
          String v = probe.shownValue(name);
          shown = v == null ? "-" : v;
        }
      }
      String where = modes.size() == Mode.values().length ? "" : " [" + String.join(", ", modes) + "]";
      rows.add(new String[] {name, shown, meaning(name) + where});
    }
    int w0 = rows.stream().mapToInt(r -> r[0].length()).max().orElse(0);
    int w1 = rows.stream().mapToInt(r -> r[1].length()).max().orElse(0);
    StringBuilder b = new StringBuilder();
    b.append(pad("  setting", w0 + 2)).append("  ").append(pad("default", w1)).append("  meaning")
        .append(" [modes that read it, if not all]\n");
    for (String[] r : rows) {
      b.append("  ").append(pad(r[0], w0)).append("  ").append(pad(r[1], w1)).append("  ")
          .append(r[2]).append('\n');
    }
    return b.toString();
  }

  private static String pad(String s, int width) {
    return s + " ".repeat(Math.max(0, width - s.length()));
  }

  private static Map<String, String> meanings(String... pairs) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int x = 0; x < pairs.length; x += 2) {
      m.put(pairs[x], pairs[x + 1]);
    }
    return m;
  }
}
