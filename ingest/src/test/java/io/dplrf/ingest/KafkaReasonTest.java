package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import javax.net.ssl.SSLHandshakeException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class KafkaReasonTest {
  @Test
  void addsTheRootCause_onlyWhereItSaysMore() {
    assertEquals("Failed to process post-handshake messages (Received fatal alert:"
        + " certificate_required)", KafkaReason.of(new SslAuthenticationException(
            "Failed to process post-handshake messages",
            new SSLHandshakeException("Received fatal alert: certificate_required"))));
    assertEquals("Not authorized to access topics: [t]",
        KafkaReason.of(new TopicAuthorizationException("Not authorized to access topics: [t]")));
    RuntimeException wrapped = new RuntimeException("outer: inner", new RuntimeException("inner"));
    assertEquals("outer: inner", KafkaReason.of(wrapped), "said already");
    assertEquals("null", KafkaReason.of(new RuntimeException((String) null)));
  }
}
