package io.dplrf.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import io.dplrf.deploy.kafka.EmbeddedKafka;

/**
 * The broker {@code dplrf serve} embeds, on a free port, with its data in a temporary directory,
 * started with a SASL-over-TLS listener (PLAIN and SCRAM-SHA-512), an SSL listener that requires
 * a client certificate, and an authorizer as well ({@link EmbeddedKafka#startWithSasl}), which
 * leave the plain listener every other test uses as it is. The listeners' key and self-signed
 * certificate (for 127.0.0.1), and a client's, are made with the JDK's {@code keytool} at start.
 */
final class EmbeddedKafkaEnvironment implements KafkaEnvironment, AutoCloseable {

  /** Two users: one the tests grant ACLs to, one they grant nothing. */
  static final Map<String, String> SASL_USERS = Map.of("dplrf-it", "it-secret",
      "stranger", "stranger-secret");

  /** The client certificate's subject; its Kafka principal is {@code User:} and this. */
  static final String CLIENT_SUBJECT = "CN=dplrf-it-client";

  private final Path dataDir;
  private final Path certificate;
  private final EmbeddedKafka.TlsKeyStore client;
  private final EmbeddedKafka kafka;

  private EmbeddedKafkaEnvironment(Path dataDir, Path certificate,
      EmbeddedKafka.TlsKeyStore client, EmbeddedKafka kafka) {
    this.dataDir = dataDir;
    this.certificate = certificate;
    this.client = client;
    this.kafka = kafka;
  }

  static EmbeddedKafkaEnvironment start() {
    try {
      Path dataDir = Files.createTempDirectory("dplrf-it-kafka");
      Path tlsDir = Files.createDirectories(dataDir.resolve("tls"));
      EmbeddedKafka.TlsKeyStore keyStore = new EmbeddedKafka.TlsKeyStore(
          tlsDir.resolve("broker.p12"), "it-store-secret");
      Path certificate = tlsDir.resolve("broker.pem");
      keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048",
          "-validity", "7", "-dname", "CN=localhost", "-ext", "SAN=IP:127.0.0.1,DNS:localhost",
          "-storetype", "PKCS12", "-keystore", keyStore.file().toString(),
          "-storepass", keyStore.password(), "-keypass", keyStore.password());
      keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", keyStore.file().toString(),
          "-storepass", keyStore.password(), "-file", certificate.toString());
      // A client's key and self-signed certificate, which the client-certificate listener trusts.
      EmbeddedKafka.TlsKeyStore client = new EmbeddedKafka.TlsKeyStore(
          tlsDir.resolve("client.p12"), "it-client-secret");
      Path clientCertificate = tlsDir.resolve("client.pem");
      keytool("-genkeypair", "-alias", "client", "-keyalg", "RSA", "-keysize", "2048",
          "-validity", "7", "-dname", CLIENT_SUBJECT, "-storetype", "PKCS12",
          "-keystore", client.file().toString(), "-storepass", client.password(),
          "-keypass", client.password());
      keytool("-exportcert", "-rfc", "-alias", "client", "-keystore", client.file().toString(),
          "-storepass", client.password(), "-file", clientCertificate.toString());
      return new EmbeddedKafkaEnvironment(dataDir, certificate, client,
          EmbeddedKafka.startWithSasl(dataDir.resolve("kafka"), "127.0.0.1", 0, SASL_USERS,
              keyStore, clientCertificate));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs the JDK's keytool; its output goes to this process's. */
  private static void keytool(String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    try {
      int exit = new ProcessBuilder(command).inheritIO().start().waitFor();
      if (exit != 0) {
        throw new IOException("keytool " + args[0] + " exited " + exit);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running keytool", e);
    }
  }

  @Override
  public String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  @Override
  public void createTopic(String name, int partitions) {
    kafka.createTopic(name, partitions);
  }

  @Override
  public Optional<Secured> secured() {
    return Optional.of(new Secured(kafka.saslBootstrapServers(), SASL_USERS, certificate,
        kafka.mutualTlsBootstrapServers(), client.file(), client.password(),
        "User:" + CLIENT_SUBJECT));
  }

  @Override
  public void close() throws IOException {
    kafka.close();
    try (Stream<Path> paths = Files.walk(dataDir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Override
  public String toString() {
    return "embedded Kafka at " + bootstrapServers();
  }
}
