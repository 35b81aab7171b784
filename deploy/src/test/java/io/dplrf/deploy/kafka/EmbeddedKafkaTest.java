package io.dplrf.deploy.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real Kafka server, started in this JVM: records go in and come out again, also after a
 * restart on the same data directory; once closed it no longer listens. The whole class takes a
 * few seconds.
 */
class EmbeddedKafkaTest {

  private static final int RECORDS = 1000;
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @TempDir Path dataDir;

  @Test
  void produce1000_consumeBack_andAgainAfterRestartOnSameDataDir() {
    List<String> sent = new ArrayList<>();
    for (int k = 0; k < RECORDS; k++) {
      sent.add("update-" + k);
    }
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dataDir, "127.0.0.1", 0)) {
      kafka.createTopic("updates", 3);
      kafka.createTopic("updates", 3); // idempotent
      produce(kafka.bootstrapServers(), "updates", sent);
      assertEquals(sent, sortedByIndex(consumeAll(kafka.bootstrapServers(), "updates", "g1")));
    }
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dataDir, "127.0.0.1", 0)) {
      kafka.createTopic("updates", 3); // exists from before the restart
      assertEquals(sent, sortedByIndex(consumeAll(kafka.bootstrapServers(), "updates", "g2")),
          "records written before the restart must be read back after it");
    }
  }

  /**
   * A stop logs nothing at WARN: the broker's shutdown closes one of its network clients twice,
   * which Kafka reports as a warning that means nothing to an operator. What the service's log
   * shows of Kafka comes from the program's slf4j settings (deploy's simplelogger.properties).
   */
  @Test
  void close_logsNoWarning() throws Exception {
    java.io.PrintStream original = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    EmbeddedKafka kafka = EmbeddedKafka.start(dataDir, "127.0.0.1", 0);
    try {
      kafka.createTopic("updates", 1);
      produce(kafka.bootstrapServers(), "updates", List.of("one"));
      // slf4j-simple looks System.err up at every line.
      System.setErr(new java.io.PrintStream(new java.io.OutputStream() {
        @Override
        public void write(int b) {
          original.write(b);
          captured.write(b);
        }
      }, true, java.nio.charset.StandardCharsets.UTF_8));
      kafka.close();
    } finally {
      System.setErr(original);
      kafka.close();
    }
    String log = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(log.lines().noneMatch(l -> l.contains("[WARN]")), log);
  }

  /** close() returns once the broker has stopped: its port refuses connections at once. */
  @Test
  void close_stopsListening_refusesAdminCalls_andIsIdempotent() {
    EmbeddedKafka kafka = EmbeddedKafka.start(dataDir, "127.0.0.1", 0);
    String bootstrap = kafka.bootstrapServers();
    try {
      kafka.createTopic("t", 1);
    } finally {
      kafka.close();
    }
    int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
    assertThrows(ConnectException.class, () -> {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      }
    }, "still listening on " + bootstrap);
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> kafka.createTopic("u", 1));
    assertEquals("embedded Kafka is closed", e.getMessage());
    kafka.close();
  }

  @Test
  void portZero_picksFreePorts_twoBrokersSideBySide() {
    try (EmbeddedKafka a = EmbeddedKafka.start(dataDir.resolve("a"), "127.0.0.1", 0);
         EmbeddedKafka b = EmbeddedKafka.start(dataDir.resolve("b"), "127.0.0.1", 0)) {
      assertTrue(a.bootstrapServers().matches("127\\.0\\.0\\.1:[1-9][0-9]*"), a.bootstrapServers());
      assertNotEquals(a.bootstrapServers(), b.bootstrapServers());
      b.createTopic("t", 1);
      produce(b.bootstrapServers(), "t", List.of("x"));
      assertEquals(List.of("x"), consumeAll(b.bootstrapServers(), "t", "g"));
    }
  }

  @Test
  void invalidArguments_areRejectedWithTheValue() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> EmbeddedKafka.start(dataDir, "127.0.0.1", 70_000));
    assertTrue(e.getMessage().contains("70000"), e.getMessage());
  }

  @Test
  void saslUsers_noneOrUnquotable_areRejectedBeforeStarting() {
    assertThrows(IllegalArgumentException.class,
        () -> EmbeddedKafka.startWithSasl(dataDir, "127.0.0.1", 0, java.util.Map.of(), null));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> EmbeddedKafka.startWithSasl(dataDir, "127.0.0.1", 0,
            java.util.Map.of("eve", "pass\" user_mallory=\"x"), null));
    assertTrue(e.getMessage().contains("eve"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> {
      try (EmbeddedKafka k = EmbeddedKafka.start(dataDir.resolve("plain"), "127.0.0.1", 0)) {
        k.saslBootstrapServers();
      }
    });
  }

  static void produce(String bootstrap, String topic, List<String> values) {
    Map<String, Object> config = Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
      for (String v : values) {
        producer.send(new ProducerRecord<>(topic, v, v));
      }
      producer.flush();
    }
  }

  /** Reads from the beginning until {@code expected} records arrived or the deadline passed. */
  static List<String> consumeAll(String bootstrap, String topic, String group) {
    Map<String, Object> config = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.GROUP_ID_CONFIG, group + "-" + UUID.randomUUID(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    List<String> got = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
      consumer.subscribe(List.of(topic));
      long end = System.nanoTime() + DEADLINE.toNanos();
      int idle = 0;
      while (System.nanoTime() < end) {
        var records = consumer.poll(Duration.ofMillis(200));
        for (ConsumerRecord<String, String> r : records) {
          got.add(r.value());
        }
        // Done once something arrived and two polls in a row brought nothing more.
        idle = records.isEmpty() && !got.isEmpty() ? idle + 1 : 0;
        if (idle >= 2 && consumer.assignment().size() > 0
            && consumer.endOffsets(consumer.assignment()).entrySet().stream()
                .allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
          break;
        }
      }
    }
    return got;
  }

  private static List<String> sortedByIndex(List<String> values) {
    List<String> sorted = new ArrayList<>(values);
    sorted.sort((x, y) -> Integer.compare(index(x), index(y)));
    return sorted;
  }

  private static int index(String v) {
    return Integer.parseInt(v.substring(v.indexOf('-') + 1));
  }
}
