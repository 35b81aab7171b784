package io.dplrf.it;

import static io.dplrf.it.RepoFiles.list;
import static io.dplrf.it.RepoFiles.map;
import static io.dplrf.it.RepoFiles.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.it.Compose.Mount;
import io.dplrf.it.Compose.Port;
import io.dplrf.it.Dashboard.Panel;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;

/**
 * docker-compose.yml and the files it mounts (deploy/prometheus, deploy/grafana) agree with each
 * other and with the service: settings are real dplrf settings and their defaults make a valid
 * configuration, ports and volumes are where the service listens and writes, the non-private
 * operator port stays on loopback, the start order waits on real health checks, Prometheus
 * scrapes the dplrf service's operator port and Grafana's dashboard uses the provisioned data
 * source. Nothing here needs Docker; {@link DashboardMetricsIT} checks the dashboard's metric
 * names against a running service.
 */
class ComposeFilesTest {
  private static final String DPLRF = "dplrf";
  private static final String PROMETHEUS_YML = "deploy/prometheus/prometheus.yml";
  static final String ALERTS_YML = "deploy/prometheus/alerts.yml";
  private static final String DATASOURCES_YML = "deploy/grafana/provisioning/datasources/prometheus.yml";
  private static final String DASHBOARDS_YML = "deploy/grafana/provisioning/dashboards/dplrf.yml";

  private final Compose compose = Compose.load();

  /** The token the tests put in the shell: compose requires DPLRF_ADMIN_TOKEN. */
  private static final String TOKEN = "compose-test-token";

  /** The service's settings as compose starts it, with the given shell environment and TOKEN. */
  private ServiceConfig dplrfConfig(Map<String, String> shell) {
    Map<String, String> withToken = new LinkedHashMap<>(shell);
    withToken.putIfAbsent("DPLRF_ADMIN_TOKEN", TOKEN);
    return ServiceConfig.load(null, compose.environment(DPLRF, withToken), Map.of());
  }

  @Test
  void services_kafkaDplrfPrometheusGrafana_exist_withPinnedImages() throws Exception {
    for (String s : List.of("kafka", DPLRF, "prometheus", "grafana")) {
      assertTrue(compose.services.containsKey(s), "service " + s + " in " + Compose.PATH);
    }
    assertEquals("dplrf:latest", string(compose.service(DPLRF), "image", compose.where(DPLRF)),
        "the image `docker load -i image/target/jib-image.tar` loads");
    assertEquals("apache/kafka:" + pomProperty("kafka.version"),
        string(compose.service("kafka"), "image", compose.where("kafka")),
        "the broker is the Kafka version dplrf is built and tested against (kafka.version in pom.xml)");
    for (String s : compose.services.keySet()) {
      String image = string(compose.service(s), "image", compose.where(s));
      if (!s.equals(DPLRF)) {
        assertTrue(image.matches("[^:]+:[0-9v][^:]*") && !image.endsWith(":latest"),
            compose.where(s) + ".image must be pinned to a version tag: " + image);
      }
    }
  }

  @Test
  void dplrf_publishesThePublicPort_andTheNonPrivateOnesOnLoopbackOnly() {
    ServiceConfig config = dplrfConfig(Map.of());
    List<Port> ports = compose.ports(DPLRF);
    assertTrue(ports.stream().anyMatch(p -> p.containerPort() == config.httpPort()
        && String.valueOf(config.httpPort()).equals(p.hostPort())),
        "public port " + config.httpPort() + " published on the host: " + ports);
    List<Port> operator = ports.stream().filter(p -> p.containerPort() == config.operatorPort()).toList();
    assertFalse(operator.isEmpty(), "operator port " + config.operatorPort() + " published: " + ports);
    for (Port p : operator) {
      assertEquals("127.0.0.1", p.hostIp(), "operator port (exact counts, not private) on loopback only: " + p);
    }
    // Prometheus and Grafana hold the same exact counts; the broker has no authentication.
    for (String s : List.of("kafka", "prometheus", "grafana")) {
      for (Port p : compose.ports(s)) {
        assertEquals("127.0.0.1", p.hostIp(), compose.where(s) + ": publish on loopback only: " + p);
      }
    }
  }

  @Test
  void dplrf_environment_namesRealSettings_andItsDefaultsMakeAValidConfig() {
    Set<String> unknown = new TreeSet<>();
    Map<String, String> raw = compose.rawEnvironment(DPLRF);
    for (String var : raw.keySet()) {
      if (var.startsWith("DPLRF_") && ServiceConfig.NAMES.stream().noneMatch(n -> ServiceConfig.envName(n).equals(var))) {
        unknown.add(var);
      }
    }
    assertEquals(Set.of(), unknown, "DPLRF_* variables that are no dplrf setting (ServiceConfig.NAMES)");
    assertTrue(raw.size() >= 10, "dplrf settings given: " + raw.keySet());

    ServiceConfig config = dplrfConfig(Map.of()); // throws ConfigException with the reason if invalid
    assertEquals(java.util.Optional.of("kafka:9092"), config.bootstrapServers());
    assertEquals(java.util.Optional.of(Duration.ofSeconds(60)), config.epochDuration());
    assertEquals(java.util.Optional.of(TOKEN), config.adminToken(), "the token from the shell");
    assertEquals("0.0.0.0", config.bind(), "reachable from the other containers and published ports");
    // The operator port listens on 0.0.0.0 in the container: compose refuses to start without
    // a token rather than start a dplrf that would refuse (ServiceConfig) or expose exact counts.
    AssertionError noToken = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
        () -> compose.environment(DPLRF, Map.of()));
    assertTrue(noToken.getMessage().contains("DPLRF_ADMIN_TOKEN"), noToken.getMessage());
    String kafkaAdvertised = compose.environment("kafka", Map.of()).get("KAFKA_ADVERTISED_LISTENERS");
    assertNotNull(kafkaAdvertised, "kafka sets KAFKA_ADVERTISED_LISTENERS");
    assertTrue(List.of(kafkaAdvertised.split(",")).stream().anyMatch(l -> l.endsWith("://kafka:9092")),
        "the broker advertises kafka:9092 to the other containers: " + kafkaAdvertised);

    // The recipe in the file's comment for closing epochs by count instead of by time.
    Map<String, String> shell = new LinkedHashMap<>();
    shell.put("DPLRF_EPOCH_SECONDS", "");
    shell.put("DPLRF_EPOCH_UPDATES", "1000");
    shell.put("DPLRF_EPSILON", "0.5");
    ServiceConfig byCount = dplrfConfig(shell);
    assertEquals(1000, byCount.epochUpdates().orElse(-1));
    assertTrue(byCount.epochDuration().isEmpty());
    assertEquals(0.5, byCount.epsilon());
  }

  @Test
  void volumes_namedOnesDeclaredAndUsed_stateAtTheStateDir_bindMountsExistInTheRepo() {
    Set<String> declared = new TreeSet<>(map(compose.doc, "volumes", Compose.PATH).keySet());
    Set<String> used = new TreeSet<>();
    List<String> problems = new ArrayList<>();
    for (String s : compose.services.keySet()) {
      for (Mount m : compose.mounts(s)) {
        if (m.named()) {
          used.add(m.source());
          if (!declared.contains(m.source())) {
            problems.add(compose.where(s) + ": volume '" + m.source() + "' is not declared under volumes:");
          }
        } else if (!m.source().startsWith("./")) {
          problems.add(compose.where(s) + ": bind mount " + m.source() + " is not a path in the repository (./...)");
        } else if (!Files.exists(RepoFiles.root().resolve(m.source()))) {
          problems.add(compose.where(s) + ": bind-mounted " + m.source() + " does not exist in the repository");
        }
      }
    }
    assertEquals(List.of(), problems);
    assertEquals(declared, used, "every declared volume is used and every used one declared");
    assertTrue(used.size() >= 4, "volumes for Kafka, dplrf, Prometheus and Grafana: " + used);

    String stateDir = dplrfConfig(Map.of()).stateDir().toString();
    assertTrue(compose.mounts(DPLRF).stream().anyMatch(m -> m.named() && m.target().equals(stateDir)),
        "a named volume at dplrf's state-dir " + stateDir + ": " + compose.mounts(DPLRF));
    String logDirs = compose.environment("kafka", Map.of()).get("KAFKA_LOG_DIRS");
    assertTrue(compose.mounts("kafka").stream().anyMatch(m -> m.named() && m.target().equals(logDirs)),
        "a named volume at Kafka's log.dirs " + logDirs + ": " + compose.mounts("kafka"));
    assertTrue(compose.mounts("prometheus").stream().anyMatch(m -> m.named() && m.target().equals("/prometheus")),
        "Prometheus' TSDB (/prometheus) on a named volume");
    assertTrue(compose.mounts("grafana").stream().anyMatch(m -> m.named() && m.target().equals("/var/lib/grafana")),
        "Grafana's database (/var/lib/grafana) on a named volume");
  }

  @Test
  void healthChecksAndStartOrder_dplrfWaitsForAHealthyKafka_grafanaForAHealthyPrometheus() throws Exception {
    assertFalse(compose.healthcheck("kafka").isEmpty(), "kafka has a health check");
    List<String> dplrf = compose.healthcheck(DPLRF);
    // The image has no shell: exec form, run with the image's java.
    assertEquals("CMD", dplrf.isEmpty() ? null : dplrf.get(0), "dplrf's health check is exec form: " + dplrf);
    assertEquals("java", dplrf.get(1), "dplrf's health check: " + dplrf);
    assertEquals("health", dplrf.get(dplrf.size() - 1), "runs `dplrf health`: " + dplrf);
    int cp = dplrf.indexOf("-cp");
    assertTrue(cp > 0 && cp + 2 < dplrf.size(), "java -cp CLASSPATH MAIN health: " + dplrf);
    Method main = Class.forName(dplrf.get(cp + 2)).getMethod("main", String[].class);
    assertTrue(Modifier.isStatic(main.getModifiers()), dplrf.get(cp + 2) + ".main must be static");

    assertEquals("service_healthy", compose.dependsOn(DPLRF).get("kafka"), "dplrf waits for a healthy kafka");
    assertTrue(compose.dependsOn("prometheus").containsKey(DPLRF), "prometheus starts after dplrf");
    assertEquals("service_healthy", compose.dependsOn("grafana").get("prometheus"), "grafana waits for a healthy prometheus");
    List<String> problems = new ArrayList<>();
    for (String s : compose.services.keySet()) {
      compose.dependsOn(s).forEach((dep, condition) -> {
        if (!compose.services.containsKey(dep)) {
          problems.add(s + " depends on unknown service " + dep);
        } else if (condition.equals("service_healthy") && compose.healthcheck(dep).isEmpty()) {
          problems.add(s + " waits for " + dep + " to be healthy, but " + dep + " has no health check");
        } else if (!Set.of("service_started", "service_healthy", "service_completed_successfully").contains(condition)) {
          problems.add(s + ": unknown depends_on condition " + condition);
        }
      });
    }
    assertEquals(List.of(), problems);
  }

  @Test
  void prometheus_scrapesTheDplrfServiceOnItsOperatorPort() {
    assertTrue(compose.mounts("prometheus").contains(
        new Mount(false, "./" + PROMETHEUS_YML, "/etc/prometheus/prometheus.yml")),
        "prometheus mounts " + PROMETHEUS_YML + ": " + compose.mounts("prometheus"));
    Map<String, Object> job = dplrfScrapeJob();
    assertEquals("/metrics", job.getOrDefault("metrics_path", "/metrics"));
    assertEquals("15s", String.valueOf(job.get("scrape_interval")));
    List<String> targets = new ArrayList<>();
    for (Object sc : list(job, "static_configs", PROMETHEUS_YML)) {
      list(map(sc, PROMETHEUS_YML), "targets", PROMETHEUS_YML).forEach(t -> targets.add(t.toString()));
    }
    assertEquals(List.of(DPLRF + ":" + dplrfConfig(Map.of()).operatorPort()), targets,
        "the compose service name and the operator port it listens on");
    // The bearer token: the compose secret made from DPLRF_ADMIN_TOKEN, mounted in prometheus.
    Map<String, Object> auth = map(job.get("authorization"), PROMETHEUS_YML + " authorization");
    assertEquals("Bearer", auth.get("type"));
    Map<String, Object> secrets = map(compose.doc.get("secrets"), "docker-compose.yml secrets");
    Map<String, Object> secret = map(secrets.get("dplrf-admin-token"), "secret dplrf-admin-token");
    assertEquals("DPLRF_ADMIN_TOKEN", secret.get("environment"));
    Map<String, Object> prometheus = map(map(compose.doc.get("services"), "services")
        .get("prometheus"), "services.prometheus");
    assertEquals(List.of("dplrf-admin-token"), prometheus.get("secrets"));
    assertEquals("/run/secrets/dplrf-admin-token", auth.get("credentials_file"));
  }

  /** The alert rules of docs/operations.md §9: loaded by prometheus.yml from a mounted file. */
  @Test
  void prometheus_loadsTheAlertRules_everyRuleComplete() {
    assertTrue(compose.mounts("prometheus").contains(
        new Mount(false, "./" + ALERTS_YML, "/etc/prometheus/alerts.yml")),
        "prometheus mounts " + ALERTS_YML + ": " + compose.mounts("prometheus"));
    Map<String, Object> prom = map(RepoFiles.yaml(PROMETHEUS_YML), PROMETHEUS_YML);
    assertEquals(List.of("/etc/prometheus/alerts.yml"), list(prom, "rule_files", PROMETHEUS_YML));
    List<Map<String, Object>> rules = alertRules();
    assertTrue(rules.size() >= 10, "alert rules: " + rules.size());
    java.util.Set<String> names = new java.util.HashSet<>();
    for (Map<String, Object> r : rules) {
      String name = string(r, "alert", ALERTS_YML);
      assertTrue(names.add(name), "alert " + name + " defined twice");
      assertFalse(PromQl.metricNames(string(r, "expr", ALERTS_YML)).isEmpty(), name + " queries a metric");
      assertTrue(map(r.get("labels"), name + ".labels").containsKey("severity"), name + " has a severity");
      assertTrue(map(r.get("annotations"), name + ".annotations").containsKey("summary"), name + " has a summary");
    }
  }

  /** Every rule of {@value #ALERTS_YML}. */
  static List<Map<String, Object>> alertRules() {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Object g : list(map(RepoFiles.yaml(ALERTS_YML), ALERTS_YML), "groups", ALERTS_YML)) {
      for (Object r : list(map(g, ALERTS_YML + ".groups[]"), "rules", ALERTS_YML)) {
        out.add(map(r, ALERTS_YML + ".rules[]"));
      }
    }
    return out;
  }

  private static Map<String, Object> dplrfScrapeJob() {
    Map<String, Object> prom = map(RepoFiles.yaml(PROMETHEUS_YML), PROMETHEUS_YML);
    List<Map<String, Object>> jobs = new ArrayList<>();
    for (Object sc : list(prom, "scrape_configs", PROMETHEUS_YML)) {
      Map<String, Object> job = map(sc, PROMETHEUS_YML + ".scrape_configs[]");
      if (DPLRF.equals(job.get("job_name"))) {
        jobs.add(job);
      }
    }
    assertEquals(1, jobs.size(), "one scrape job named " + DPLRF + " in " + PROMETHEUS_YML);
    return jobs.get(0);
  }

  @Test
  void grafana_provisionsThePrometheusDatasource_theDashboardUses() {
    List<Mount> mounts = compose.mounts("grafana");
    assertTrue(mounts.contains(new Mount(false, "./deploy/grafana/provisioning", "/etc/grafana/provisioning")),
        "grafana mounts deploy/grafana/provisioning: " + mounts);
    String dashboardsDir = mounts.stream().filter(m -> m.source().equals("./deploy/grafana/dashboards"))
        .map(Mount::target).findFirst().orElseThrow(() -> new AssertionError("grafana mounts deploy/grafana/dashboards"));

    Map<String, Object> ds = map(RepoFiles.yaml(DATASOURCES_YML), DATASOURCES_YML);
    List<Object> sources = list(ds, "datasources", DATASOURCES_YML);
    assertEquals(1, sources.size(), DATASOURCES_YML);
    Map<String, Object> source = map(sources.get(0), DATASOURCES_YML + ".datasources[0]");
    assertEquals("prometheus", source.get("type"));
    String uid = string(source, "uid", DATASOURCES_YML);
    Port prometheusPort = compose.ports("prometheus").get(0);
    assertEquals("http://prometheus:" + prometheusPort.containerPort(), source.get("url"),
        "the prometheus compose service on its container port");

    Map<String, Object> providers = map(RepoFiles.yaml(DASHBOARDS_YML), DASHBOARDS_YML);
    List<Object> ps = list(providers, "providers", DASHBOARDS_YML);
    assertEquals(1, ps.size(), DASHBOARDS_YML);
    Map<String, Object> provider = map(ps.get(0), DASHBOARDS_YML + ".providers[0]");
    assertEquals("file", provider.get("type"));
    assertEquals(dashboardsDir, map(provider, "options", DASHBOARDS_YML).get("path"),
        "the provider reads the mounted dashboards directory");
    String home = compose.environment("grafana", Map.of()).get("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH");
    if (home != null) {
      assertTrue(home.startsWith(dashboardsDir + "/"), "home dashboard in the mounted directory: " + home);
      assertTrue(Files.isRegularFile(RepoFiles.root().resolve("deploy/grafana/dashboards")
          .resolve(home.substring(dashboardsDir.length() + 1))), "home dashboard exists: " + home);
    }

    Dashboard dashboard = Dashboard.load();
    assertNotNull(dashboard.json.get("uid"), "dashboard uid");
    assertTrue(((Double) dashboard.json.get("schemaVersion")) >= 36, "schemaVersion");
    List<String> problems = new ArrayList<>();
    for (Panel p : dashboard.panels) {
      if (!p.exprs().isEmpty() && p.datasources().isEmpty()) {
        problems.add(p.title() + ": queries without a data source");
      }
      for (Map<String, Object> ref : p.datasources()) {
        if (!uid.equals(ref.get("uid")) || !"prometheus".equals(ref.get("type"))) {
          problems.add(p.title() + ": data source " + ref + " is not the provisioned uid " + uid);
        }
      }
    }
    assertEquals(List.of(), problems);
  }

  /** Each topic the dashboard must show: a panel whose queries satisfy the predicate. */
  private static final Map<String, Predicate<Panel>> TOPICS = topics();

  private static Map<String, Predicate<Panel>> topics() {
    Map<String, Predicate<Panel>> t = new LinkedHashMap<>();
    t.put("ingest rate (applied and consumed)",
        p -> uses(p, "dplrf_updates_applied_total", "dplrf_updates_consumed_total"));
    t.put("applied vs clipped vs dropped vs dead-lettered by reason",
        p -> uses(p, "dplrf_updates_applied_total", "dplrf_updates_clipped_total",
            "dplrf_updates_dropped_total", "dplrf_records_dead_lettered_total")
            && exprMentions(p, "dplrf_records_dead_lettered_total", "reason"));
    t.put("consumer lag per partition",
        p -> uses(p, "dplrf_consumer_lag") && exprMentions(p, "dplrf_consumer_lag", "partition"));
    t.put("current epoch", p -> uses(p, "dplrf_epoch_current"));
    t.put("epochs left", p -> uses(p, "dplrf_epochs_left"));
    t.put("release exhausted", p -> uses(p, "dplrf_release_exhausted"));
    t.put("release latency", p -> usesAny(p, "dplrf_release_duration_seconds_max", "dplrf_release_duration_seconds_sum"));
    t.put("sketch memory", p -> uses(p, "dplrf_sketch_memory_bytes"));
    t.put("snapshot size", p -> usesAny(p, "dplrf_snapshot_size_bytes_max", "dplrf_snapshot_size_bytes_sum"));
    t.put("snapshot duration",
        p -> usesAny(p, "dplrf_snapshot_duration_seconds_max", "dplrf_snapshot_duration_seconds_sum"));
    t.put("HTTP request rate by route and status",
        p -> uses(p, "dplrf_http_requests_seconds_count") && exprMentions(p, "dplrf_http_requests_seconds_count", "route")
            && exprMentions(p, "dplrf_http_requests_seconds_count", "status"));
    t.put("HTTP errors (4xx, 5xx)",
        p -> uses(p, "dplrf_http_requests_seconds_count") && exprMentions(p, "dplrf_http_requests_seconds_count", "4..")
            && exprMentions(p, "dplrf_http_requests_seconds_count", "5.."));
    t.put("JVM memory used vs max by area",
        p -> uses(p, "jvm_memory_used_bytes", "jvm_memory_max_bytes") && exprMentions(p, "jvm_memory_used_bytes", "area"));
    return t;
  }

  private static boolean uses(Panel p, String... names) {
    return p.metricNames().containsAll(List.of(names));
  }

  private static boolean usesAny(Panel p, String... names) {
    return List.of(names).stream().anyMatch(p.metricNames()::contains);
  }

  private static boolean exprMentions(Panel p, String metric, String text) {
    return p.exprs().stream().anyMatch(e -> e.contains(metric) && e.contains(text));
  }

  @Test
  void dashboard_hasAPanelForEveryTopic_andItsJobMatchersNameThePrometheusJob() {
    Dashboard dashboard = Dashboard.load();
    List<String> missing = new ArrayList<>();
    TOPICS.forEach((topic, covers) -> {
      if (dashboard.panels.stream().noneMatch(covers)) {
        missing.add(topic);
      }
    });
    assertEquals(List.of(), missing, "dashboard topics without a panel");
    assertFalse(dashboard.exprs().stream().anyMatch(e -> e.contains("_bucket")),
        "dplrf's timers and summaries publish no histogram buckets: use _sum, _count and _max");

    String job = string(dplrfScrapeJob(), "job_name", PROMETHEUS_YML);
    Pattern jobMatcher = Pattern.compile("\\bjob\\s*(=~|!=|!~|=)\\s*\"([^\"]*)\"");
    int matchers = 0;
    for (String e : dashboard.exprs()) {
      Matcher m = jobMatcher.matcher(e);
      while (m.find()) {
        matchers++;
        assertEquals("=", m.group(1), "job matcher in " + e);
        assertEquals(job, m.group(2), "job matcher in " + e + " must name the scrape job of " + PROMETHEUS_YML);
      }
    }
    assertTrue(matchers > 0, "queries select the dplrf scrape job");
  }

  private static String pomProperty(String name) throws Exception {
    Path pom = RepoFiles.file("pom.xml");
    var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    var nodes = doc.getElementsByTagName(name);
    assertEquals(1, nodes.getLength(), "one <" + name + "> in " + pom);
    return nodes.item(0).getTextContent().trim();
  }
}
