package io.dplrf.deploy.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Every setting of {@code dplrf serve} (docs/user-guide.md, "Configuration"), validated once into
 * typed values. Immutable.
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
 * <p><b>Typed, and each mode parses its own.</b> The settings every mode shares (the budget, the
 * epoch cut, the contribution bound, Kafka, the state directory, the listeners) are fields here;
 * the mode's own are one record, parsed by the mode's settings class: {@link TreeSettings} (modes
 * {@code updates} and {@code rows}), {@link LocalSettings} ({@code local}), {@link
 * CompletionSettings} ({@code completion}). A setting another mode reads is refused with the
 * reason it has no meaning here.
 *
 * <p><b>Validation.</b> Every value is checked once, with the project's message shape
 * "{name} must be {condition}. Provided value: {value}", followed by where the value came from.
 * Cross-field rules: exactly one of {@code epoch-updates} and {@code epoch-seconds};
 * {@code epoch-idle-seconds} with {@code epoch-updates} only;
 * {@code rank <= min(rows, cols)}; distinct HTTP and operator ports (unless 0).
 *
 * <p>{@link #describe()} lists every setting the mode reads, its value and its source for the
 * startup log; the admin token is never printed.
 */
public final class ServiceConfig {
  /**
   * What the service consumes and releases: {@code updates}, turnstile updates of an m×n matrix A
   * (the default); {@code rows}, row records whose unit is one row, clipped to ‖x‖₂ ≤ C, released
   * as a rank-k factorization of the d×d matrix AᵀA (docs/rows.md); {@code local}, local-DP
   * reports, summed and released as the rank-k basis (docs/local-service.md); {@code completion},
   * ratings kept per user and completed by private Frank–Wolfe under joint DP
   * (docs/completion-service.md).
   */
  public enum Mode { UPDATES, ROWS, LOCAL, COMPLETION }

  /** The settings every mode reads. */
  private static final List<String> COMMON = List.of("mode", "epsilon", "delta", "epoch-updates",
      "epoch-seconds", "epoch-idle-seconds", "clip", "state-dir", "key", "bootstrap-servers", "kafka-config", "topic",
      "dead-letter-topic", "partitions", "embedded-kafka-port", "bind", "http-port",
      "operator-port", "operator-bind", "admin-token");

  /** Every setting name, in the order {@link #describe()} lists them. */
  public static final List<String> NAMES = List.of(
      "mode", "rows", "cols", "rank", "epsilon", "delta", "mechanism", "continual", "epochs",
      "epoch-updates", "epoch-seconds", "epoch-idle-seconds", "clip", "privacy-unit",
      "budget-policy", "sketch-cols", "sketch-rows",
      "alpha", "p", "state-dir", "key", "bootstrap-servers", "kafka-config", "topic",
      "dead-letter-topic", "partitions", "embedded-kafka-port", "bind", "http-port",
      "operator-port", "operator-bind", "admin-token", "seed",
      "rating-min", "rating-max", "completion-model", "max-ratings", "completion-runs",
      "completion-every-epochs", "completion-iterations", "completion-row-norm",
      "completion-nuclear-norm", "completion-solver", "completion-oja-steps",
      "completion-user-shrinkage", "completion-item-clip", "completion-offset",
      "local-mechanism");

  /**
   * The default of {@code epoch-idle-seconds} with {@code epoch-updates}: a non-empty epoch closes
   * once no record has been read for five minutes, long enough for a producer's pauses and
   * retries (Kafka's default delivery timeout is two minutes).
   */
  public static final double DEFAULT_EPOCH_IDLE_SECONDS = 300;

  private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,249}");

  /** One raw value and where it came from ("flag --rank", "env DPLRF_RANK", "file x.conf:3"). */
  record Raw(String value, Source source, String where) {}

  private final Map<String, Raw> raw;
  private final Map<String, String> shown;
  private final Mode mode;
  private final TreeSettings tree;
  private final LocalSettings local;
  private final CompletionSettings completion;
  private final double epsilon;
  private final double delta;
  private final OptionalLong epochUpdates;
  private final Optional<Duration> epochDuration;
  private final Duration epochIdle;
  private final double clip;
  private final Path stateDir;
  private final Path key;
  private final Optional<String> bootstrapServers;
  private final Map<String, Object> kafkaClientSettings;
  private final String topic;
  private final String deadLetterTopic;
  private final int partitions;
  private final int embeddedKafkaPort;
  private final String bind;
  private final int httpPort;
  private final int operatorPort;
  private final String operatorBind;
  private final Optional<String> adminToken;

  private ServiceConfig(Map<String, Raw> raw) {
    this.raw = raw;
    SettingParser parse = new SettingParser(raw);
    mode = parse.choice("mode", Mode.class, Mode.UPDATES);
    if (mode != Mode.COMPLETION) {
      for (String name : CompletionSettings.NAMES) {
        parse.refuse(name, "unset outside mode completion");
      }
    }
    if (mode == Mode.LOCAL || mode == Mode.COMPLETION) {
      parse.refuse("continual", "unset outside modes updates and rows (it chooses how the"
          + " continual release of their sketches is made)");
    }
    if (mode != Mode.LOCAL) {
      parse.refuse("local-mechanism", "unset outside mode local");
      parse.refuse("seed", "unset outside mode local (it is the public seed of local-DP PCA)");
    }
    // The mode's own settings first: a missing one is what a new user most likely forgot.
    tree = mode == Mode.UPDATES || mode == Mode.ROWS ? TreeSettings.parse(parse, mode == Mode.ROWS)
        : null;
    local = mode == Mode.LOCAL ? LocalSettings.parse(parse) : null;
    completion = mode == Mode.COMPLETION ? CompletionSettings.parse(parse) : null;

    epsilon = parse.number("epsilon", "> 0 and < infinity", x -> x > 0 && Double.isFinite(x), null);
    // local-robust is pure epsilon-LDP: what /v1/status and releases say.
    delta = local != null && local.robust() ? parse.derived("delta", 0.0)
        : parse.number("delta", "in the open interval (0, 1)", x -> x > 0 && x < 1, null);
    epochUpdates = parse.optionalPositiveLong("epoch-updates");
    // The ingest clock counts milliseconds: a shorter epoch cannot be honoured.
    double seconds = parse.optionalNumber("epoch-seconds", ">= 0.001 and < infinity",
        x -> x >= 0.001 && Double.isFinite(x));
    epochDuration = Double.isNaN(seconds) ? Optional.empty()
        : Optional.of(Duration.ofNanos(Math.round(seconds * 1e9)));
    // With epochs by count, a stream that ends inside an epoch would leave it unreleased: on by
    // default, it costs nothing while records keep coming (an empty epoch never closes by it).
    double idle = parse.number("epoch-idle-seconds", "0 (off) or >= 0.001, and < infinity",
        x -> (x == 0 || x >= 0.001) && Double.isFinite(x),
        epochUpdates.isPresent() ? DEFAULT_EPOCH_IDLE_SECONDS : 0.0);
    epochIdle = Duration.ofNanos(Math.round(idle * 1e9));
    // Mode completion: the declared rating scale bounds each rating (it refuses clip).
    clip = completion != null ? parse.derived("clip", completion.ratingBound())
        : parse.number("clip", "> 0 and < infinity", x -> x > 0 && Double.isFinite(x), 1.0);
    stateDir = parse.path("state-dir", "./state");
    key = parse.path("key", stateDir + "/secret.key");
    bootstrapServers = Optional.ofNullable(parse.string("bootstrap-servers", null,
        "a non-empty host:port list", s -> !s.isBlank()));
    Optional<Path> kafkaConfig = parse.optionalPath("kafka-config");
    topic = parse.string("topic", switch (mode) {
      case UPDATES -> "dplrf-updates";
      case ROWS -> "dplrf-rows";
      case LOCAL -> local.robust() ? "dplrf-local-robust-reports" : "dplrf-local-reports";
      case COMPLETION -> "dplrf-ratings";
    }, "a Kafka topic name ([A-Za-z0-9._-], at most 249 characters)",
        s -> TOPIC.matcher(s).matches());
    deadLetterTopic = parse.string("dead-letter-topic", topic + ".dead-letter",
        "a Kafka topic name ([A-Za-z0-9._-], at most 249 characters)",
        s -> TOPIC.matcher(s).matches());
    partitions = parse.intIn("partitions", 1, 1, 100_000);
    embeddedKafkaPort = parse.intIn("embedded-kafka-port", 9092, 0, 65535);
    bind = parse.string("bind", "127.0.0.1", "a non-empty address", s -> !s.isBlank());
    httpPort = parse.intIn("http-port", 8080, 0, 65535);
    operatorPort = parse.intIn("operator-port", 9464, 0, 65535);
    adminToken = Optional.ofNullable(parse.string("admin-token", null,
        "non-empty without whitespace", s -> !s.isEmpty() && !s.matches(".*\\s.*")));
    operatorBind = parse.string("operator-bind", bind, "a non-empty address", s -> !s.isBlank());
    // The operator endpoints' exact counts and checksum would let anyone who reaches them confirm
    // a guessed dataset: open to loopback only, or behind the token.
    if (adminToken.isEmpty() && !isLoopback(operatorBind)) {
      throw new ConfigException("the operator port (exact counts, not private) would listen on "
          + operatorBind + " without a token: set admin-token, or operator-bind 127.0.0.1");
    }
    shown = parse.shown();

    if (epochUpdates.isPresent() == epochDuration.isPresent()) {
      throw new ConfigException("exactly one of epoch-updates and epoch-seconds must be set. Provided: "
          + (epochUpdates.isPresent() ? "both (" + raw.get("epoch-updates").where() + ", "
              + raw.get("epoch-seconds").where() + ")" : "neither"));
    }
    if (!epochIdle.isZero() && epochDuration.isPresent()) {
      throw parse.invalid("epoch-idle-seconds", "0 (unset) with epoch-seconds (the clock closes"
          + " every epoch; the idle close is for epochs cut by epoch-updates)");
    }
    if (httpPort != 0 && httpPort == operatorPort) {
      throw parse.invalid("operator-port",
          "different from http-port (the operator endpoints need their own port)");
    }
    if (kafkaConfig.isPresent()) {
      if (bootstrapServers.isEmpty()) {
        throw parse.invalid("kafka-config", "given only with bootstrap-servers (the embedded broker"
            + " is plain-text on loopback and takes no client settings)");
      }
      kafkaClientSettings = KafkaClientSettings.load(kafkaConfig.get(),
          "kafka-config (" + raw.get("kafka-config").where() + ")");
    } else {
      kafkaClientSettings = Map.of();
    }
  }

  /**
   * Loads from command-line flags (from {@code argv[from]} on, {@code --config FILE} among them),
   * the given environment and the config file.
   */
  public static ServiceConfig load(String[] argv, int from, Map<String, String> env) {
    return new ServiceConfig(ConfigSources.read(argv, from, env));
  }

  /**
   * As {@link #load(String[], int, Map)}, for {@code dplrf plan}, which calibrates the modes with
   * a continual release (updates and rows) only: another mode is refused for what it is, before
   * its own settings are checked (a user asking for a plan of mode local should not be told that
   * rank must be unset).
   */
  public static ServiceConfig loadForPlan(String[] argv, int from, Map<String, String> env) {
    Map<String, Raw> raw = ConfigSources.read(argv, from, env);
    Mode mode = new SettingParser(raw).choice("mode", Mode.class, Mode.UPDATES);
    if (mode == Mode.LOCAL || mode == Mode.COMPLETION) {
      throw new IllegalArgumentException("plan covers modes updates and rows, whose noise the"
          + " service calibrates; in mode " + mode.name().toLowerCase(Locale.ROOT)
          + (mode == Mode.LOCAL
              ? " each client adds its own noise, set by the published protocol"
                  + " ('dplrf produce --help', mode local)"
              : " 'dplrf bench completion' measures the private model's error at each epsilon"
                  + " on real ratings"));
    }
    return new ServiceConfig(raw);
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

  public Mode mode() {
    return mode;
  }

  /**
   * Modes updates and rows: their settings.
   *
   * @throws IllegalStateException in another mode
   */
  public TreeSettings tree() {
    return modeSettings(tree, "updates or rows");
  }

  /** True in modes updates and rows: the ones with a continual release ({@link #tree}). */
  public boolean hasContinualRelease() {
    return tree != null;
  }

  /** Mode local: its settings. @throws IllegalStateException in another mode */
  public LocalSettings local() {
    return modeSettings(local, "local");
  }

  /** Mode completion: its settings. @throws IllegalStateException in another mode */
  public CompletionSettings completion() {
    return modeSettings(completion, "completion");
  }

  private <T> T modeSettings(T settings, String modes) {
    if (settings == null) {
      throw new IllegalStateException("the settings of mode " + modes + " in mode "
          + SettingParser.cliName(mode));
    }
    return settings;
  }

  public double epsilon() {
    return epsilon;
  }

  /** δ; 0 for the pure-ε mechanisms that take none (local-robust). */
  public double delta() {
    return delta;
  }

  /** Updates per epoch, when epochs are closed by count. */
  public OptionalLong epochUpdates() {
    return epochUpdates;
  }

  /** Length of an epoch, when epochs are closed by time. */
  public Optional<Duration> epochDuration() {
    return epochDuration;
  }

  /**
   * With {@code epoch-updates}: close an epoch that holds at least one update position once no
   * record has been read for this long; {@link Duration#ZERO} (the default): only at its count.
   */
  public Duration epochIdle() {
    return epochIdle;
  }

  /** C, the contribution bound of the mode's privacy unit. */
  public double clip() {
    return clip;
  }

  public Path stateDir() {
    return stateDir;
  }

  public Path key() {
    return key;
  }

  /** External Kafka; empty means: start the embedded broker. */
  public Optional<String> bootstrapServers() {
    return bootstrapServers;
  }

  /** {@code kafka-config}'s settings ({@link KafkaClientSettings}); empty without it. */
  public Map<String, Object> kafkaClientSettings() {
    return kafkaClientSettings;
  }

  public String topic() {
    return topic;
  }

  public String deadLetterTopic() {
    return deadLetterTopic;
  }

  /** Partitions of topics the service creates. */
  public int partitions() {
    return partitions;
  }

  public int embeddedKafkaPort() {
    return embeddedKafkaPort;
  }

  /** The address the public HTTP listener binds to (and the operator's, unless operator-bind). */
  public String bind() {
    return bind;
  }

  public int httpPort() {
    return httpPort;
  }

  public int operatorPort() {
    return operatorPort;
  }

  /**
   * The address the operator listener binds to: {@code bind} unless set. Anything but loopback
   * requires {@code admin-token} (checked at load).
   */
  public String operatorBind() {
    return operatorBind;
  }

  /** True if {@code host} names a loopback address; an unresolvable name is not loopback. */
  static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** The operator endpoints' bearer token; empty means they are open (bind them to loopback). */
  public Optional<String> adminToken() {
    return adminToken;
  }

  /** Where {@code name}'s value came from. */
  public Source source(String name) {
    if (!NAMES.contains(name)) {
      throw new IllegalArgumentException("unknown setting " + name);
    }
    Raw r = raw.get(name);
    return r == null ? Source.DEFAULT : r.source();
  }

  /** The settings the configured mode reads: the common ones and its own. */
  boolean reads(String name) {
    return COMMON.contains(name) || switch (mode) {
      case UPDATES, ROWS -> TreeSettings.NAMES.contains(name);
      case LOCAL -> LocalSettings.NAMES.contains(name);
      case COMPLETION -> CompletionSettings.READS.contains(name);
    };
  }

  /** {@code name}'s value as {@link #describe()} shows it; null if unset. */
  String shownValue(String name) {
    return shown.get(name);
  }

  /**
   * One line per setting the mode reads, "name = value (source)", for the startup log; the other
   * modes' settings are left out (they are refused when given), and {@code dplrf serve --help}
   * lists every setting. Never prints the token.
   */
  public String describe() {
    List<String> read = NAMES.stream().filter(this::reads).toList();
    StringBuilder b = new StringBuilder("settings of mode " + SettingParser.cliName(mode)
        + " (" + (NAMES.size() - read.size()) + " of other modes left out; dplrf serve --help"
        + " lists every setting):\n");
    int width = read.stream().mapToInt(String::length).max().orElse(0);
    for (String name : read) {
      String v = shown.get(name);
      String shownValue;
      if (name.equals("admin-token")) {
        shownValue = v == null ? "(none: operator endpoints are open)"
            : "(set, " + v.length() + " characters)";
      } else if (v == null) {
        shownValue = name.equals("bootstrap-servers") ? "(none: embedded broker)" : "(unset)";
      } else {
        shownValue = v;
      }
      Raw r = raw.get(name);
      b.append("  ").append(name).append(" ".repeat(width - name.length())).append(" = ")
          .append(shownValue).append("  (").append(r == null ? "default" : r.where())
          .append(")\n");
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return describe();
  }

  static {
    // Every name is read by some mode, and the describe order lists them all.
    List<String> all = Stream.of(COMMON, TreeSettings.NAMES, LocalSettings.NAMES,
        CompletionSettings.READS).flatMap(List::stream).distinct().toList();
    if (!NAMES.containsAll(all) || !all.containsAll(NAMES)) {
      throw new AssertionError("setting names out of step: " + all + " vs " + NAMES);
    }
  }
}
