package io.dplrf.it;

/**
 * A Kafka cluster that end-to-end tests talk to, whatever runs it: the embedded broker from the
 * Maven Central jars ({@link EmbeddedKafkaEnvironment}) or {@code apache/kafka} in Docker
 * ({@link TestcontainersKafkaEnvironment}). Shared by every test of a suite (see {@link KafkaSuite}),
 * so tests use their own topic and group names.
 */
public interface KafkaEnvironment {

  /** {@code host:port} for producers, consumers and admins. */
  String bootstrapServers();

  /** Creates a topic with one replica; an existing topic of that name is fine. */
  void createTopic(String name, int partitions);

  /**
   * Secured listeners — SASL over TLS (PLAIN and SCRAM-SHA-512, the same password), and TLS with
   * client certificates — that let their users do only what ACLs grant (the
   * clients of {@link #bootstrapServers()} being super users, who can grant it); empty where the
   * cluster has none.
   */
  default java.util.Optional<Secured> secured() {
    return java.util.Optional.empty();
  }

  /**
   * The secured listeners: SASL's {@code host:port}, its users (name → password), a PEM file of
   * the certificate clients should trust; the client-certificate listener's {@code host:port}, a
   * PKCS#12 key store with a certificate it accepts, the store's password, and the principal that
   * certificate authenticates as.
   */
  record Secured(String bootstrapServers, java.util.Map<String, String> users,
      java.nio.file.Path trustedCertificate, String mutualTlsBootstrapServers,
      java.nio.file.Path clientKeyStore, String clientKeyStorePassword, String clientPrincipal) {}
}
