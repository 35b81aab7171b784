package io.dplrf.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A Kafka 3.x broker (KRaft, one node as broker and controller), from the Maven Central jars of
 * {@code kafka_2.13} that module it-kafka3 copies to its {@code target/lib}, run as a child JVM:
 * the 3.x server cannot share a class path with the 4.x clients the service and these tests use.
 * For the scenarios that must also hold on the broker line many clusters still run ({@link
 * KafkaSuite.OnKafka3}). Formatted ({@code kafka.tools.StorageTool format}, what {@code
 * kafka-storage.sh} runs) and started on free loopback ports, with its data and log in a
 * temporary directory; no secured listeners.
 */
final class Kafka3Environment implements KafkaEnvironment, AutoCloseable {

  /** The version failsafe passes from the build ({@code kafka3.version}). */
  static final String VERSION = System.getProperty("dplrf.it.kafka3.version", "3.x");

  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final int PORT_ATTEMPTS = 3;

  private final Path dir;
  private final Process process;
  private final String bootstrapServers;

  private Kafka3Environment(Path dir, Process process, String bootstrapServers) {
    this.dir = dir;
    this.process = process;
    this.bootstrapServers = bootstrapServers;
  }

  static Kafka3Environment start() {
    String lib = System.getProperty("dplrf.it.kafka3.lib");
    if (lib == null || !Files.isDirectory(Path.of(lib))) {
      throw new IllegalStateException("no Kafka " + VERSION + " jars in " + lib
          + ": build module it-kafka3 first (./mvnw -pl it-tests -am verify)");
    }
    Path server = Path.of(lib).resolve("kafka_2.13-" + VERSION + ".jar");
    if (!Files.isRegularFile(server)) {
      throw new IllegalStateException("no " + server.getFileName() + " in " + lib);
    }
    for (int attempt = 1; ; attempt++) {
      try {
        return start(lib);
      } catch (PortTaken e) {
        // Another process bound a port between freePorts() and the broker's start (seconds:
        // two JVMs start in between); fresh ports, a few times.
        if (attempt >= PORT_ATTEMPTS) {
          throw new AssertionError("the Kafka " + VERSION + " broker found its ports taken "
              + attempt + " times", e);
        }
      }
    }
  }

  private static Kafka3Environment start(String lib) {
    try {
      Path dir = Files.createTempDirectory("dplrf-it-kafka3");
      int[] ports = freePorts(2);
      int port = ports[0];
      int controllerPort = ports[1];
      Path config = dir.resolve("server.properties");
      Files.writeString(config, String.join("\n",
          "process.roles=broker,controller",
          "node.id=1",
          "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
          "controller.listener.names=CONTROLLER",
          "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
          "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
          "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
          "log.dirs=" + dir.resolve("data"),
          // As the embedded broker is configured (EmbeddedKafka): one node, topics made on purpose.
          "offsets.topic.replication.factor=1",
          "offsets.topic.num.partitions=1",
          "transaction.state.log.replication.factor=1",
          "transaction.state.log.min.isr=1",
          "transaction.state.log.num.partitions=1",
          "num.partitions=1",
          "auto.create.topics.enable=false",
          "group.initial.rebalance.delay.ms=0",
          ""));
      Path log = dir.resolve("broker.log");
      String classPath = Path.of(lib).resolve("*").toString();
      run(List.of("-cp", classPath, "kafka.tools.StorageTool", "format",
          "-t", Uuid.randomUuid().toString(), "-c", config.toString()), log);
      Process process = new ProcessBuilder(java(List.of("-Xmx512m",
          "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", classPath, "kafka.Kafka",
          config.toString())))
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .start();
      // A failed run of the suite must not leave a broker behind.
      Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
      Kafka3Environment kafka = new Kafka3Environment(dir, process, "127.0.0.1:" + port);
      try {
        kafka.awaitReady(log);
      } catch (PortTaken e) {
        kafka.close();
        throw e;
      }
      return kafka;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits until the broker answers Admin calls, or fails with its log if it has exited. */
  private void awaitReady(Path log) {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
        bootstrapServers))) {
      Poll.until("Kafka " + VERSION + " at " + bootstrapServers, START_TIMEOUT, () -> {
        if (!process.isAlive()) {
          String output = Files.readString(log);
          if (output.contains("Address already in use")) {
            throw new PortTaken(output);
          }
          throw new AssertionError("the Kafka " + VERSION + " broker exited with "
              + process.exitValue() + ":\n" + output);
        }
        return admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size();
      }, nodes -> nodes == 1);
    }
  }

  private static List<String> java(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(args);
    return command;
  }

  /** Runs a child JVM to completion, its output appended to {@code log}. */
  private static void run(List<String> args, Path log) throws IOException {
    Process p = new ProcessBuilder(java(args)).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(args + " did not finish within 60 s:\n" + Files.readString(log));
      }
      if (p.exitValue() != 0) {
        throw new IOException(args + " exited " + p.exitValue() + ":\n" + Files.readString(log));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running " + args, e);
    }
  }

  /**
   * {@code n} distinct loopback ports free now (all held until all are chosen, so that no two
   * are the same). The broker binds them seconds later; if another process took one first, the
   * start fails with {@link PortTaken} and is retried.
   */
  private static int[] freePorts(int n) throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    try {
      int[] ports = new int[n];
      for (int k = 0; k < n; k++) {
        ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        held.add(socket);
        ports[k] = socket.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket socket : held) {
        socket.close();
      }
    }
  }

  /**
   * The broker exited because one of its ports was taken. An error, as the probe's other
   * failure, so that {@link Poll} ends at once rather than counting it as "not started yet".
   */
  private static final class PortTaken extends AssertionError {
    PortTaken(String log) {
      super("a port was taken:\n" + log);
    }
  }

  @Override
  public String bootstrapServers() {
    return bootstrapServers;
  }

  @Override
  public void createTopic(String name, int partitions) {
    AdminTopics.create(bootstrapServers, name, partitions);
  }

  @Override
  public void close() throws IOException {
    process.destroy(); // SIGTERM: the broker's controlled shutdown
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Override
  public String toString() {
    return "Kafka " + VERSION + " at " + bootstrapServers;
  }
}
