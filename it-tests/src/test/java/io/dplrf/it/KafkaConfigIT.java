package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code kafka-config} and {@code produce --kafka-config} against the embedded broker. */
@ExtendWith(KafkaSuite.class)
class KafkaConfigIT {
  /**
   * A Kafka client properties file reaches every client: {@code dplrf produce --kafka-config}
   * sends 600 updates (CSV, records of 50), and the service, with the same file as {@code
   * kafka-config}, reads them with its fetch size of 1 KiB (smaller than a record: the broker
   * still returns one batch per fetch) and tags its consumer's metrics on /metrics with the
   * file's {@code client.id} (+ "-ingest"). A file setting what dplrf sets itself is refused by
   * produce, exit 2.
   */
  @Test
  void kafkaConfig_reachesProduceAndTheServicesKafkaClients(KafkaEnvironment kafka)
      throws Exception {
    Path dir = Files.createTempDirectory("dplrf-it-client");
    Path props = Files.writeString(dir.resolve("client.properties"),
        "# tuning for a test\nclient.id = acme-dplrf\nmax.partition.fetch.bytes = 1024\n");
    Path bad = Files.writeString(dir.resolve("bad.properties"), "acks = 1\n");
    StringBuilder csv = new StringBuilder();
    SplittableRandom rnd = new SplittableRandom(7);
    for (int u = 0; u < 600; u++) {
      csv.append(rnd.nextInt(10)).append(',').append(rnd.nextInt(8)).append(',')
          .append(rnd.nextDouble(-1, 1)).append('\n');
    }
    Path input = Files.writeString(dir.resolve("updates.csv"), csv);
    String topic = "it-kafka-config-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    Function<Path, String[]> produce = config -> new String[] {"produce", "--input",
        input.toString(), "--topic", topic, "--bootstrap-servers", kafka.bootstrapServers(),
        "--batch", "50", "--kafka-config", config.toString()};
    try (RunningService svc = RunningService.start(kafka, topic,
        Files.createTempDirectory("dplrf-it-kafka-config"), RunningService.settings("rows", "10",
            "cols", "8", "rank", "2", "epsilon", "1", "delta", "1e-6", "epochs", "4",
            "epoch-updates", "1000000", "kafka-config", props.toString()))) {
      assertEquals(0, Cli.run(produce.apply(props), System.out, System.err), "produce");
      Map<String, Object> ingest = Poll.until("all 12 records consumed", Duration.ofSeconds(60),
          svc::ingest, m -> longOf(m, "recordsConsumed") == 12);
      assertEquals(600, longOf(ingest, "updatesApplied"), "" + ingest);
      assertTrue(svc.metrics().lines().anyMatch(l -> l.startsWith("kafka_consumer_")
          && l.contains("client_id=\"acme-dplrf-ingest\"")), "consumer metrics: file's client.id");
    }
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertEquals(2, Cli.run(produce.apply(bad), System.out,
        new PrintStream(err, true, StandardCharsets.UTF_8)));
    String message = err.toString(StandardCharsets.UTF_8);
    assertTrue(message.contains("sets acks, which dplrf sets itself"), message);
    for (Path f : List.of(props, bad, input, dir)) {
      Files.deleteIfExists(f);
    }
  }
}
