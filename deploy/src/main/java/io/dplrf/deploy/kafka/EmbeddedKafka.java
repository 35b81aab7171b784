package io.dplrf.deploy.kafka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Kafka cluster in this JVM: one {@link KafkaRaftServer} in combined mode
 * ({@code process.roles=broker,controller}), a PLAINTEXT listener on the requested host and port
 * for clients, and a CONTROLLER listener on a free loopback port for its own KRaft quorum of one
 * (a static voter set, so the controller port may change between restarts). For tests of
 * clients' security settings, {@link #startWithSasl} adds a SASL listener (PLAIN and
 * SCRAM-SHA-512) and an authorizer; {@code dplrf serve} never does.
 *
 * <p>The data directory is the broker's only log directory (and metadata log directory); the
 * broker owns it and nothing else should be put there. It is formatted on first start, as
 * {@code kafka-storage.sh format} would, and reused afterwards: topics, records and committed
 * consumer offsets survive a restart of the embedding process.
 *
 * <p>Set for a laptop, not for production durability: replication factor 1 for every internal
 * topic, small segments and indexes, two network and two I/O threads, no automatic topic
 * creation. Kafka's own fault handler stays in place: a fatal broker fault (for example a failed
 * metadata log write) halts the JVM, as it would halt a stand-alone broker.
 *
 * <p>Thread-safety: {@link #createTopic} may be called from any thread; {@link #close} is
 * idempotent.
 */
public final class EmbeddedKafka implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);

  private static final int NODE_ID = 1;
  private static final String CLIENT_LISTENER = "PLAINTEXT";
  private static final String CONTROLLER_LISTENER = "CONTROLLER";
  /** User names and passwords of the SASL listener: nothing JAAS would need to quote or escape. */
  private static final java.util.regex.Pattern SASL_WORD =
      java.util.regex.Pattern.compile("[A-Za-z0-9._-]+");
  /** Attempts when a free port chosen for {@code port = 0} is taken before the broker binds it. */
  private static final int PORT_ATTEMPTS = 3;
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);
  /** PBKDF2 iterations of the SCRAM credentials: Kafka's minimum, 4096 (a test listener). */
  private static final int SCRAM_ITERATIONS = 4096;

  private final KafkaRaftServer server;
  private final String bootstrapServers;
  /** The SASL listener's host:port; null unless started with one. */
  private final String saslBootstrapServers;
  /** The client-certificate (SSL) listener's host:port; null unless started with one. */
  private final String mutualTlsBootstrapServers;
  private Admin admin;
  private boolean closed;

  private EmbeddedKafka(KafkaRaftServer server, String bootstrapServers,
      String saslBootstrapServers, String mutualTlsBootstrapServers) {
    this.server = server;
    this.bootstrapServers = bootstrapServers;
    this.saslBootstrapServers = saslBootstrapServers;
    this.mutualTlsBootstrapServers = mutualTlsBootstrapServers;
  }

  /**
   * Starts the broker and returns once it accepts clients.
   *
   * @param dataDir the broker's log directory; created and formatted if it holds no Kafka storage
   * @param host the address of the client listener, e.g. {@code 127.0.0.1}
   * @param port the client port, or 0 for a free one (see {@link #bootstrapServers()})
   * @throws IllegalArgumentException if the port is out of range
   * @throws IllegalStateException if the broker fails to start (the cause says why)
   */
  public static EmbeddedKafka start(Path dataDir, String host, int port) {
    return start(dataDir, host, port, null);
  }

  /**
   * As {@link #start(Path, String, int)}, plus what a test of clients' security settings (dplrf's
   * {@code kafka-config}) needs without a secured cluster: a second client listener on a free
   * loopback port ({@link #saslBootstrapServers()}) that authenticates {@code users} (name →
   * password) with SASL/PLAIN and with SASL/SCRAM-SHA-512 (the same password; the SCRAM
   * credentials are stored in the cluster's metadata at start), and anyone with SASL/OAUTHBEARER
   * and Kafka's unsecured tokens (the principal is the token's subject, unchecked), and Kafka's
   * {@code StandardAuthorizer}. Clients of the PLAINTEXT listener, like the node's own controller
   * connection, authenticate as {@code User:ANONYMOUS},
   * a super user, so everything that works without this keeps working; a SASL user may do only
   * what ACLs grant it (create them through the PLAINTEXT listener). Not for production: the
   * other listeners stay unauthenticated, and without {@code tls} PLAIN sends passwords in the
   * clear.
   *
   * @param users at least one; names and passwords of letters, digits, '.', '_' and '-'
   * @param tls the listener's key and certificate: SASL_SSL with it, SASL_PLAINTEXT when null
   * @throws IllegalArgumentException if {@code users} is empty or has another character
   */
  public static EmbeddedKafka startWithSasl(Path dataDir, String host, int port,
      Map<String, String> users, TlsKeyStore tls) {
    return startWithSasl(dataDir, host, port, users, tls, null);
  }

  /**
   * As {@link #startWithSasl(Path, String, int, Map, TlsKeyStore)}, plus, with {@code
   * trustedClients}, a third listener on a free loopback port ({@link
   * #mutualTlsBootstrapServers()}), SSL with {@code ssl.client.auth=required}: a client
   * authenticates with a certificate from that PEM file, and its principal is {@code User:} and
   * the certificate's subject (Kafka's default mapping, e.g. {@code User:CN=dplrf}).
   *
   * @param trustedClients a PEM file of the client certificates to accept, or null for no such
   *     listener; needs {@code tls}
   */
  public static EmbeddedKafka startWithSasl(Path dataDir, String host, int port,
      Map<String, String> users, TlsKeyStore tls, Path trustedClients) {
    if (users.isEmpty()) {
      throw new IllegalArgumentException("at least one SASL user is needed");
    }
    users.forEach((name, password) -> {
      if (!SASL_WORD.matcher(name).matches() || !SASL_WORD.matcher(password).matches()) {
        throw new IllegalArgumentException("SASL user names and passwords may hold only"
            + " letters, digits, '.', '_' and '-'. Provided user: " + name);
      }
    });
    if (trustedClients != null && tls == null) {
      throw new IllegalArgumentException("client certificates need the listener's own (tls)");
    }
    return start(dataDir, host, port, new Security(users, tls, trustedClients));
  }

  /** The secured listeners of {@link #startWithSasl}; null in {@link #start} for none. */
  private record Security(Map<String, String> users, TlsKeyStore tls, Path trustedClients) {}

  /** A PKCS#12 key store holding the listener's private key and certificate, and its password. */
  public record TlsKeyStore(Path file, String password) {}

  /**
   * Throws if {@code host:port} cannot be bound now, as the broker's client listener would have
   * to. A check before {@link #start}: the broker reports a taken port only after logging the
   * failure of each of its components.
   *
   * @throws BindException if the port is taken (or the address is not local)
   */
  public static void requireFreePort(String host, int port) throws BindException {
    try (ServerSocket socket = new ServerSocket()) {
      // Reuse as the broker does: a port in TIME_WAIT is free for it.
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getByName(host), port));
    } catch (BindException e) {
      throw e;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot check port " + host + ":" + port, e);
    }
  }

  private static EmbeddedKafka start(Path dataDir, String host, int port, Security security) {
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("port must be >= 0 and <= 65535. Provided value: " + port);
    }
    Path logDir = dataDir.toAbsolutePath().normalize();
    for (int attempt = 1; ; attempt++) {
      int clientPort = port != 0 ? port : freePort(host);
      int controllerPort = freePort("127.0.0.1");
      int saslPort = security == null ? 0 : freePort("127.0.0.1");
      int mtlsPort = security == null || security.trustedClients() == null
          ? 0 : freePort("127.0.0.1");
      try {
        return startOnce(logDir, host, clientPort, controllerPort, saslPort, mtlsPort, security);
      } catch (RuntimeException e) {
        // Another process may take a port between freePort() and the broker's bind.
        if (!causedByBind(e) || attempt >= PORT_ATTEMPTS || (port != 0 && attempt > 1)) {
          throw new IllegalStateException("embedded Kafka failed to start on " + host + ":"
              + clientPort + " (controller 127.0.0.1:" + controllerPort + ") with data in "
              + logDir + ": " + e.getMessage(), e);
        }
        LOG.info("embedded Kafka: port taken, retrying with other ports ({})", e.getMessage());
      }
    }
  }

  private static EmbeddedKafka startOnce(Path logDir, String host, int clientPort,
      int controllerPort, int saslPort, int mtlsPort, Security security) {
    long t0 = System.nanoTime();
    Map<String, Object> props = brokerProperties(logDir, host, clientPort, controllerPort);
    if (security != null) {
      addSasl(props, saslPort, security.users(), security.tls());
      if (security.trustedClients() != null) {
        addMutualTls(props, mtlsPort, security.tls(), security.trustedClients());
      }
    }
    KafkaConfig config = new KafkaConfig(props, false);
    formatIfNeeded(logDir);
    KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
    try {
      server.startup();
    } catch (RuntimeException e) {
      shutdownQuietly(server);
      throw e;
    }
    String bootstrap = hostForClients(host) + ":" + clientPort;
    String sasl = security == null ? null : "127.0.0.1:" + saslPort;
    String mtls = mtlsPort == 0 ? null : "127.0.0.1:" + mtlsPort;
    LOG.info("embedded Kafka started at {}{}{} in {} ms, data in {}", bootstrap,
        sasl == null ? "" : " (" + (security.tls() == null ? "SASL_PLAINTEXT" : "SASL_SSL")
            + " at " + sasl + ")",
        mtls == null ? "" : " (SSL with client certificates at " + mtls + ")",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), logDir);
    EmbeddedKafka kafka = new EmbeddedKafka(server, bootstrap, sasl, mtls);
    if (security != null) {
      try {
        kafka.addScramUsers(security.users());
      } catch (RuntimeException e) {
        kafka.close();
        throw e;
      }
    }
    return kafka;
  }

  /** Stores each user's SCRAM-SHA-512 credentials (the same password as for PLAIN). */
  private void addScramUsers(Map<String, String> users) {
    List<UserScramCredentialAlteration> upserts = new java.util.ArrayList<>();
    users.forEach((name, password) -> upserts.add(new UserScramCredentialUpsertion(name,
        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, SCRAM_ITERATIONS), password)));
    try {
      admin().alterUserScramCredentials(upserts).all()
          .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot store SCRAM credentials: "
          + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("cannot store SCRAM credentials: no answer within "
          + ADMIN_TIMEOUT.toSeconds() + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while storing SCRAM credentials", e);
    }
  }

  /** The SASL listener and the authorizer of {@link #startWithSasl}. */
  private static void addSasl(Map<String, Object> p, int saslPort, Map<String, String> users,
      TlsKeyStore tls) {
    String listener = tls == null ? "SASL_PLAINTEXT" : "SASL_SSL"; // named after its protocol
    String prefix = "listener.name." + listener.toLowerCase(java.util.Locale.ROOT) + ".";
    p.put("listeners", p.get("listeners") + "," + listener + "://127.0.0.1:" + saslPort);
    p.put("listener.security.protocol.map", p.get("listener.security.protocol.map") + ","
        + listener + ":" + listener);
    if (tls != null) {
      putKeyStore(p, prefix, tls);
    }
    p.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512,OAUTHBEARER");
    p.put(prefix + "scram-sha-512.sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required;");
    // OAUTHBEARER with Kafka's unsecured tokens (no signature; the principal is the token's "sub"
    // claim, whatever the client says): exercises a client's OAUTHBEARER settings without an
    // identity provider. Any client can claim any user here.
    p.put(prefix + "oauthbearer.sasl.jaas.config",
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
            + " unsecuredLoginStringClaim_sub=\"broker\";");
    StringBuilder jaas = new StringBuilder(
        "org.apache.kafka.common.security.plain.PlainLoginModule required");
    users.forEach((name, password) ->
        jaas.append(" user_").append(name).append("=\"").append(password).append('"'));
    p.put(prefix + "plain.sasl.jaas.config", jaas.append(';').toString());
    p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    p.put("super.users", "User:ANONYMOUS");
  }

  /** The listener's own key and certificate, for the listener of {@code prefix}. */
  private static void putKeyStore(Map<String, Object> p, String prefix, TlsKeyStore tls) {
    p.put(prefix + "ssl.keystore.type", "PKCS12");
    p.put(prefix + "ssl.keystore.location", tls.file().toAbsolutePath().toString());
    p.put(prefix + "ssl.keystore.password", tls.password());
    p.put(prefix + "ssl.key.password", tls.password());
  }

  /** An SSL listener that requires a client certificate from {@code trustedClients} (PEM). */
  private static void addMutualTls(Map<String, Object> p, int port, TlsKeyStore tls,
      Path trustedClients) {
    String prefix = "listener.name.ssl.";
    p.put("listeners", p.get("listeners") + ",SSL://127.0.0.1:" + port);
    p.put("listener.security.protocol.map", p.get("listener.security.protocol.map") + ",SSL:SSL");
    putKeyStore(p, prefix, tls);
    p.put(prefix + "ssl.truststore.type", "PEM");
    p.put(prefix + "ssl.truststore.location", trustedClients.toAbsolutePath().toString());
    p.put(prefix + "ssl.client.auth", "required");
  }

  /** Broker configuration; keys are the documented broker config names (stable across versions). */
  static Map<String, Object> brokerProperties(Path logDir, String host, int clientPort, int controllerPort) {
    Map<String, Object> p = new HashMap<>();
    p.put("process.roles", "broker,controller");
    p.put("node.id", Integer.toString(NODE_ID));
    p.put("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
    p.put("controller.listener.names", CONTROLLER_LISTENER);
    p.put("inter.broker.listener.name", CLIENT_LISTENER);
    p.put("listeners", CLIENT_LISTENER + "://" + listenerHost(host) + ":" + clientPort + ","
        + CONTROLLER_LISTENER + "://127.0.0.1:" + controllerPort);
    p.put("listener.security.protocol.map", CLIENT_LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
    p.put("log.dirs", logDir.toString());
    // One node: every internal topic has one replica; few partitions keep start-up and memory small.
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("transaction.state.log.num.partitions", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("default.replication.factor", "1");
    p.put("min.insync.replicas", "1");
    p.put("num.partitions", "1");
    p.put("auto.create.topics.enable", "false");
    p.put("group.initial.rebalance.delay.ms", "0");
    // Laptop sizes: 16 MiB segments, 1 MiB (sparse, pre-allocated) indexes, a 2 MiB cleaner buffer
    // instead of 128 MiB, and threads for 2 cores.
    p.put("log.segment.bytes", Integer.toString(16 << 20));
    p.put("log.index.size.max.bytes", Integer.toString(1 << 20));
    p.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 << 20));
    p.put("num.network.threads", "2");
    p.put("num.io.threads", "2");
    p.put("background.threads", "2");
    p.put("num.recovery.threads.per.data.dir", "1");
    // Fail instead of waiting forever if the node cannot catch up with its own metadata log.
    p.put("server.max.startup.time.ms", "60000");
    return p;
  }

  /** {@code kafka-storage.sh format} on first start; an already formatted directory is reused. */
  private static void formatIfNeeded(Path logDir) {
    if (Files.exists(logDir.resolve("meta.properties"))) {
      return;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      Files.createDirectories(logDir);
      new Formatter()
          .setPrintStream(new PrintStream(out, true, StandardCharsets.UTF_8))
          .setNodeId(NODE_ID)
          .setClusterId(Uuid.randomUuid().toString())
          .setControllerListenerName(CONTROLLER_LISTENER)
          .setMetadataLogDirectory(logDir.toString())
          .setDirectories(List.of(logDir.toString()))
          // Static voter set (controller.quorum.voters), as `format` without --standalone does.
          .setHasDynamicQuorum(false)
          .run();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create Kafka data directory " + logDir, e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot format Kafka storage in " + logDir + ": " + e.getMessage(), e);
    }
    LOG.info("embedded Kafka: formatted new storage in {}", logDir);
    LOG.debug("{}", out.toString(StandardCharsets.UTF_8).strip());
  }

  /** The client listener's address, {@code host:port}, for producers, consumers and admins. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /**
   * The SASL listener's address ({@link #startWithSasl}).
   *
   * @throws IllegalStateException if the broker was started without one
   */
  public String saslBootstrapServers() {
    if (saslBootstrapServers == null) {
      throw new IllegalStateException("embedded Kafka was started without a SASL listener");
    }
    return saslBootstrapServers;
  }

  /**
   * The client-certificate listener's address ({@link #startWithSasl(Path, String, int, Map,
   * TlsKeyStore, Path)}).
   *
   * @throws IllegalStateException if the broker was started without one
   */
  public String mutualTlsBootstrapServers() {
    if (mutualTlsBootstrapServers == null) {
      throw new IllegalStateException("embedded Kafka was started without a client-certificate"
          + " listener");
    }
    return mutualTlsBootstrapServers;
  }

  /**
   * Creates a topic with one replica, or does nothing if a topic of that name exists (whatever its
   * partition count).
   *
   * @throws IllegalArgumentException if partitions &lt; 1
   * @throws IllegalStateException if the broker refuses or does not answer within 30 s
   */
  public void createTopic(String name, int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1. Provided value: " + partitions);
    }
    try {
      admin().createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
          .all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic " + name + ": " + e.getCause().getMessage(), e.getCause());
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException("cannot create topic " + name + ": no answer within " + ADMIN_TIMEOUT, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + name, e);
    }
  }

  private synchronized Admin admin() {
    if (closed) {
      throw new IllegalStateException("embedded Kafka is closed");
    }
    if (admin == null) {
      admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }
    return admin;
  }

  /** Shuts the broker and controller down and waits for them; the data directory stays. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    long t0 = System.nanoTime();
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
    }
    shutdownQuietly(server);
    LOG.info("embedded Kafka at {} stopped in {} ms", bootstrapServers,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
  }

  private static void shutdownQuietly(KafkaRaftServer server) {
    try {
      server.shutdown();
      server.awaitShutdown();
    } catch (RuntimeException e) {
      LOG.warn("embedded Kafka: error during shutdown", e);
    }
  }

  private static int freePort(String host) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress(InetAddress.getByName(host), 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port on " + host, e);
    }
  }

  private static boolean causedByBind(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BindException || String.valueOf(t.getMessage()).contains("Address already in use")) {
        return true;
      }
    }
    return false;
  }

  /** Kafka's listener syntax wants IPv6 literals in brackets. */
  private static String listenerHost(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  /** A wildcard listen address is not an address clients can dial; they use loopback instead. */
  private static String hostForClients(String host) {
    String bare = host.replace("[", "").replace("]", "");
    if (bare.equals("0.0.0.0") || bare.equals("::") || bare.isEmpty()) {
      return "127.0.0.1";
    }
    return listenerHost(host);
  }
}
