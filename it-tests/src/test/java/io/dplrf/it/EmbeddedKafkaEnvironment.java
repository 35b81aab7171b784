package io.dplrf.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import io.dplrf.deploy.kafka.EmbeddedKafka;

/**
 * The broker {@code dplrf serve} embeds, on a free port, with its data in a temporary directory,
 * started with its SASL/PLAIN listener and authorizer as well ({@link EmbeddedKafka#startWithSaslPlain}),
 * which leave the plain listener every other test uses as it is.
 */
final class EmbeddedKafkaEnvironment implements KafkaEnvironment, AutoCloseable {

  /** Two users: one the tests grant ACLs to, one they grant nothing. */
  static final Map<String, String> SASL_USERS = Map.of("dplrf-it", "it-secret",
      "stranger", "stranger-secret");

  private final Path dataDir;
  private final EmbeddedKafka kafka;

  private EmbeddedKafkaEnvironment(Path dataDir, EmbeddedKafka kafka) {
    this.dataDir = dataDir;
    this.kafka = kafka;
  }

  static EmbeddedKafkaEnvironment start() {
    try {
      Path dataDir = Files.createTempDirectory("dplrf-it-kafka");
      return new EmbeddedKafkaEnvironment(dataDir,
          EmbeddedKafka.startWithSaslPlain(dataDir, "127.0.0.1", 0, SASL_USERS));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
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
  public Optional<SaslPlain> saslPlain() {
    return Optional.of(new SaslPlain(kafka.saslBootstrapServers(), SASL_USERS));
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
