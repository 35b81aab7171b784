package io.dplrf.deploy.config;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.SketchSizes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Every setting of {@code dplrf serve} (DESIGN.md "Contracts"), validated. Immutable.
 *
 * <p><b>Sources and precedence.</b> A setting {@code some-name} may be given as a line
 * {@code some-name = value} or {@code some-name: value} of the config file (blank lines and lines
 * starting with {@code #} are ignored; a {@code #} later on a line is part of the value, so tokens may
 * contain it), as the environment variable {@code DPLRF_SOME_NAME} (an empty variable counts as
 * unset, as docker-compose writes them), or as the flag {@code --some-name value} /
 * {@code --some-name=value}. A flag wins over the environment, which wins over the file. The file
 * is named by {@code --config FILE}, else by {@code DPLRF_CONFIG}. Unknown names in the file or
 * among the flags are errors naming the line or flag; other {@code DPLRF_*} variables are ignored
 * (the launcher script and container images set some of their own).
 *
 * <p><b>Validation.</b> Every value is checked once, here, with the project's message shape
 * "{name} must be {condition}. Provided value: {value}", followed by where the value came from.
 * Cross-field rules: exactly one of {@code epoch-updates} and {@code epoch-seconds};
 * {@code rank <= min(rows, cols)}; distinct HTTP and operator ports (unless 0).
 *
 * <p>{@link #describe()} lists every setting, its value and its source for the startup log; the
 * admin token is never printed.
 *
 * <p>The settings of mode completion have their own type ({@link CompletionSettings}); the sources
 * are read by {@link ConfigSources}, one value is parsed by {@link SettingParser}.
 */
public final class ServiceConfig {
  /**
   * What the service consumes and releases (docs/rows.md): {@code updates}, turnstile updates of
   * an m×n matrix A (the default); {@code rows}, row records whose unit is one row, clipped to
   * ‖x‖₂ ≤ C, released as a rank-k factorization of the d×d matrix AᵀA (d = cols); {@code local},
   * local-DP reports (docs/local-service.md), summed and released as the rank-k basis;
   * {@code completion}, ratings (i = user, j = item, Δ = rating) kept per user in a RocksDB store
   * and completed by private Frank–Wolfe under joint DP (docs/completion-service.md).
   */
  public enum Mode { UPDATES, ROWS, LOCAL, COMPLETION }

  /**
   * Mode local's protocol (setting {@code local-mechanism}): {@code local}, paper 002's local-DP
   * PCA (Gaussian, (ε, δ) per report; the default); {@code local-robust}, LOCAL-ROBUST-PCA (paper
   * 001, Appendix C, Algorithm 3: Laplace, pure ε per report, m = {@code rows} user slots).
   */
  public enum LocalMechanism {
    LOCAL, LOCAL_ROBUST;

    /** The CLI / config spelling: local, local-robust. */
    public String cliName() {
      return SettingParser.cliName(this);
    }
  }

  /** The privacy unit of the stream neighbouring relation (DESIGN.md "Privacy model"). */
  public enum PrivacyUnit { UPDATE, KEY, ROW }

  /** What happens to an update beyond its unit's remaining ℓ1 budget (key and row units). */
  public enum BudgetPolicy { CLIP, DROP }

  /** Every setting name, in the order {@link #describe()} lists them. */
  public static final List<String> NAMES = List.of(
      "mode", "rows", "cols", "rank", "epsilon", "delta", "mechanism", "epochs", "epoch-updates",
      "epoch-seconds", "clip", "privacy-unit", "budget-policy", "sketch-cols", "sketch-rows",
      "alpha", "p", "state-dir", "key", "bootstrap-servers", "kafka-config", "topic",
      "dead-letter-topic", "partitions", "embedded-kafka-port", "bind", "http-port",
      "operator-port", "admin-token", "seed",
      "max-ratings", "completion-runs", "completion-every-epochs", "completion-iterations",
      "completion-row-norm", "completion-nuclear-norm", "completion-solver", "completion-offset",
      "local-mechanism");

  private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,249}");

  /** One raw value and where it came from ("flag --rank", "env DPLRF_RANK", "file x.conf:3"). */
  record Raw(String value, Source source, String where) {}

  private final Map<String, Raw> raw;
  private final Map<String, Object> values = new LinkedHashMap<>();
  private Map<String, Object> kafkaClientSettings = Map.of();
  /** Parses and checks one setting at a time into {@link #values}, with one message shape. */
  private final SettingParser parse;

  private ServiceConfig(Map<String, Raw> raw) {
    this.raw = raw;
    this.parse = new SettingParser(raw, values);
    parse.choice("mode", Mode.class, Mode.UPDATES);
    boolean completion = mode() == Mode.COMPLETION;
    for (String name : completion ? CompletionSettings.UNUSED : CompletionSettings.NAMES) {
      if (raw.containsKey(name)) {
        throw parse.invalid(name, completion ? "unset in mode completion (the unit is one user: at most"
            + " max-ratings ratings, each |rating| <= clip; private Frank-Wolfe has no rank, sketch"
            + " or epoch budget)" : "unset outside mode completion");
      }
    }
    boolean localMode = mode() == Mode.LOCAL;
    if (!localMode && raw.containsKey("local-mechanism")) {
      throw parse.invalid("local-mechanism", "unset outside mode local");
    }
    parse.choice("local-mechanism", LocalMechanism.class, LocalMechanism.LOCAL);
    // local-robust: m = rows user slots, v = sketch-rows, p; pure epsilon-LDP, so no delta.
    boolean localRobust = localMode && localMechanism() == LocalMechanism.LOCAL_ROBUST;
    boolean rowsMode = mode() == Mode.ROWS || localMode && !localRobust;
    if (localMode) {
      List<String> unset = localRobust
          ? List.of("privacy-unit", "budget-policy", "mechanism", "alpha", "key", "delta")
          : List.of("rows", "privacy-unit", "budget-policy", "mechanism", "sketch-rows", "alpha",
              "key");
      for (String name : unset) {
        if (raw.containsKey(name)) {
          throw parse.invalid(name, "unset in mode local" + (localRobust
              ? " with local-mechanism local-robust (each report is pure epsilon-LDP: no delta)" : "")
              + " (clients randomize their own rows with the published protocol; the server sums"
              + " reports with no key, mechanism or budget)");
        }
      }
    } else if (raw.containsKey("seed")) {
      throw parse.invalid("seed", "unset outside mode local (it is the public seed of local-DP PCA)");
    }
    if (localRobust) {
      parse.positiveInt("rows"); // m, the public number of user slots
    } else if (rowsMode) {
      for (String name : List.of("rows", "privacy-unit", "budget-policy")) {
        if (raw.containsKey(name)) {
          throw parse.invalid(name, "unset in mode rows (the privacy unit is one row record, clipped to"
              + " norm <= clip; the released matrix is the cols x cols matrix AᵀA)");
        }
      }
    } else {
      parse.positiveInt("rows");
    }
    parse.positiveInt("cols");
    if (completion) {
      int max = CompletionSettings.FULL_SOLVER_MAX_ITEMS;
      parse.choice("completion-solver", CompletionSettings.Solver.class,
          cols() <= max ? CompletionSettings.Solver.FULL : CompletionSettings.Solver.OJA);
      if (values.get("completion-solver") == CompletionSettings.Solver.FULL && cols() > max) {
        throw parse.invalid("completion-solver", "oja with cols = " + cols() + " > " + max
            + " (full needs a dense cols x cols matrix per iteration)");
      }
    }
    if (rowsMode) {
      values.put("rows", values.get("cols"));
    }
    if (completion) {
      values.put("rank", 0);
      values.put("epochs", 0);
      parse.intIn("max-ratings", 80, 1, 1_000_000);
      parse.intIn("completion-runs", 10, 1, 1_000_000);
      parse.intIn("completion-every-epochs", 0, 0, Integer.MAX_VALUE);
      parse.optionalPositiveInt("completion-iterations");
      parse.number("completion-row-norm", "> 0 and < infinity", x -> x > 0 && Double.isFinite(x),
          Double.NaN);
      parse.number("completion-nuclear-norm", "> 0 and < infinity", x -> x > 0 && Double.isFinite(x),
          Double.NaN);
      parse.number("completion-offset", "finite", Double::isFinite, 0.0);
    } else {
      values.put("completion-solver", null);
      parse.positiveInt("rank");
    }
    parse.number("epsilon", "> 0 and < infinity", x -> x > 0 && Double.isFinite(x), null);
    if (localRobust) {
      values.put("delta", 0.0); // pure epsilon-LDP: what /v1/status and releases say
    } else {
      parse.number("delta", "in the open interval (0, 1)", x -> x > 0 && x < 1, null);
    }
    // Default: the most accurate valid mechanism for the unit. Every unit of mode updates is
    // bounded in l1, for which priv2-sparse's sensitivity is exactly C (docs/privacy/l1-units.md);
    // rows mode sketches AᵀA, whose row difference x xᵀ is only Frobenius-bounded.
    parse.choice("mechanism", Mechanism.of(Mechanism.Use.LOW_RANK_STREAM),
        rowsMode ? Mechanism.PRIV2 : Mechanism.PRIV2_SPARSE);
    if (rowsMode && mechanism() != Mechanism.PRIV2) {
      throw parse.invalid("mechanism", "priv2 in mode rows (the ata-sketch: Priv2 sketches of AᵀA, whose"
          + " row difference x xᵀ is a Frobenius-bounded change, not one entry or a rank-one"
          + " update of A)");
    }
    boolean robust = mechanism().robust() || localRobust;
    parse.number("p", robust ? "in [1, 2) (the robust mechanisms' l_p exponent)" : "1: only robust-lra, "
        + "robust-pca and local-robust take p", x -> robust ? x >= 1 && x < 2 : x == 1, 1.0);
    if (!completion) {
      parse.positiveInt("epochs");
    }
    parse.optionalPositiveLong("epoch-updates");
    // The ingest clock counts milliseconds: a shorter epoch cannot be honoured.
    parse.number("epoch-seconds", ">= 0.001 and < infinity", x -> x >= 0.001 && Double.isFinite(x),
        Double.NaN);
    parse.number("clip", "> 0 and < infinity", x -> x > 0 && Double.isFinite(x), 1.0);
    parse.choice("privacy-unit", PrivacyUnit.class, PrivacyUnit.UPDATE);
    parse.choice("budget-policy", BudgetPolicy.class, BudgetPolicy.CLIP);
    parse.optionalPositiveInt("sketch-cols");
    parse.optionalPositiveInt("sketch-rows");
    parse.number("alpha", "in the open interval (0, 1)", x -> x > 0 && x < 1, SketchSizes.DEFAULT_ALPHA);
    parse.path("state-dir", "./state");
    parse.path("key", values.get("state-dir") + "/secret.key");
    parse.string("bootstrap-servers", null, "a non-empty host:port list", s -> !s.isBlank());
    parse.optionalPath("kafka-config");
    parse.string("seed", null, "64 hexadecimal digits", s -> s.matches("[0-9A-Fa-f]{64}"));
    parse.string("topic", localRobust ? "dplrf-local-robust-reports"
        : localMode ? "dplrf-local-reports" : rowsMode ? "dplrf-rows"
        : completion ? "dplrf-ratings" : "dplrf-updates", "a Kafka topic name ([A-Za-z0-9._-], at most 249 characters)",
        s -> TOPIC.matcher(s).matches());
    parse.string("dead-letter-topic", values.get("topic") + ".dead-letter",
        "a Kafka topic name ([A-Za-z0-9._-], at most 249 characters)", s -> TOPIC.matcher(s).matches());
    parse.intIn("partitions", 1, 1, 100_000);
    parse.intIn("embedded-kafka-port", 9092, 0, 65535);
    parse.string("bind", "127.0.0.1", "a non-empty address", s -> !s.isBlank());
    parse.intIn("http-port", 8080, 0, 65535);
    parse.intIn("operator-port", 9464, 0, 65535);
    parse.string("admin-token", null, "non-empty without whitespace", s -> !s.isEmpty() && !s.matches(".*\\s.*"));
    crossChecks();
  }

  /**
   * Loads from command-line flags (from {@code argv[from]} on, {@code --config FILE} among them),
   * the given environment and the config file.
   */
  public static ServiceConfig load(String[] argv, int from, Map<String, String> env) {
    return new ServiceConfig(ConfigSources.read(argv, from, env));
  }

  /**
   * Loads from an optional config file, an environment map and flag values (names without
   * dashes). Throws {@link ConfigException} for any mistake.
   */
  public static ServiceConfig load(Path file, Map<String, String> env, Map<String, String> flags) {
    return new ServiceConfig(ConfigSources.read(file, env, flags));
  }

  /** {@code epoch-updates} → {@code DPLRF_EPOCH_UPDATES}. */
  public static String envName(String name) {
    return ConfigSources.envName(name);
  }

  // ---- typed accessors ----------------------------------------------------------------------

  /** Mode local: the public seed given by the setting {@code seed}, if any. */
  public java.util.Optional<io.dplrf.sketch.randomness.PublicSeed> seed() {
    String s = (String) values.get("seed");
    return s == null ? java.util.Optional.empty()
        : java.util.Optional.of(io.dplrf.sketch.randomness.PublicSeed.parse(s));
  }

  /**
   * Mode local: t, the width of each report: {@code sketch-cols}, or paper 002's default t for
   * (d, d, k) at the default α clamped to d, as {@code dplrf pca --mechanism local}.
   */
  public int localSketchCols() {
    OptionalInt t = sketchCols();
    return t.isPresent() ? t.getAsInt()
        : SketchSizes.defaults(cols(), cols(), rank(), SketchSizes.DEFAULT_ALPHA).t();
  }

  public Mode mode() {
    return (Mode) values.get("mode");
  }

  /** Mode local's protocol; {@link LocalMechanism#LOCAL} in the other modes (unused there). */
  public LocalMechanism localMechanism() {
    return (LocalMechanism) values.get("local-mechanism");
  }

  /** True in mode local with {@code local-mechanism = local-robust}. */
  public boolean localRobust() {
    return mode() == Mode.LOCAL && localMechanism() == LocalMechanism.LOCAL_ROBUST;
  }

  /** m; in mode rows, d = cols (the released matrix AᵀA is d×d). */
  public int rows() {
    return (Integer) values.get("rows");
  }

  public int cols() {
    return (Integer) values.get("cols");
  }

  public int rank() {
    return (Integer) values.get("rank");
  }

  public double epsilon() {
    return (Double) values.get("epsilon");
  }

  public double delta() {
    return (Double) values.get("delta");
  }

  public Mechanism mechanism() {
    return (Mechanism) values.get("mechanism");
  }

  /** T, the number of epochs the privacy budget covers. */
  public int epochs() {
    return (Integer) values.get("epochs");
  }

  /** Updates per epoch, when epochs are closed by count. */
  public OptionalLong epochUpdates() {
    Long v = (Long) values.get("epoch-updates");
    return v == null ? OptionalLong.empty() : OptionalLong.of(v);
  }

  /** Length of an epoch, when epochs are closed by time. */
  public Optional<Duration> epochDuration() {
    double s = (Double) values.get("epoch-seconds");
    return Double.isNaN(s) ? Optional.empty() : Optional.of(Duration.ofNanos(Math.round(s * 1e9)));
  }

  /** The ℓp exponent of robust-lra / robust-pca, in [1, 2); 1 otherwise. */
  public double p() {
    return (Double) values.get("p");
  }

  public double clip() {
    return (Double) values.get("clip");
  }

  public PrivacyUnit privacyUnit() {
    return (PrivacyUnit) values.get("privacy-unit");
  }

  public BudgetPolicy budgetPolicy() {
    return (BudgetPolicy) values.get("budget-policy");
  }

  public OptionalInt sketchCols() {
    Integer v = (Integer) values.get("sketch-cols");
    return v == null ? OptionalInt.empty() : OptionalInt.of(v);
  }

  public OptionalInt sketchRows() {
    Integer v = (Integer) values.get("sketch-rows");
    return v == null ? OptionalInt.empty() : OptionalInt.of(v);
  }

  public double alpha() {
    return (Double) values.get("alpha");
  }

  public Path stateDir() {
    return (Path) values.get("state-dir");
  }

  public Path key() {
    return (Path) values.get("key");
  }

  /** External Kafka; empty means: start the embedded broker. */
  public Optional<String> bootstrapServers() {
    return Optional.ofNullable((String) values.get("bootstrap-servers"));
  }

  /** {@code kafka-config}'s settings ({@link KafkaClientSettings}); empty without it. */
  public Map<String, Object> kafkaClientSettings() {
    return kafkaClientSettings;
  }

  public String topic() {
    return (String) values.get("topic");
  }

  public String deadLetterTopic() {
    return (String) values.get("dead-letter-topic");
  }

  /** Partitions of topics the service creates. */
  public int partitions() {
    return (Integer) values.get("partitions");
  }

  public int embeddedKafkaPort() {
    return (Integer) values.get("embedded-kafka-port");
  }

  /** The address both HTTP servers bind to. */
  public String bind() {
    return (String) values.get("bind");
  }

  public int httpPort() {
    return (Integer) values.get("http-port");
  }

  public int operatorPort() {
    return (Integer) values.get("operator-port");
  }

  /** The operator endpoints' bearer token; empty means they are open (bind them to loopback). */
  public Optional<String> adminToken() {
    return Optional.ofNullable((String) values.get("admin-token"));
  }

  /** Mode completion's settings; null in the other modes. */
  public CompletionSettings completion() {
    if (mode() != Mode.COMPLETION) {
      return null;
    }
    Integer t = (Integer) values.get("completion-iterations");
    return new CompletionSettings((Integer) values.get("max-ratings"),
        (Integer) values.get("completion-runs"), (Integer) values.get("completion-every-epochs"),
        t == null ? OptionalInt.empty() : OptionalInt.of(t),
        (Double) values.get("completion-row-norm"), (Double) values.get("completion-nuclear-norm"),
        (CompletionSettings.Solver) values.get("completion-solver"),
        (Double) values.get("completion-offset"));
  }

  /** Where {@code name}'s value came from. */
  public Source source(String name) {
    if (!NAMES.contains(name)) {
      throw new IllegalArgumentException("unknown setting " + name);
    }
    Raw r = raw.get(name);
    return r == null ? Source.DEFAULT : r.source();
  }

  /** One line per setting, "name = value (source)", for the startup log. Never prints the token. */
  public String describe() {
    StringBuilder b = new StringBuilder("settings:\n");
    int width = NAMES.stream().mapToInt(String::length).max().orElse(0);
    for (String name : NAMES) {
      Object v = values.get(name);
      String shown;
      if (mode() == Mode.COMPLETION && CompletionSettings.UNUSED.contains(name)) {
        shown = "(not used in mode completion)";
      } else if (name.equals("admin-token")) {
        shown = v == null ? "(none: operator endpoints are open)" : "(set, " + ((String) v).length() + " characters)";
      } else if (v == null || v instanceof Double d && d.isNaN()) {
        shown = name.equals("bootstrap-servers") ? "(none: embedded broker)" : "(unset)";
      } else {
        shown = v instanceof Enum<?> e ? SettingParser.cliName(e) : v.toString();
      }
      Raw r = raw.get(name);
      b.append("  ").append(name).append(" ".repeat(width - name.length())).append(" = ")
          .append(shown).append("  (").append(r == null ? "default" : r.where()).append(")\n");
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return describe();
  }

  private void crossChecks() {
    boolean byCount = values.get("epoch-updates") != null;
    boolean byTime = !((Double) values.get("epoch-seconds")).isNaN();
    if (byCount == byTime) {
      throw new ConfigException("exactly one of epoch-updates and epoch-seconds must be set. Provided: "
          + (byCount ? "both (" + raw.get("epoch-updates").where() + ", "
              + raw.get("epoch-seconds").where() + ")" : "neither"));
    }
    int min = Math.min(rows(), cols());
    if (rank() > min) {
      throw parse.invalid("rank", "<= min(rows, cols) = " + min);
    }
    if (localRobust()) {
      // t <= d and the sizes' own rules are checked by the protocol (LocalRobustProtocol.of).
      if (sketchCols().isPresent() && sketchCols().getAsInt() > cols()) {
        throw parse.invalid("sketch-cols", "<= cols = " + cols() + " with local-robust (t <= d)");
      }
    } else if (mode() == Mode.LOCAL) {
      if (localSketchCols() > cols()) {
        throw parse.invalid("sketch-cols", "<= cols = " + cols() + " in mode local (t <= d)");
      }
      if (rank() > localSketchCols()) {
        throw parse.invalid("rank", "<= sketch-cols = " + localSketchCols() + " in mode local");
      }
    }
    if (httpPort() != 0 && httpPort() == operatorPort()) {
      throw parse.invalid("operator-port", "different from http-port (the operator endpoints need their own port)");
    }
    Path kafkaConfig = (Path) values.get("kafka-config");
    if (kafkaConfig != null) {
      if (bootstrapServers().isEmpty()) {
        throw parse.invalid("kafka-config", "given only with bootstrap-servers (the embedded broker"
            + " is plain-text on loopback and takes no client settings)");
      }
      kafkaClientSettings = KafkaClientSettings.load(kafkaConfig,
          "kafka-config (" + raw.get("kafka-config").where() + ")");
    }
  }
}
