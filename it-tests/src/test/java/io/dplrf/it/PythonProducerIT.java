package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static io.dplrf.it.Http.objectOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Python producer example ({@code examples/produce_updates.py}, confluent-kafka) against a
 * real service: its records must decode as dplrf's record format, keyed by the CSV's user column.
 * Skipped without python3 and its confluent_kafka module, except in CI ({@code DPLRF_CI}), whose
 * {@code .ci/run} installs Debian's python3-confluent-kafka.
 */
@ExtendWith(KafkaSuite.class)
class PythonProducerIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  /**
   * Two users under {@code privacy-unit = key}, C = 1: alice sends 0.4 three times (the third is
   * clipped to her remaining 0.2), bob 0.5 twice (within his budget). The counts come out as 5
   * applied and exactly 1 clipped only if every update decodes (16-byte big-endian i, j, delta)
   * and carries its own user's key: unkeyed records would be dead-lettered, and one key for all
   * would clip more.
   */
  @Test
  void pythonExample_recordsDecode_withTheUserColumnAsKey(KafkaEnvironment kafka) throws Exception {
    Path python = python();
    Path dir = Files.createTempDirectory("dplrf-it-python");
    Path input = Files.writeString(dir.resolve("ratings.csv"), """
        i,j,delta,user
        0,1,0.4,alice
        0,2,0.4,alice
        3,4,0.5,bob
        0,5,0.4,alice
        3,6,0.5,bob
        """);
    String topic = "it-python-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    try (RunningService svc = RunningService.start(kafka, topic, dir.resolve("state"),
        RunningService.settings("rows", "10", "cols", "8", "rank", "2", "epsilon", "1",
            "delta", "1e-6", "epochs", "4", "epoch-updates", "1000", "clip", "1",
            "privacy-unit", "key"))) {
      String out = run(List.of(python.toString(),
          RepoFiles.file("examples/produce_updates.py").toString(), "--input", input.toString(),
          "--key-column", "3", "--bootstrap-servers", kafka.bootstrapServers(), "--topic", topic));
      assertTrue(out.contains("sent 5 updates to " + topic), out);
      Map<String, Object> ingest = Poll.until("5 updates consumed", DEADLINE, svc::ingest,
          m -> longOf(m, "updatesConsumed") == 5);
      assertEquals(5, longOf(ingest, "updatesApplied"), "" + ingest);
      assertEquals(1, longOf(ingest, "updatesClipped"), "alice's third update only: " + ingest);
      assertEquals(0, longOf(ingest, "updatesDropped"), "" + ingest);
      for (Object n : objectOf(ingest, "recordsDeadLettered").values()) {
        assertEquals(0L, ((Number) n).longValue(), "no dead letters: " + ingest);
      }
      // Records hold one user's consecutive updates: alice, bob, alice, bob.
      assertEquals(4, longOf(ingest, "recordsConsumed"), "" + ingest);
    }
    RunningService.deleteTree(dir);
  }

  /** python3 with confluent_kafka, or a skip (a failure in CI). */
  private static Path python() throws Exception {
    for (String candidate : new String[] {"/usr/bin/python3", "/usr/local/bin/python3"}) {
      Path p = Path.of(candidate);
      if (Files.isExecutable(p)) {
        Process check = new ProcessBuilder(p.toString(), "-c", "import confluent_kafka")
            .redirectErrorStream(true).start();
        check.getInputStream().readAllBytes();
        if (check.waitFor(30, TimeUnit.SECONDS) && check.exitValue() == 0) {
          return p;
        }
      }
    }
    if (System.getenv("DPLRF_CI") != null) {
      fail("python3 with confluent_kafka not found (CI installs Debian's python3-confluent-kafka"
          + " in .ci/run)");
    }
    Assumptions.abort("python3 with confluent_kafka not installed (apt-get install"
        + " python3-confluent-kafka); Python producer example test skipped");
    return null;
  }

  private static String run(List<String> command) throws Exception {
    Path log = Files.createTempFile("dplrf-it-python", ".log");
    Process p = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("the example did not finish in 60 s: " + Files.readString(log));
    }
    String text = Files.readString(log, StandardCharsets.UTF_8);
    Files.delete(log);
    assertEquals(0, p.exitValue(), "the example's exit code; output:\n" + text);
    return text;
  }
}
