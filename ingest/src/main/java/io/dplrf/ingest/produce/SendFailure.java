package io.dplrf.ingest.produce;

import io.dplrf.ingest.KafkaReason;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * What a producer here reports when Kafka refused or failed a send: the topic and Kafka's own
 * reason ({@link KafkaReason}: a wrong password, a missing ACL, an unreachable broker, a TLS
 * alert), as an I/O failure of the command rather than a bug in it. The reason goes into the
 * message because a command prints one line.
 */
final class SendFailure {
  private SendFailure() {}

  static IOException of(String topic, Exception cause) {
    return new IOException("sending to '" + topic + "' failed: " + KafkaReason.of(cause), cause);
  }

  /**
   * The same, where a callback cannot throw a checked exception; a {@code send} that declares
   * {@link IOException} unwraps it ({@link Unchecked#getCause}).
   */
  static Unchecked unchecked(String topic, Exception cause) {
    return new Unchecked(of(topic, cause));
  }

  /** A send failure on its way out of a callback. */
  static final class Unchecked extends UncheckedIOException {
    private static final long serialVersionUID = 1L;

    private Unchecked(IOException cause) {
      super(cause.getMessage(), cause);
    }
  }
}
