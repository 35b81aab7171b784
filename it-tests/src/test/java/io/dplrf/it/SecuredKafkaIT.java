package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static io.dplrf.it.Http.objectOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code kafka-config} with a secured cluster: the suite's broker has a SASL-over-TLS listener
 * (PLAIN and SCRAM-SHA-512) and a TLS listener that requires client certificates, with Kafka's
 * authorizer, beside its plain one ({@link KafkaEnvironment#secured}), and the tests
 * grant their user topic ACLs only — no CREATE, no cluster permission, no group — which is all
 * dplrf's clients need: the consumer reads by assignment, without a group; the producers are
 * idempotent, without transactions.
 */
@ExtendWith(KafkaSuite.class)
class SecuredKafkaIT {
  private static final String USER = "dplrf-it";

  /**
   * Over SASL (PLAIN, SCRAM-SHA-512, and OAUTHBEARER with Kafka's unsecured tokens: the login
   * module's settings and the token refresh, not an identity provider) and TLS, or TLS with a
   * client certificate ("SSL"), with
   * read and write ACLs on its two topics, created beforehand by an operator: {@code dplrf produce
   * --kafka-config} sends 600 updates, and a service with the same file as {@code kafka-config}
   * starts (it may not create topics: it finds them there), applies all 600, and dead-letters a
   * malformed record, written beside them by another client, to its dead-letter topic.
   */
  @ParameterizedTest
  @ValueSource(strings = {"PLAIN", "SCRAM-SHA-512", "OAUTHBEARER", "SSL"})
  void securedWithTopicAndRecordGroupAcls_producesIngestsAndDeadLetters(String mechanism,
      KafkaEnvironment kafka) throws Exception {
    KafkaEnvironment.Secured sasl = kafka.secured().orElseThrow();
    Path dir = Files.createTempDirectory("dplrf-it-sasl");
    String topic = "it-sasl-" + UUID.randomUUID();
    String deadLetters = topic + ".dead-letter";
    kafka.createTopic(topic, 1);
    kafka.createTopic(deadLetters, 1);
    boolean certificate = mechanism.equals("SSL");
    String principal = certificate ? sasl.clientPrincipal() : "User:" + USER;
    grant(kafka, principal, topic, AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE);
    grant(kafka, principal, deadLetters, AclOperation.WRITE, AclOperation.DESCRIBE);
    // The broker's record of the stream's progress (ReleaseWitness): groups and transactional
    // ids named dplrf-*.
    grant(kafka, new ResourcePattern(ResourceType.GROUP, "dplrf-", PatternType.PREFIXED),
        principal, AclOperation.READ);
    grant(kafka, new ResourcePattern(ResourceType.TRANSACTIONAL_ID, "dplrf-",
        PatternType.PREFIXED), principal, AclOperation.WRITE, AclOperation.DESCRIBE);
    Path props = certificate ? certificateFile(dir, sasl, true)
        : clientFile(dir, sasl, mechanism, USER, sasl.users().get(USER));
    String bootstrap = certificate ? sasl.mutualTlsBootstrapServers() : sasl.bootstrapServers();

    assertEquals(0, Cli.run(produce(dir, topic, bootstrap, props), System.out, System.err),
        "produce over " + mechanism + " and TLS");
    // 15 bytes: not a whole number of 16-byte updates. Sent by a super user over the plain
    // listener, after the 12 records of 50 updates.
    Stream.sendAll(kafka.bootstrapServers(), topic,
        Stream.unkeyed(List.of(new byte[15])));

    try (RunningService svc = RunningService.start(kafka, topic, dir.resolve("state"),
        RunningService.settings("bootstrap-servers", bootstrap,
            "kafka-config", props.toString(), "rows", "10", "cols", "8", "rank", "2",
            "epsilon", "1", "delta", "1e-6", "epochs", "4", "epoch-updates", "1000000"))) {
      Map<String, Object> ingest = Poll.until("all 13 records consumed", Duration.ofSeconds(60),
          svc::ingest, m -> longOf(m, "recordsConsumed") == 13);
      assertEquals(600, longOf(ingest, "updatesApplied"), "" + ingest);
      assertEquals(1, longOf(objectOf(ingest, "recordsDeadLettered"), "bad_length"),
          "" + ingest);
    }
    List<ConsumerRecord<byte[], byte[]>> dead = TestData.readAll(kafka, deadLetters, 1);
    assertEquals(15, dead.get(0).value().length, "the malformed record, as it was");
    RunningService.deleteTree(dir);
  }

  /**
   * A wrong password (PLAIN or SCRAM), a user without ACLs, a client that does not trust the
   * listener's certificate, or one without a certificate of its own where one is required: {@code
   * dplrf produce} exits 1 and the service does not start, each saying why (Kafka's own message),
   * rather than retrying in silence.
   */
  @Test
  void wrongPasswordNoAclsOrUntrustedCertificate_produceAndServeFailWithTheReason(
      KafkaEnvironment kafka)
      throws Exception {
    KafkaEnvironment.Secured sasl = kafka.secured().orElseThrow();
    Path dir = Files.createTempDirectory("dplrf-it-sasl-denied");
    String topic = "it-sasl-denied-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    kafka.createTopic(topic + ".dead-letter", 1);
    Path wrongPassword = clientFile(dir, sasl, "PLAIN", USER, "not-" + sasl.users().get(USER));
    Path wrongScram = clientFile(dir, sasl, "SCRAM-SHA-512", USER,
        "not-" + sasl.users().get(USER));
    Path noAcls = clientFile(dir, sasl, "PLAIN", "stranger", sasl.users().get("stranger"));
    Path untrusted = Files.writeString(dir.resolve("untrusted.properties"), Files.readString(
        clientFile(dir, sasl, "PLAIN", USER, sasl.users().get(USER))).lines()
        .filter(l -> !l.startsWith("ssl.truststore")).collect(Collectors.joining("\n")));
    Path noCertificate = certificateFile(dir, sasl, false);
    Map<Path, String[]> reasons = Map.of(wrongPassword,
        new String[] {"Authentication failed", "Authentication failed"},
        wrongScram, new String[] {"Authentication failed", "Authentication failed"},
        noAcls, new String[] {"Not authorized to access topics", "not authorized"},
        untrusted, new String[] {"SSL handshake failed", "SSL handshake failed"},
        noCertificate, new String[] {"bad_certificate", "bad_certificate"});

    for (Path props : List.of(wrongPassword, wrongScram, noAcls, untrusted, noCertificate)) {
      String bootstrap = props == noCertificate ? sasl.mutualTlsBootstrapServers()
          : sasl.bootstrapServers();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int exit = Cli.run(produce(dir, topic, bootstrap, props), System.out,
          new PrintStream(err, true, StandardCharsets.UTF_8));
      String message = err.toString(StandardCharsets.UTF_8);
      assertNotEquals(0, exit, message);
      assertTrue(message.contains(reasons.get(props)[0]), message);

      Exception e = assertThrows(Exception.class, () -> RunningService.start(kafka, topic,
          dir.resolve("state"), RunningService.settings("bootstrap-servers",
              bootstrap, "kafka-config", props.toString(), "rows", "10", "cols",
              "8", "rank", "2", "epsilon", "1", "delta", "1e-6", "epochs", "4",
              "epoch-updates", "1000")).close());
      String why = chain(e);
      assertTrue(why.contains(reasons.get(props)[1]), why);
    }
    RunningService.deleteTree(dir);
  }

  /** ALLOW {@code operations} on {@code topic} for {@code principal}, through the plain listener. */
  private static void grant(KafkaEnvironment kafka, String principal, String topic,
      AclOperation... operations) throws Exception {
    grant(kafka, new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL), principal,
        operations);
  }

  private static void grant(KafkaEnvironment kafka, ResourcePattern resource, String principal,
      AclOperation... operations) throws Exception {
    List<AclBinding> acls = new ArrayList<>();
    for (AclOperation op : operations) {
      acls.add(new AclBinding(resource,
          new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW)));
    }
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
        kafka.bootstrapServers()))) {
      admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
    }
  }

  /**
   * A Kafka client properties file for TLS with a client certificate ({@code withKeyStore}) or
   * without one, trusting the listener's certificate.
   */
  private static Path certificateFile(Path dir, KafkaEnvironment.Secured sasl,
      boolean withKeyStore) throws Exception {
    String keyStore = !withKeyStore ? "" : "ssl.keystore.type = PKCS12\nssl.keystore.location = "
        + sasl.clientKeyStore() + "\nssl.keystore.password = " + sasl.clientKeyStorePassword()
        + "\n";
    return Files.writeString(dir.resolve("ssl-" + withKeyStore + ".properties"),
        "security.protocol = SSL\n" + keyStore + "ssl.truststore.type = PEM\n"
            + "ssl.truststore.location = " + sasl.trustedCertificate() + "\n");
  }

  /**
   * A Kafka client properties file for SASL ({@code mechanism}: PLAIN, SCRAM-SHA-512 or
   * OAUTHBEARER, which ignores the password) over TLS as {@code user}, trusting the listener's
   * certificate (a PEM file, checked against 127.0.0.1 as Kafka's clients do by default).
   */
  private static Path clientFile(Path dir, KafkaEnvironment.Secured sasl, String mechanism,
      String user, String password) throws Exception {
    String login = switch (mechanism) {
      case "PLAIN" -> "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
          + user + "\" password=\"" + password + "\";";
      case "SCRAM-SHA-512" -> "org.apache.kafka.common.security.scram.ScramLoginModule required"
          + " username=\"" + user + "\" password=\"" + password + "\";";
      // An unsecured token whose subject is the user: the broker takes it as User:<user>.
      case "OAUTHBEARER" -> "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
          + " required unsecuredLoginStringClaim_sub=\"" + user + "\";";
      default -> throw new IllegalArgumentException("mechanism " + mechanism);
    };
    return Files.writeString(
        dir.resolve(mechanism + "-" + user + "-" + password + ".properties"),
        "security.protocol = SASL_SSL\nsasl.mechanism = " + mechanism + "\n"
            + "sasl.jaas.config = " + login + "\n"
            + "ssl.truststore.type = PEM\nssl.truststore.location = "
            + sasl.trustedCertificate() + "\n");
  }

  /** {@code dplrf produce} of 600 random updates (CSV, records of 50) through {@code props}. */
  private static String[] produce(Path dir, String topic, String bootstrap, Path props)
      throws Exception {
    Path input = dir.resolve("updates.csv");
    if (!Files.exists(input)) {
      StringBuilder csv = new StringBuilder();
      SplittableRandom rnd = new SplittableRandom(11);
      for (int u = 0; u < 600; u++) {
        csv.append(rnd.nextInt(10)).append(',').append(rnd.nextInt(8)).append(',')
            .append(rnd.nextDouble(-1, 1)).append('\n');
      }
      Files.writeString(input, csv);
    }
    return new String[] {"produce", "--input", input.toString(), "--topic", topic,
        "--bootstrap-servers", bootstrap, "--batch", "50", "--kafka-config", props.toString()};
  }

  /** Every message of the exception and its causes, for asserting what an operator reads. */
  private static String chain(Throwable e) {
    StringBuilder s = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      s.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append('\n');
    }
    return s.toString();
  }
}
