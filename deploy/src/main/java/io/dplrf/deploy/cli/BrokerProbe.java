package io.dplrf.deploy.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether anything listens at a Kafka bootstrap list, asked with a plain TCP connect before a
 * Kafka client is made: a client without a broker retries for its whole {@code max.block.ms}
 * (60 s), logging a warning per attempt, and then reports a missing topic. The probe says in
 * seconds what is wrong. It checks reachability only; security settings and topics are the
 * client's to check.
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
}
