package io.dplrf.deploy.config;

import io.dplrf.sketch.params.Mechanism;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceConfigTest {
  @TempDir Path dir;

  private static final String[] REQUIRED = {
      "--rows", "100", "--cols", "50", "--rank", "5", "--epsilon", "1", "--delta", "1e-6",
      "--epochs", "16", "--epoch-updates", "1000"};

  private Path file(String text) throws IOException {
    Path f = dir.resolve("dplrf.conf");
    Files.writeString(f, text);
    return f;
  }

  private static String[] with(String... extra) {
    String[] out = new String[REQUIRED.length + extra.length];
    System.arraycopy(REQUIRED, 0, out, 0, REQUIRED.length);
    System.arraycopy(extra, 0, out, REQUIRED.length, extra.length);
    return out;
  }

  @Test
  void defaults_areTheDocumentedOnes() {
    ServiceConfig c = ServiceConfig.load(REQUIRED, 0, Map.of());
    assertEquals(Mechanism.PRIV2_SPARSE, c.tree().mechanism());
    assertEquals(1.0, c.clip());
    assertEquals(TreeSettings.PrivacyUnit.UPDATE, c.tree().privacyUnit());
    assertEquals(Path.of("./state"), c.stateDir());
    assertEquals(Path.of("./state/secret.key"), c.key());
    assertTrue(c.bootstrapServers().isEmpty());
    assertEquals("dplrf-updates", c.topic());
    assertEquals("dplrf-updates.dead-letter", c.deadLetterTopic());
    assertEquals(8080, c.httpPort());
    assertEquals(9464, c.operatorPort());
    assertEquals(9092, c.embeddedKafkaPort());
    assertEquals(1, c.partitions());
    assertEquals("127.0.0.1", c.bind());
    assertTrue(c.adminToken().isEmpty());
    assertEquals(1000, c.epochUpdates().getAsLong());
    assertTrue(c.epochDuration().isEmpty());
    assertEquals(Duration.ofSeconds(300), c.epochIdle());
    assertEquals(Source.DEFAULT, c.source("topic"));
    assertEquals(Source.FLAG, c.source("rows"));
  }

  @Test
  void precedence_flagBeatsEnvBeatsFileBeatsDefault() throws IOException {
    Path f = file("""
        # a comment
        epsilon = 0.5
        delta: 1e-7
        topic = from-file
        clip = 3

        http-port = 1111
        """);
    Map<String, String> env = Map.of("DPLRF_DELTA", "1e-8", "DPLRF_TOPIC", "from-env",
        "DPLRF_HTTP_PORT", "2222", "DPLRF_STATE_DIR", "/tmp/s");
    ServiceConfig c = ServiceConfig.load(new String[] {"--config", f.toString(),
        "--rows", "10", "--cols", "10", "--rank", "2", "--epochs", "4", "--epoch-seconds", "0.5",
        "--http-port", "3333"}, 0, env);
    assertEquals(0.5, c.epsilon());
    assertEquals(Source.FILE, c.source("epsilon"));
    assertEquals(1e-8, c.delta());
    assertEquals(Source.ENV, c.source("delta"));
    assertEquals("from-env", c.topic());
    assertEquals("from-env.dead-letter", c.deadLetterTopic(), "derived default follows the topic");
    assertEquals(3333, c.httpPort());
    assertEquals(Source.FLAG, c.source("http-port"));
    assertEquals(3.0, c.clip());
    assertEquals(Path.of("/tmp/s/secret.key"), c.key());
    assertEquals(Duration.ofMillis(500), c.epochDuration().orElseThrow());
    String d = c.describe();
    assertTrue(d.contains("http-port") && d.contains("3333") && d.contains("flag --http-port"), d);
    assertTrue(d.contains("env DPLRF_DELTA"), d);
    assertTrue(d.contains("dplrf.conf:2"), d);
    assertTrue(d.contains("(default)"), d);
    for (String name : ServiceConfig.NAMES) {
      assertEquals(c.reads(name), d.contains("\n  " + name + " "),
          "describe lists " + name + " if and only if the mode reads it: " + d);
    }
    assertTrue(d.startsWith("settings of mode updates (16 of other modes left out; dplrf serve"
        + " --help lists every setting):\n"), d);
    assertFalse(d.contains("not used in mode"), d);
    assertTrue(d.lines().count() <= 35, "the mode's settings only: " + d);
  }

  @Test
  void configFile_fromEnvWhenNoFlag_andEmptyEnvCountsAsUnset() throws IOException {
    Path f = file("topic = t1\n");
    ServiceConfig c = ServiceConfig.load(REQUIRED, 0,
        Map.of("DPLRF_CONFIG", f.toString(), "DPLRF_BOOTSTRAP_SERVERS", ""));
    assertEquals("t1", c.topic());
    assertTrue(c.bootstrapServers().isEmpty());
  }

  @Test
  void kafkaConfig_isLoadedWithBootstrapServers_refusedWithout_andItsValuesNeverDescribed()
      throws IOException {
    Path props = dir.resolve("client.properties");
    Files.writeString(props, "security.protocol=SASL_SSL\nsasl.jaas.config=... password=\"hunter2\";\n");
    ServiceConfig c = ServiceConfig.load(with("--bootstrap-servers", "kafka:9092",
        "--kafka-config", props.toString()), 0, Map.of());
    assertEquals(Map.of("security.protocol", "SASL_SSL",
        "sasl.jaas.config", "... password=\"hunter2\";"), c.kafkaClientSettings());
    assertTrue(c.describe().contains(props.toString()), c.describe());
    assertFalse(c.describe().contains("hunter2"));
    assertEquals(Map.of(), ServiceConfig.load(REQUIRED, 0, Map.of()).kafkaClientSettings());

    ConfigException e = assertThrows(ConfigException.class, () -> ServiceConfig.load(
        with("--kafka-config", props.toString()), 0, Map.of()));
    assertTrue(e.getMessage().contains("kafka-config") && e.getMessage().contains("bootstrap-servers"),
        e.getMessage());
    e = assertThrows(ConfigException.class, () -> ServiceConfig.load(new String[0], 0,
        Map.of("DPLRF_BOOTSTRAP_SERVERS", "kafka:9092", "DPLRF_KAFKA_CONFIG",
            dir.resolve("missing.properties").toString(), "DPLRF_ROWS", "100", "DPLRF_COLS", "50",
            "DPLRF_RANK", "5", "DPLRF_EPSILON", "1", "DPLRF_DELTA", "1e-6", "DPLRF_EPOCHS", "16",
            "DPLRF_EPOCH_UPDATES", "1000")));
    assertTrue(e.getMessage().contains("missing.properties")
        && e.getMessage().contains("env DPLRF_KAFKA_CONFIG"), e.getMessage());
  }

  /**
   * The operator endpoints' exact counts and checksum confirm a guessed dataset: on a public
   * address they need the token, unless the operator listener alone is bound to loopback.
   */
  @Test
  void publicBindWithoutToken_isRefusedInOneLineNamingTheSettings() {
    for (String[] args : List.of(with("--bind", "0.0.0.0"),
        with("--operator-bind", "0.0.0.0"), with("--bind", "127.0.0.1", "--operator-bind", "::"))) {
      ConfigException e = assertThrows(ConfigException.class,
          () -> ServiceConfig.load(args, 0, Map.of()), String.join(" ", args));
      assertEquals(1, e.getMessage().lines().count(), e.getMessage());
      assertTrue(e.getMessage().contains("admin-token") && e.getMessage().contains("operator-bind"),
          e.getMessage());
    }
  }

  @Test
  void publicBind_startsWithATokenOrWithTheOperatorPortOnLoopback() {
    ServiceConfig token = ServiceConfig.load(with("--bind", "0.0.0.0", "--admin-token", "t0k3n"),
        0, Map.of());
    assertEquals("0.0.0.0", token.operatorBind(), "operator-bind defaults to bind");
    ServiceConfig split = ServiceConfig.load(with("--bind", "0.0.0.0", "--operator-bind",
        "127.0.0.1"), 0, Map.of());
    assertEquals("0.0.0.0", split.bind());
    assertEquals("127.0.0.1", split.operatorBind());
    assertTrue(split.adminToken().isEmpty());
    assertEquals("127.0.0.1", ServiceConfig.load(with(), 0, Map.of()).operatorBind(),
        "the default binds everything to loopback");
  }

  @Test
  void adminToken_isNeverDescribed() {
    ServiceConfig c = ServiceConfig.load(with("--admin-token", "s3cr3t-token"), 0, Map.of());
    assertEquals("s3cr3t-token", c.adminToken().orElseThrow());
    assertFalse(c.describe().contains("s3cr3t"));
  }

  @Test
  void unknownKeyInFile_isAnErrorNamingTheLine() throws IOException {
    Path f = file("epsilon = 1\n\nepsilom = 2\n");
    ConfigException e = assertThrows(ConfigException.class,
        () -> ServiceConfig.load(f, Map.of(), Map.of()));
    assertTrue(e.getMessage().contains("dplrf.conf:3") && e.getMessage().contains("epsilom"), e.getMessage());
  }

  @Test
  void malformedAndDuplicateLines_areErrorsNamingTheLine() throws IOException {
    Path f = file("epsilon 1\n");
    assertTrue(assertThrows(ConfigException.class, () -> ServiceConfig.load(f, Map.of(), Map.of()))
        .getMessage().contains("dplrf.conf:1"));
    Path g = file("epsilon = 1\nepsilon = 2\n");
    assertTrue(assertThrows(ConfigException.class, () -> ServiceConfig.load(g, Map.of(), Map.of()))
        .getMessage().contains("dplrf.conf:2"));
  }

  @Test
  void unknownFlag_isAnErrorNamingTheFlag() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> ServiceConfig.load(with("--http-prot", "1"), 0, Map.of()));
    assertEquals("unknown setting in flag --http-prot (did you mean --http-port?) ('dplrf serve"
        + " --help' lists every setting)", e.getMessage());
    assertThrows(ConfigException.class, () -> ServiceConfig.load(with("--rank", "3"), 0, Map.of()));
    assertThrows(ConfigException.class, () -> ServiceConfig.load(with("--topic"), 0, Map.of()));
  }

  @Test
  void unknownDplrfEnvironmentVariables_areIgnored() {
    ServiceConfig c = ServiceConfig.load(REQUIRED, 0, Map.of("DPLRF_HOME", "/opt/dplrf"));
    assertEquals(5, c.tree().rank());
  }

  @Test
  void invalidValues_useTheProjectMessageShapeAndNameTheSource() {
    assertEquals("epsilon must be > 0 and < infinity. Provided value: x (env DPLRF_EPSILON)",
        assertThrows(ConfigException.class, () -> ServiceConfig.load(
            new String[] {"--rows", "1", "--cols", "1", "--rank", "1", "--delta", "0.1",
                "--epochs", "1", "--epoch-updates", "1"}, 0, Map.of("DPLRF_EPSILON", "x"))).getMessage());
    assertMessage("epsilon must be > 0 and < infinity. Provided value: Infinity (flag --epsilon)",
        "--epsilon", "Infinity");
    assertMessage("delta must be in the open interval (0, 1). Provided value: 1 (flag --delta)",
        "--delta", "1");
    assertMessage("mechanism must be one of priv1, priv2, priv2-sparse, robust-lra, robust-pca. "
        + "Provided value: dense (flag --mechanism)", "--mechanism", "dense");
    assertMessage("p must be 1: only robust-lra, robust-pca and local-robust take p. Provided value: 1.5 (flag --p)",
        "--p", "1.5");
    assertMessage("rows must be an integer >= 1. Provided value: 0 (flag --rows)", "--rows", "0");
    assertMessage("http-port must be an integer in [0, 65535]. Provided value: 70000 (flag --http-port)",
        "--http-port", "70000");
    assertMessage("clip must be > 0 and < infinity. Provided value: -1 (flag --clip)", "--clip", "-1");
    assertMessage("privacy-unit must be one of update, key, row. Provided value: user (flag --privacy-unit)",
        "--privacy-unit", "user");
    assertMessage("rank must be <= min(rows, cols) = 50. Provided value: 60 (flag --rank)", "--rank", "60");
  }

  @Test
  void robustMechanisms_takeP_inOneToTwo() {
    String[] lra = with("--mechanism", "robust-lra");
    ServiceConfig c = ServiceConfig.load(lra, 0, Map.of("DPLRF_P", "1.5"));
    assertEquals(Mechanism.ROBUST_LRA, c.tree().mechanism());
    assertEquals(1.5, c.tree().p());
    assertEquals(1.0, ServiceConfig.load(with("--mechanism", "robust-pca"), 0, Map.of()).tree().p());
    for (String bad : new String[] {"2", "0.9"}) {
      assertEquals("p must be in [1, 2) (the robust mechanisms' l_p exponent). Provided value: "
          + bad + " (env DPLRF_P)", assertThrows(ConfigException.class,
              () -> ServiceConfig.load(lra, 0, Map.of("DPLRF_P", bad))).getMessage());
    }
  }

  private static void assertMessage(String expected, String flag, String value) {
    String[] args = REQUIRED.clone();
    boolean replaced = false;
    for (int x = 0; x < args.length; x += 2) {
      if (args[x].equals(flag)) {
        args[x + 1] = value;
        replaced = true;
      }
    }
    String[] finalArgs = replaced ? args : with(flag, value);
    assertEquals(expected, assertThrows(ConfigException.class,
        () -> ServiceConfig.load(finalArgs, 0, Map.of())).getMessage());
  }

  @Test
  void epochLength_needsExactlyOneOfUpdatesAndSeconds() {
    assertTrue(assertThrows(ConfigException.class,
        () -> ServiceConfig.load(with("--epoch-seconds", "60"), 0, Map.of())).getMessage()
        .startsWith("exactly one of epoch-updates and epoch-seconds must be set. Provided: both"));
    String[] none = java.util.Arrays.copyOf(REQUIRED, REQUIRED.length - 2);
    assertTrue(assertThrows(ConfigException.class, () -> ServiceConfig.load(none, 0, Map.of()))
        .getMessage().endsWith("Provided: neither"));
  }

  @Test
  void epochSeconds_fractionsDownToAMillisecond_areKeptExactly() {
    String[] byTime = java.util.Arrays.copyOf(REQUIRED, REQUIRED.length - 2);
    String[] args = java.util.Arrays.copyOf(byTime, byTime.length + 2);
    args[byTime.length] = "--epoch-seconds";
    for (var c : Map.of("1.5", Duration.ofMillis(1500), "0.25", Duration.ofMillis(250),
        "0.001", Duration.ofMillis(1), "3600", Duration.ofHours(1)).entrySet()) {
      args[byTime.length + 1] = c.getKey();
      assertEquals(c.getValue(), ServiceConfig.load(args, 0, Map.of()).epochDuration().orElseThrow());
    }
    args[byTime.length + 1] = "0.0005";
    assertEquals("epoch-seconds must be >= 0.001 and < infinity. Provided value: 0.0005 (flag"
        + " --epoch-seconds)", assertThrows(ConfigException.class,
            () -> ServiceConfig.load(args, 0, Map.of())).getMessage());
  }

  @Test
  void epochIdleSeconds_isOnByDefaultWithEpochsByCount_andOffWithEpochsByTheClock() {
    // A stream that ends inside an epoch cut by count is released without a setting of its own.
    assertEquals(Duration.ofSeconds(300), ServiceConfig.load(REQUIRED, 0, Map.of()).epochIdle());
    String[] byTime = REQUIRED.clone();
    byTime[REQUIRED.length - 2] = "--epoch-seconds";
    byTime[REQUIRED.length - 1] = "60";
    assertEquals(Duration.ZERO, ServiceConfig.load(byTime, 0, Map.of()).epochIdle());
  }

  @Test
  void epochIdleSeconds_closesPartialEpochsByCount_andIsRefusedWithEpochSeconds() {
    assertEquals(Duration.ofMillis(2500), ServiceConfig.load(with("--epoch-idle-seconds", "2.5"),
        0, Map.of()).epochIdle());
    assertEquals(Duration.ZERO, ServiceConfig.load(with("--epoch-idle-seconds", "0"), 0, Map.of())
        .epochIdle());
    assertEquals("epoch-idle-seconds must be 0 (off) or >= 0.001, and < infinity. Provided value:"
        + " -1 (flag --epoch-idle-seconds)", assertThrows(ConfigException.class,
            () -> ServiceConfig.load(with("--epoch-idle-seconds", "-1"), 0, Map.of())).getMessage());
    String[] byTime = java.util.Arrays.copyOf(REQUIRED, REQUIRED.length + 2);
    byTime[REQUIRED.length - 2] = "--epoch-seconds";
    byTime[REQUIRED.length - 1] = "60";
    byTime[REQUIRED.length] = "--epoch-idle-seconds";
    byTime[REQUIRED.length + 1] = "30";
    assertTrue(assertThrows(ConfigException.class, () -> ServiceConfig.load(byTime, 0, Map.of()))
        .getMessage().startsWith("epoch-idle-seconds must be 0 (unset) with epoch-seconds"));
  }

  @Test
  void missingRequiredSetting_namesAllThreeWaysToGiveIt() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> ServiceConfig.load(new String[0], 0, Map.of()));
    assertEquals("missing required setting rows: give --rows, DPLRF_ROWS or a 'rows = ...' line in "
        + "the config file", e.getMessage());
  }

  @Test
  void samePortForHttpAndOperator_isRejected() {
    assertThrows(ConfigException.class,
        () -> ServiceConfig.load(with("--http-port", "9000", "--operator-port", "9000"), 0, Map.of()));
    ServiceConfig both0 = ServiceConfig.load(with("--http-port", "0", "--operator-port", "0"), 0, Map.of());
    assertEquals(0, both0.httpPort());
  }

  private static final String[] ROWS_MODE = {
      "--mode", "rows", "--cols", "50", "--rank", "5", "--epsilon", "1", "--delta", "1e-6",
      "--epochs", "16", "--epoch-updates", "1000"};

  @Test
  void modeRows_defaultsToTheRowsTopic_andReleasesTheColsByColsMatrix() {
    ServiceConfig c = ServiceConfig.load(ROWS_MODE, 0, Map.of());
    assertEquals(ServiceConfig.Mode.ROWS, c.mode());
    assertEquals("dplrf-rows", c.topic());
    assertEquals("dplrf-rows.dead-letter", c.deadLetterTopic());
    assertEquals(50, c.tree().rows(), "AᵀA is d x d");
    assertEquals(ServiceConfig.Mode.UPDATES, ServiceConfig.load(REQUIRED, 0, Map.of()).mode());
    assertTrue(c.describe().contains("  mode "), c.describe());
  }

  @Test
  void modeRows_refusesSettingsThatHaveNoMeaningThere() {
    for (String[] extra : new String[][] {{"--rows", "100"}, {"--privacy-unit", "key"},
        {"--budget-policy", "drop"}, {"--mechanism", "priv1"}, {"--mechanism", "priv2-sparse"}}) {
      String[] args = java.util.Arrays.copyOf(ROWS_MODE, ROWS_MODE.length + 2);
      args[ROWS_MODE.length] = extra[0];
      args[ROWS_MODE.length + 1] = extra[1];
      ConfigException e = assertThrows(ConfigException.class,
          () -> ServiceConfig.load(args, 0, Map.of()));
      assertTrue(e.getMessage().startsWith(extra[0].substring(2) + " must be "), e.getMessage());
      assertTrue(e.getMessage().contains("mode rows"), e.getMessage());
    }
  }

  /**
   * continual: the factorization by default where its proof holds (priv2 and priv2-sparse in mode
   * updates, every unit), the tree by choice; refused where only the tree is calibrated (priv1,
   * the robust mechanisms, mode rows) and outside the continual modes.
   */
  @Test
  void continual_defaultsToTheFactorizationWhereItIsProved_andTheTreeElsewhere() {
    assertEquals(TreeSettings.Continual.FACTORIZATION,
        ServiceConfig.load(REQUIRED, 0, Map.of()).tree().continual());
    assertEquals(TreeSettings.Continual.FACTORIZATION, ServiceConfig.load(with("--mechanism",
        "priv2", "--privacy-unit", "key"), 0, Map.of()).tree().continual());
    assertEquals(TreeSettings.Continual.TREE,
        ServiceConfig.load(with("--continual", "tree"), 0, Map.of()).tree().continual());
    assertEquals(TreeSettings.Continual.TREE,
        ServiceConfig.load(with("--mechanism", "priv1"), 0, Map.of()).tree().continual());
    assertEquals(TreeSettings.Continual.TREE,
        ServiceConfig.load(ROWS_MODE, 0, Map.of()).tree().continual());
    for (String[] extra : new String[][] {{"--mechanism", "priv1"}, {"--mechanism",
        "robust-lra"}}) {
      ConfigException e = assertThrows(ConfigException.class, () -> ServiceConfig.load(
          with(extra[0], extra[1], "--continual", "factorization"), 0, Map.of()));
      assertTrue(e.getMessage().startsWith("continual must be tree with mechanism " + extra[1]),
          e.getMessage());
    }
    String[] rows = java.util.Arrays.copyOf(ROWS_MODE, ROWS_MODE.length + 2);
    rows[ROWS_MODE.length] = "--continual";
    rows[ROWS_MODE.length + 1] = "factorization";
    assertTrue(assertThrows(ConfigException.class, () -> ServiceConfig.load(rows, 0, Map.of()))
        .getMessage().startsWith("continual must be tree in mode rows"));
    assertTrue(assertThrows(ConfigException.class, () -> ServiceConfig.load(
        completion("--continual", "tree"), 0, Map.of())).getMessage()
        .startsWith("continual must be unset outside modes updates and rows"));
  }

  @Test
  void modeRows_rankAboveCols_isRejected() {
    String[] args = ROWS_MODE.clone();
    args[5] = "51";
    assertThrows(ConfigException.class, () -> ServiceConfig.load(args, 0, Map.of()));
  }

  private static final String[] LOCAL_MODE = {
      "--mode", "local", "--cols", "64", "--rank", "10", "--epsilon", "1", "--delta", "1e-6",
      "--epochs", "16", "--epoch-updates", "1000"};

  private static String[] local(String... extra) {
    String[] args = java.util.Arrays.copyOf(LOCAL_MODE, LOCAL_MODE.length + extra.length);
    System.arraycopy(extra, 0, args, LOCAL_MODE.length, extra.length);
    return args;
  }

  @Test
  void modeLocal_defaultsToTheReportsTopic_andTheOfflineSketchWidth() {
    ServiceConfig c = ServiceConfig.load(LOCAL_MODE, 0, Map.of());
    assertEquals(ServiceConfig.Mode.LOCAL, c.mode());
    assertEquals("dplrf-local-reports", c.topic());
    assertEquals("dplrf-local-reports.dead-letter", c.deadLetterTopic());
    assertEquals(64, c.local().rows());
    assertEquals(64, c.local().localSketchCols(), "t = d at d = 64, k = 10, as dplrf pca --mechanism local");
    assertTrue(c.local().seed().isEmpty());
    String hex = "ab".repeat(32);
    assertEquals(hex, ServiceConfig.load(local("--seed", hex), 0, Map.of()).local().seed().get().toString());
    assertEquals(20, ServiceConfig.load(local("--sketch-cols", "20"), 0, Map.of()).local().localSketchCols());
  }

  @Test
  void modeLocal_refusesSettingsThatHaveNoMeaningThere() {
    for (String[] extra : new String[][] {{"--rows", "100"}, {"--privacy-unit", "key"},
        {"--budget-policy", "drop"}, {"--mechanism", "priv2"}, {"--sketch-rows", "40"},
        {"--alpha", "0.5"}, {"--key", "/tmp/k"}}) {
      ConfigException e = assertThrows(ConfigException.class,
          () -> ServiceConfig.load(local(extra), 0, Map.of()));
      assertTrue(e.getMessage().startsWith(extra[0].substring(2) + " must be "), e.getMessage());
      assertTrue(e.getMessage().contains("mode local"), e.getMessage());
    }
  }

  @Test
  void modeLocal_badSeedOrSketchWidth_isRejected_andSeedOutsideLocal_too() {
    assertThrows(ConfigException.class, () -> ServiceConfig.load(local("--seed", "abc"), 0, Map.of()));
    assertThrows(ConfigException.class,
        () -> ServiceConfig.load(local("--sketch-cols", "65"), 0, Map.of()));
    assertThrows(ConfigException.class,
        () -> ServiceConfig.load(local("--sketch-cols", "9"), 0, Map.of()), "rank 10 > t = 9");
    ConfigException e = assertThrows(ConfigException.class,
        () -> ServiceConfig.load(with("--seed", "ab".repeat(32)), 0, Map.of()));
    assertTrue(e.getMessage().contains("mode local"), e.getMessage());
  }

  private static final String[] LOCAL_ROBUST = {
      "--mode", "local", "--local-mechanism", "local-robust", "--rows", "500", "--cols", "20",
      "--rank", "3", "--epsilon", "2", "--epochs", "8", "--epoch-seconds", "5"};

  private static String[] localRobust(String... extra) {
    String[] args = java.util.Arrays.copyOf(LOCAL_ROBUST, LOCAL_ROBUST.length + extra.length);
    System.arraycopy(extra, 0, args, LOCAL_ROBUST.length, extra.length);
    return args;
  }

  @Test
  void localRobust_takesUserSlotsSketchSizesAndP_hasNoDelta_andItsOwnTopic() {
    ServiceConfig c = ServiceConfig.load(LOCAL_ROBUST, 0, Map.of());
    assertEquals(Mechanism.LOCAL_ROBUST, c.local().mechanism());
    assertTrue(c.local().robust());
    assertEquals(500, c.local().rows(), "m user slots");
    assertEquals(0.0, c.delta(), "pure epsilon-LDP");
    assertEquals(1.0, c.local().p());
    assertEquals("dplrf-local-robust-reports", c.topic());
    ServiceConfig sized = ServiceConfig.load(localRobust("--sketch-cols", "6", "--sketch-rows",
        "12", "--p", "1.5"), 0, Map.of());
    assertEquals(6, sized.local().sketchCols().getAsInt());
    assertEquals(12, sized.local().sketchRows().getAsInt());
    assertEquals(1.5, sized.local().p());
    ServiceConfig plain = ServiceConfig.load(LOCAL_MODE, 0, Map.of());
    assertEquals(Mechanism.LOCAL, plain.local().mechanism());
    assertFalse(plain.local().robust());
  }

  @Test
  void localRobust_refusesDeltaAndSettingsWithoutMeaning_andNeedsRows() {
    for (String[] extra : new String[][] {{"--delta", "1e-6"}, {"--privacy-unit", "key"},
        {"--mechanism", "robust-pca"}, {"--alpha", "0.5"}, {"--key", "/tmp/k"}}) {
      ConfigException e = assertThrows(ConfigException.class,
          () -> ServiceConfig.load(localRobust(extra), 0, Map.of()));
      assertTrue(e.getMessage().startsWith(extra[0].substring(2) + " must be "), e.getMessage());
      assertTrue(e.getMessage().contains("local-robust"), e.getMessage());
    }
    String[] noRows = {"--mode", "local", "--local-mechanism", "local-robust", "--cols", "20",
        "--rank", "3", "--epsilon", "2", "--epochs", "8", "--epoch-seconds", "5"};
    assertThrows(ConfigException.class, () -> ServiceConfig.load(noRows, 0, Map.of()));
    assertThrows(ConfigException.class, () -> ServiceConfig.load(localRobust("--p", "2"), 0,
        Map.of()));
    assertThrows(ConfigException.class, () -> ServiceConfig.load(localRobust("--sketch-cols",
        "21"), 0, Map.of()), "t <= d");
    ConfigException other = assertThrows(ConfigException.class,
        () -> ServiceConfig.load(local("--local-mechanism", "robust"), 0, Map.of()));
    assertTrue(other.getMessage().contains("local, local-robust"), other.getMessage());
    ConfigException outside = assertThrows(ConfigException.class,
        () -> ServiceConfig.load(with("--local-mechanism", "local"), 0, Map.of()));
    assertTrue(outside.getMessage().contains("outside mode local"), outside.getMessage());
  }

  private static String[] completion(String... extra) {
    String[] base = {"--mode", "completion", "--rows", "1000", "--cols", "400", "--epsilon", "1",
        "--delta", "1e-6", "--epoch-seconds", "60", "--rating-min", "0.5", "--rating-max", "5"};
    String[] out = new String[base.length + extra.length];
    System.arraycopy(base, 0, out, 0, base.length);
    System.arraycopy(extra, 0, out, base.length, extra.length);
    return out;
  }

  @Test
  void completionMode_defaultsAndSettings() {
    ServiceConfig c = ServiceConfig.load(completion(), 0, Map.of());
    assertEquals(ServiceConfig.Mode.COMPLETION, c.mode());
    assertEquals("dplrf-ratings", c.topic());
    assertEquals(80, c.completion().maxRatings(), "the paper's xi");
    assertEquals(10, c.completion().runs());
    assertEquals(0, c.completion().everyEpochs(), "on demand only by default");
    assertTrue(c.completion().iterations().isEmpty());
    assertTrue(Double.isNaN(c.completion().rowNorm()));
    assertTrue(Double.isNaN(c.completion().nuclearNorm()));
    assertEquals(CompletionSettings.Model.BIASED, c.completion().model(), "complete's default");
    assertTrue(c.completion().userShrinkage().isEmpty(), "lambda_u estimated privately");
    assertTrue(Double.isNaN(c.completion().itemClip()), "tau: the model's default");
    assertEquals(5.0, c.clip(), "the per-rating bound is max(|rating-min|, |rating-max|)");
    ServiceConfig fw = ServiceConfig.load(completion("--completion-model", "fw"), 0, Map.of());
    assertEquals(2.75, fw.completion().offset(), "fw centres on the scale's midpoint");
    ServiceConfig d = ServiceConfig.load(completion("--max-ratings", "20", "--completion-runs",
        "3", "--completion-every-epochs", "4", "--completion-iterations", "12",
        "--completion-row-norm", "7.5", "--completion-nuclear-norm", "300"), 0, Map.of());
    assertEquals(20, d.completion().maxRatings());
    assertEquals(3, d.completion().runs());
    assertEquals(4, d.completion().everyEpochs());
    assertEquals(12, d.completion().iterations().getAsInt());
    assertEquals(7.5, d.completion().rowNorm());
    assertEquals(300, d.completion().nuclearNorm());
  }

  @Test
  void completionMode_refusesTheTreeSettings_andOtherModesRefuseCompletionSettings() {
    for (String[] extra : new String[][] {{"--rank", "5"}, {"--epochs", "4"},
        {"--privacy-unit", "key"}, {"--mechanism", "priv1"}, {"--sketch-cols", "10"}}) {
      ConfigException e = assertThrows(ConfigException.class,
          () -> ServiceConfig.load(completion(extra), 0, Map.of()), extra[0]);
      assertTrue(e.getMessage().contains("unset in mode completion"), e.getMessage());
    }
    ConfigException e = assertThrows(ConfigException.class,
        () -> ServiceConfig.load(with("--max-ratings", "20"), 0, Map.of()));
    assertTrue(e.getMessage().contains("unset outside mode completion"), e.getMessage());
    assertThrows(ConfigException.class,
        () -> ServiceConfig.load(completion("--max-ratings", "0"), 0, Map.of()));
    assertThrows(ConfigException.class,
        () -> ServiceConfig.load(completion("--completion-runs", "0"), 0, Map.of()));
    assertThrows(ConfigException.class,
        () -> ServiceConfig.load(completion("--completion-row-norm", "-1"), 0, Map.of()));
  }

  @Test
  void completionMode_needsTheDeclaredScale_andRefusesSettingsOfTheOtherModel() {
    String[] noScale = {"--mode", "completion", "--rows", "10", "--cols", "4", "--epsilon", "1",
        "--delta", "1e-6", "--epoch-seconds", "60"};
    ConfigException missing = assertThrows(ConfigException.class,
        () -> ServiceConfig.load(noScale, 0, Map.of()));
    assertTrue(missing.getMessage().contains("rating-min"), missing.getMessage());
    String[] invertedScale = Arrays.copyOf(noScale, noScale.length + 4);
    System.arraycopy(new String[] {"--rating-min", "5", "--rating-max", "1"}, 0, invertedScale,
        noScale.length, 4);
    ConfigException inverted = assertThrows(ConfigException.class,
        () -> ServiceConfig.load(invertedScale, 0, Map.of()));
    assertTrue(inverted.getMessage().contains("rating-max"), inverted.getMessage());
    for (String[] extra : new String[][] {{"--clip", "5"}, {"--completion-offset", "3"},
        {"--completion-model", "fw", "--completion-item-clip", "1"},
        {"--completion-model", "fw", "--completion-user-shrinkage", "2"},
        {"--completion-oja-steps", "10"}}) {
      assertThrows(ConfigException.class,
          () -> ServiceConfig.load(completion(extra), 0, Map.of()), String.join(" ", extra));
    }
    ConfigException shrinkage = assertThrows(ConfigException.class, () -> ServiceConfig.load(
        completion("--completion-user-shrinkage", "-1"), 0, Map.of()));
    assertTrue(shrinkage.getMessage().contains("auto"), shrinkage.getMessage());
    ServiceConfig fixed = ServiceConfig.load(completion("--completion-user-shrinkage", "2",
        "--completion-item-clip", "0.75"), 0, Map.of());
    assertEquals(2.0, fixed.completion().userShrinkage().getAsDouble());
    assertEquals(0.75, fixed.completion().itemClip());
  }
}
