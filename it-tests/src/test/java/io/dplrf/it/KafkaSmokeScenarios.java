package io.dplrf.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Scenarios every {@link KafkaEnvironment} must pass; subclasses pick the environment. The records
 * are dplrf's wire format (docs/user-guide.md, "Records": 16 bytes big-endian {@code int32 i, int32
 * j, float64 Δ}), written and read as opaque bytes.
 */
@ExtendWith(KafkaSuite.class)
abstract class KafkaSmokeScenarios {

  private static final int RECORDS = 500;
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @Test
  void producedUpdates_areConsumedBack_completeAndInPartitionOrder(KafkaEnvironment kafka) {
    String topic = "smoke-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    kafka.createTopic(topic, 1); // idempotent
    List<byte[]> sent = new ArrayList<>();
    for (int k = 0; k < RECORDS; k++) {
      sent.add(ByteBuffer.allocate(16).putInt(k).putInt(k % 7).putDouble(0.5 * k).array());
    }
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
      for (byte[] v : sent) {
        producer.send(new ProducerRecord<>(topic, v));
      }
      producer.flush();
    }

    List<byte[]> got = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.GROUP_ID_CONFIG, "smoke-" + UUID.randomUUID(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
      consumer.subscribe(List.of(topic));
      long end = System.nanoTime() + DEADLINE.toNanos();
      while (got.size() < RECORDS && System.nanoTime() < end) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          got.add(r.value());
        }
      }
      consumer.commitSync();
    }

    assertEquals(RECORDS, got.size(), "records consumed from " + kafka);
    for (int k = 0; k < RECORDS; k++) {
      assertEquals(Arrays.toString(sent.get(k)), Arrays.toString(got.get(k)),
          "record " + k + " (one partition keeps order)");
    }
  }
}
