package io.dplrf.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dplrf.deploy.io.Json;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The container image as Docker would see it, without Docker: {@code target/jib-image.tar} is
 * unpacked (manifest, config, layers in order) and checked; then, where the machine allows it
 * (root, {@code unshare} and {@code chroot}: CI does), the image's own entrypoint runs inside the
 * unpacked file system as the image's user, with the image's environment — {@code dplrf demo} end to
 * end on the embedded Kafka broker, and {@code serve} (the default command) answering the health
 * check that docker-compose.yml uses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ImageIT {
  private static final String STATE = "/var/lib/dplrf";

  private Path root;
  private Map<String, Object> config;
  private List<String> repoTags;

  @BeforeAll
  @SuppressWarnings("unchecked")
  void unpack() throws Exception {
    Path tar = Path.of(System.getProperty("dplrf.image.tar", "target/jib-image.tar"));
    assertTrue(Files.isRegularFile(tar), "image tarball missing: " + tar.toAbsolutePath());
    Path work = Path.of("target", "image-it").toAbsolutePath();
    deleteRecursively(work);
    Path archive = Files.createDirectories(work.resolve("archive"));
    root = Files.createDirectories(work.resolve("rootfs"));
    run(List.of("tar", "-xf", tar.toAbsolutePath().toString(), "-C", archive.toString()));
    Map<String, Object> manifest = (Map<String, Object>) ((List<Object>) Json.parse(
        Files.readString(archive.resolve("manifest.json")))).get(0);
    repoTags = (List<String>) (List<?>) manifest.get("RepoTags");
    config = (Map<String, Object>) ((Map<String, Object>) Json.parse(Files.readString(
        archive.resolve((String) manifest.get("Config"))))).get("config");
    for (Object layer : (List<Object>) manifest.get("Layers")) {
      // Layers in order, owners and modes as recorded (we are root in CI; elsewhere tar keeps modes).
      run(List.of("tar", "--warning=no-unknown-keyword", "--numeric-owner", "-xpzf",
          archive.resolve((String) layer).toString(), "-C", root.toString()));
    }
  }

  // ---- configuration ------------------------------------------------------------------------

  @Test
  void namedDplrfLatest_andVersioned() {
    assertTrue(repoTags.contains("dplrf:latest"), repoTags.toString());
    assertTrue(repoTags.stream().anyMatch(t -> t.startsWith("dplrf:") && !t.equals("dplrf:latest")),
        "a versioned tag too: " + repoTags);
  }

  @Test
  void runsAsNonRootUser_knownToTheImage() throws IOException {
    String user = (String) config.get("User");
    assertNotNull(user, "the image must name a user (else it runs as root)");
    String uid = user.split(":")[0];
    assertTrue(uid.matches("[0-9]+") && !uid.equals("0"), "non-root numeric uid: " + user);
    assertTrue(Files.readAllLines(root.resolve("etc/passwd")).stream()
        .anyMatch(l -> l.split(":")[2].equals(uid)), "uid " + uid + " in /etc/passwd");
  }

  @Test
  void entrypointIsTheImagesJava_startingDplrfMain_defaultCommandServe() throws IOException {
    List<String> entrypoint = strings("Entrypoint");
    Map<String, String> env = env();
    Optional<Path> java = Stream.of(env.get("PATH").split(":"))
        .map(dir -> root.resolve(dir.substring(1)).resolve(entrypoint.get(0)))
        .filter(Files::isExecutable).findFirst();
    assertTrue(java.isPresent(), entrypoint.get(0) + " on the image's PATH " + env.get("PATH"));
    String main = entrypoint.get(entrypoint.size() - 1);
    assertEquals("io.dplrf.deploy.Main", main);
    assertTrue(classInLibs(main), main + " in a jar under /app/libs");
    String classpath = entrypoint.get(entrypoint.indexOf("-cp") + 1);
    assertTrue(classpath.contains("/app/libs/*"), classpath);
    assertEquals(List.of("serve"), strings("Cmd"));
  }

  @Test
  @SuppressWarnings("unchecked")
  void exposesThePublicAndOperatorPorts() {
    assertEquals(Map.of("8080/tcp", Map.of(), "9464/tcp", Map.of()), config.get("ExposedPorts"));
  }

  @Test
  @SuppressWarnings("unchecked")
  void stateDirectory_isTheVolume_writableByTheUser_notByOthers() throws IOException {
    assertEquals(STATE, env().get("DPLRF_STATE_DIR"));
    assertTrue(((Map<String, Object>) config.get("Volumes")).containsKey(STATE), "volume " + STATE);
    assertEquals("0.0.0.0", env().get("DPLRF_BIND"), "listeners reachable from outside the container");
    Path state = root.resolve(STATE.substring(1));
    assertTrue(Files.isDirectory(state));
    int mode = (Integer) Files.getAttribute(state, "unix:mode") & 0777;
    String[] user = ((String) config.get("User")).split(":");
    int owner = (Integer) Files.getAttribute(state, "unix:uid");
    int group = (Integer) Files.getAttribute(state, "unix:gid");
    boolean byOwner = owner == Integer.parseInt(user[0]) && (mode & 0700) == 0700;
    boolean byGroup = user.length > 1 && group == Integer.parseInt(user[1]) && (mode & 0070) == 0070;
    assertTrue(byOwner || byGroup, String.format("state dir %o owned %d:%d, user %s", mode, owner, group,
        config.get("User")));
    assertEquals(0, mode & 0007, "others have no access to the key and snapshots");
  }

  // ---- running the image --------------------------------------------------------------------

  @Test
  void demoRunsInsideTheImage_asItsUser() throws Exception {
    requireContainerTools();
    List<String> command = new ArrayList<>(strings("Entrypoint"));
    command.addAll(List.of("demo", "--rows", "60", "--cols", "50", "--rank", "2", "--epochs", "2"));
    Process p = inImage(command, env(), root.resolve("tmp/demo.log"));
    boolean finished = p.waitFor(180, TimeUnit.SECONDS);
    if (!finished) {
      stop(p);
    }
    assertTrue(finished, "demo within 3 minutes");
    String log = Files.readString(root.resolve("tmp/demo.log"));
    assertEquals(0, p.exitValue(), log);
    assertTrue(log.contains("epoch 2 of 2 closed"), log);
  }

  @Test
  void serveIsHealthy_andAnswers_andKeepsItsKeyInTheVolume() throws Exception {
    requireContainerTools();
    Map<String, String> env = env();
    int[] ports = freePorts(3); // distinct: each is held until all are chosen
    int http = ports[0];
    env.putAll(Map.of("DPLRF_ROWS", "40", "DPLRF_COLS", "30", "DPLRF_RANK", "2", "DPLRF_EPSILON", "1",
        "DPLRF_DELTA", "1e-6", "DPLRF_EPOCHS", "4", "DPLRF_EPOCH_UPDATES", "100",
        "DPLRF_HTTP_PORT", Integer.toString(http),
        "DPLRF_OPERATOR_PORT", Integer.toString(ports[1]),
        "DPLRF_EMBEDDED_KAFKA_PORT", Integer.toString(ports[2])));
    // The image binds 0.0.0.0: the operator port then requires a token (ServiceConfig).
    env.put("DPLRF_ADMIN_TOKEN", "image-test-token");
    List<String> serve = new ArrayList<>(strings("Entrypoint"));
    serve.addAll(strings("Cmd"));
    Process service = inImage(serve, env, root.resolve("tmp/serve.log"));
    try {
      // The health check of docker-compose.yml, run the way Docker runs it: inside the image.
      List<String> health = List.of("java", "-cp", "/app/libs/*", "io.dplrf.deploy.Main", "health");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      int code = -1;
      while (System.nanoTime() < deadline && service.isAlive()) {
        Process h = inImage(health, env, root.resolve("tmp/health.log"));
        if (!h.waitFor(60, TimeUnit.SECONDS)) {
          stop(h);
          fail("the health check did not finish in 60 s");
        }
        code = h.exitValue();
        if (code == 0) {
          break;
        }
        Thread.sleep(1000);
      }
      assertEquals(0, code, "health check; service log:\n" + Files.readString(root.resolve("tmp/serve.log")));
      HttpResponse<String> status = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + http + "/v1/status")).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, status.statusCode(), status.body());
      assertEquals(4.0, ((Map<?, ?>) Json.parse(status.body())).get("epochs"), status.body());
      Path key = root.resolve(STATE.substring(1)).resolve("secret.key");
      assertTrue(Files.isRegularFile(key), "key created in the state volume");
      assertEquals(Integer.parseInt(((String) config.get("User")).split(":")[0]),
          Files.getAttribute(key, "unix:uid"), "key owned by the image's user");
      assertEquals(0600, (Integer) Files.getAttribute(key, "unix:mode") & 0777);
    } finally {
      stop(service);
    }
  }

  /**
   * Stops a process started by {@link #inImage} and everything under it. The JVM inside is PID 1
   * of its namespace and may outlive unshare's parent-death signal, so it is signalled directly
   * (SIGTERM, then SIGKILL after 30 s), then unshare itself.
   */
  private static void stop(Process p) throws InterruptedException {
    List<ProcessHandle> tree = p.descendants().toList();
    tree.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (ProcessHandle h : tree) {
      while (h.isAlive() && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      h.destroyForcibly();
    }
    p.destroy();
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    for (ProcessHandle h : tree) {
      h.onExit().completeOnTimeout(h, 5, TimeUnit.SECONDS).join();
      assertFalse(h.isAlive(), "process " + h.pid() + " of the image still running");
    }
  }

  // ---- helpers ------------------------------------------------------------------------------

  /**
   * Runs {@code command} (an absolute path or a name on the image's PATH) inside the unpacked image
   * like a container runtime would: own mount and PID namespaces, the image root bind-mounted onto
   * itself (so the JVM finds its mount in /proc/self/mounts), /proc mounted, chroot as the image's
   * user, the image's environment only, output to {@code log}.
   */
  private Process inImage(List<String> command, Map<String, String> env, Path log) throws IOException {
    String image = root.toString();
    String entry = command.get(0);
    if (!entry.startsWith("/")) {
      entry = Stream.of(env.get("PATH").split(":")).map(d -> d + "/" + command.get(0))
          .filter(p -> Files.isExecutable(root.resolve(p.substring(1)))).findFirst().orElseThrow();
    }
    List<String> argv = new ArrayList<>(List.of(host("unshare"), "--mount", "--pid", "--fork",
        "--kill-child=SIGTERM", host("sh"), "-c",
        "set -e; \"$M\" --bind \"$R\" \"$R\"; \"$M\" -t proc proc \"$R/proc\"; cd \"$R\"; exec \"$C\""
            + " --userspec=\"$U\" \"$R\" \"$@\"", "sh", entry));
    argv.addAll(command.subList(1, command.size()));
    ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    pb.environment().putAll(Map.of("R", image, "M", host("mount"), "C", host("chroot"),
        "U", (String) config.get("User")));
    Files.createDirectories(root.resolve("proc"));
    return pb.start();
  }

  private static void requireContainerTools() throws Exception {
    String missing = null;
    if (!"0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes(),
        StandardCharsets.US_ASCII).trim())) {
      missing = "root (for chroot and mount namespaces)";
    } else {
      for (String tool : List.of("unshare", "chroot", "mount", "sh")) {
        if (hostOrNull(tool) == null) {
          missing = tool;
        }
      }
    }
    if (missing != null) {
      String reason = "running the image needs " + missing;
      if (System.getenv("DPLRF_CI") != null) {
        fail(reason + ", which CI has");
      }
      Assumptions.abort(reason);
    }
  }

  private static String host(String tool) {
    return Optional.ofNullable(hostOrNull(tool)).orElseThrow();
  }

  private static String hostOrNull(String tool) {
    String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin:/usr/bin:/bin";
    return Stream.of(path.split(":")).filter(d -> !d.isEmpty()).map(d -> Path.of(d, tool))
        .filter(Files::isExecutable).map(Path::toString).findFirst().orElse(null);
  }

  @SuppressWarnings("unchecked")
  private List<String> strings(String key) {
    return (List<String>) (List<?>) config.get(key);
  }

  private Map<String, String> env() {
    Map<String, String> env = new LinkedHashMap<>();
    for (String kv : strings("Env")) {
      int eq = kv.indexOf('=');
      env.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return env;
  }

  private boolean classInLibs(String className) throws IOException {
    String entry = className.replace('.', '/') + ".class";
    try (Stream<Path> jars = Files.list(root.resolve("app/libs"))) {
      for (Path jar : (Iterable<Path>) jars::iterator) {
        try (JarFile f = new JarFile(jar.toFile())) {
          if (f.getEntry(entry) != null) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** {@code n} ports free now, all different: each socket stays bound until all are chosen. */
  private static int[] freePorts(int n) throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    try {
      int[] ports = new int[n];
      for (int k = 0; k < n; k++) {
        ServerSocket s = new ServerSocket(0);
        held.add(s);
        ports[k] = s.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : held) {
        s.close();
      }
    }
  }

  private static void run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException(String.join(" ", command) + " failed:\n" + out);
    }
  }

  private static void deleteRecursively(Path dir) throws IOException, InterruptedException {
    if (Files.exists(dir)) {
      run(List.of("rm", "-rf", dir.toString()));
    }
    assertFalse(Files.exists(dir));
  }
}
