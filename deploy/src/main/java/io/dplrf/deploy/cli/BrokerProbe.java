package io.dplrf.deploy.cli;

import io.dplrf.ingest.KafkaReason;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * What a producer needs before it sends, asked before a producer is made: something listening at
 * the bootstrap list (a plain TCP connect) and the topic. A producer without a broker, or sending
 * to a topic that is not there (the service's embedded Kafka does not create topics on first use),
 * waits its whole {@code max.block.ms} (60 s) and then reports a missing topic. The probe says in
 * seconds what is wrong.
 */
final class BrokerProbe {
  /** Per address: a broker on the same network answers a connect in milliseconds. */
  static final int CONNECT_TIMEOUT_MS = 3_000;

  private BrokerProbe() {}

  /**
   * Returns once one address of {@code bootstrap} ({@code host:port[,host:port...]}) accepts a
   * TCP connection.
   *
   * @param setting the flag that gave the list, named in the error
   * @throws IOException "nothing is listening at ..." when none does
   * @throws IllegalArgumentException if an address is not {@code host:port}
   */
  static void requireListening(String bootstrap, String setting) throws IOException {
    List<String> failures = new ArrayList<>();
    for (String address : bootstrap.split(",")) {
      String a = address.strip();
      int colon = a.lastIndexOf(':');
      int port = -1;
      try {
        port = colon < 0 ? -1 : Integer.parseInt(a.substring(colon + 1));
      } catch (NumberFormatException e) {
        // reported below
      }
      if (port < 1 || port > 65_535 || colon == 0) {
        throw new IllegalArgumentException(setting + " must be a list of host:port. Provided value: "
            + bootstrap);
      }
      String host = a.substring(0, colon).replace("[", "").replace("]", "");
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
        return;
      } catch (UnknownHostException e) {
        failures.add(a + " (unknown host)");
      } catch (SocketTimeoutException e) {
        failures.add(a + " (no answer within " + CONNECT_TIMEOUT_MS / 1000 + " s)");
      } catch (IOException e) {
        failures.add(a + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"));
      }
    }
    throw new IOException("nothing is listening at " + String.join(", ", failures) + " ("
        + setting + "): start 'dplrf serve' (its embedded Kafka listens on 127.0.0.1:9092) or"
        + " give your Kafka's address with " + setting);
  }

  /** How long the topic's description may take: a broker answers in milliseconds. */
  static final int DESCRIBE_SECONDS = 15;

  /**
   * Returns once Kafka describes {@code topic}, or when describing it is not authorized (the
   * producer then meets Kafka's own refusal).
   *
   * @param clientProps the producer's settings, bootstrap and {@code --kafka-config}
   * @throws IOException naming the topic when it does not exist, or Kafka's reason when the
   *     description fails or does not come within {@link #DESCRIBE_SECONDS}
   */
  static void requireTopic(Map<String, Object> clientProps, String topic, String bootstrap)
      throws IOException, InterruptedException {
    Admin admin = Admin.create(clientProps);
    try {
      admin.describeTopics(List.of(topic)).allTopicNames().get(DESCRIBE_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        throw new IOException("topic '" + topic + "' does not exist on Kafka at " + bootstrap
            + ": start 'dplrf serve' first (it creates its topics), create the topic, or name"
            + " another with --topic");
      }
      if (!(e.getCause() instanceof TopicAuthorizationException)) {
        throw new IOException("Kafka at " + bootstrap + " cannot describe topic '" + topic + "': "
            + KafkaReason.of(e.getCause()) + " (check --bootstrap-servers and --kafka-config)",
            e.getCause());
      }
    } catch (TimeoutException e) {
      throw new IOException("Kafka at " + bootstrap + " did not describe topic '" + topic
          + "' within " + DESCRIBE_SECONDS + " s: is that address a Kafka listener? (check"
          + " --bootstrap-servers and --kafka-config)", e);
    } finally {
      // Not Admin.close(), which would wait up to default.api.timeout.ms (60 s) for a request
      // that has just timed out here.
      admin.close(Duration.ofSeconds(5));
    }
  }
}
