package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.it.Stream.Update;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code dplrf serve} (a child JVM, so its exit status is observed) must never run as a process
 * that answers /health but will not release again: a snapshot it cannot restore is a failed start
 * (exit 1, one line naming the file, no listener opened), so is a state directory whose snapshot
 * is missing (a second run on the same data), and a fatal ingest failure later stops the process
 * with exit 1 so that a supervisor restarts it.
 */
@ExtendWith(KafkaSuite.class)
abstract class FailureScenarios {
  private static final Duration START = Duration.ofSeconds(60);
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final int EPOCH = 100;

  private final List<ChildService> children = new ArrayList<>();
  private Path stateDir;
  private Path logDir;

  @BeforeEach
  void directories() throws IOException {
    stateDir = Files.createTempDirectory("dplrf-it-failure-state");
    logDir = Files.createTempDirectory("dplrf-it-failure-log");
  }

  @AfterEach
  void cleanUp() throws Exception {
    for (ChildService c : children) {
      c.kill();
    }
    children.clear();
    RunningService.deleteTree(stateDir);
    RunningService.deleteTree(logDir);
  }

  /** R_1 of the default continual release (the BLT stream's files in blt/). */
  private static final String RELEASE_1 = "blt/blt-release-1.sketch";

  private Map<String, String> settings(KafkaEnvironment kafka, String topic, String epsilon) {
    return settings(kafka, topic, epsilon, stateDir);
  }

  private static Map<String, String> settings(KafkaEnvironment kafka, String topic, String epsilon,
      Path state) {
    return RunningService.settings("rows", "30", "cols", "20", "rank", "2", "epsilon", epsilon,
        "delta", "1e-6", "epochs", "4", "epoch-updates", "" + EPOCH, "clip", "1",
        "bootstrap-servers", kafka.bootstrapServers(), "topic", topic,
        "state-dir", state.toString(), "http-port", "0", "operator-port", "0");
  }

  private static String permissions(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  private String newTopic(KafkaEnvironment kafka) {
    String topic = "it-failure-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    return topic;
  }

  private static List<byte[]> records(int updates, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Update> u = new ArrayList<>();
    for (int x = 0; x < updates; x++) {
      u.add(new Update(rnd.nextInt(30), rnd.nextInt(20), rnd.nextDouble(-1, 1)));
    }
    return Stream.records(u, 10);
  }

  /** Runs a child that must fail to start; returns its single error line. */
  private String failedStart(Map<String, String> settings, String name) throws Exception {
    ChildService child = ChildService.launch(settings, logDir.resolve(name + ".log"));
    children.add(child);
    int status = child.awaitExit(START);
    String out = child.output();
    assertEquals(1, status, "exit status of a start that must fail:\n" + out);
    assertFalse(out.contains("pull releases:"), "the service must not have started listening:\n" + out);
    List<String> errors = out.lines().filter(l -> l.startsWith("dplrf serve: ")).toList();
    assertEquals(1, errors.size(), "one error line:\n" + out);
    System.out.println("failed start (" + name + "): " + errors.get(0));
    return errors.get(0);
  }

  @Test
  void corruptSnapshot_isAFailedStart_exitOneWithOneLineNamingTheFile(KafkaEnvironment kafka)
      throws Exception {
    String topic = newTopic(kafka);
    TestData.writeKey(stateDir.resolve("secret.key"), 11);
    Path snapshot = stateDir.resolve("ingest.snapshot");
    byte[] garbage = new byte[4096];
    new SplittableRandom(3).nextBytes(garbage);
    Files.write(snapshot, garbage);

    String error = failedStart(settings(kafka, topic, "1"), "corrupt");
    assertTrue(error.contains(snapshot.toString()) && error.contains("unreadable"), error);
    assertArrayEquals(garbage, Files.readAllBytes(snapshot), "the snapshot is left as it was");
  }

  /**
   * A first run creates its state directory and files owner-only (they hold the noiseless
   * sketches); restarts with other settings, another key or without the snapshot then fail.
   */
  @Test
  void snapshotUnderAnotherKeyOrOtherSettingsOrMissing_isAFailedStart_andLeavesTheStateAlone(
      KafkaEnvironment kafka) throws Exception {
    String topic = newTopic(kafka);
    Path state = stateDir.resolve("state"); // created by the service
    ChildService first = ChildService.start(settings(kafka, topic, "1", state),
        logDir.resolve("first.log"), START);
    children.add(first);
    Stream.sendAll(kafka.bootstrapServers(), topic, Stream.unkeyed(records(EPOCH, 1)));
    Poll.until("the release of epoch 1", DEADLINE,
        () -> Http.object(first.api("/v1/release/latest")), r -> longOf(r, "epoch") == 1);
    first.kill(); // the release follows the durable snapshot of its epoch
    Path snapshot = state.resolve("ingest.snapshot");
    byte[] before = Files.readAllBytes(snapshot);
    if (Files.getFileStore(state).supportsFileAttributeView(PosixFileAttributeView.class)) {
      assertEquals("rwx------", permissions(state));
      assertEquals("rw-------", permissions(snapshot));
      assertEquals("rwx------", permissions(state.resolve("blt")));
      assertEquals("rw-------", permissions(state.resolve(RELEASE_1)));
    }

    String settingsError = failedStart(settings(kafka, topic, "2", state), "other-settings");
    assertTrue(settingsError.contains(snapshot.toString())
        && settingsError.contains("other settings"), settingsError);
    assertTrue(settingsError.contains("(epsilon: 1.0 in the state directory, 2.0"
        + " configured)"), "only the setting that differs: " + settingsError);

    Path key = state.resolve("secret.key");
    Files.delete(key);
    TestData.writeKey(key, 12);
    String keyError = failedStart(settings(kafka, topic, "1", state), "other-key");
    assertTrue(keyError.contains(snapshot.toString()) && keyError.contains("key"), keyError);

    assertArrayEquals(before, Files.readAllBytes(snapshot), "the snapshot is left as it was");
    assertTrue(Files.exists(state.resolve(RELEASE_1)), "the stream's files are kept");

    // Without the snapshot, starting would be a second run on the same data: refused too.
    Files.delete(snapshot);
    String missing = failedStart(settings(kafka, topic, "1", state), "no-snapshot");
    assertTrue(missing.contains("no snapshot") && missing.contains("privacy budget a second time"),
        missing);
    assertTrue(Files.exists(state.resolve(RELEASE_1)), "the stream's files are kept");
  }

  private static void flipByte(Path f) throws IOException {
    byte[] b = Files.readAllBytes(f);
    b[b.length / 2] ^= 0x10;
    Files.write(f, b);
  }

  /**
   * Damaged files of the BLT stream (continual = factorization, the default): a flipped byte in
   * R_1 while serving is named by the 500 of every range that reads it (not "internal error"), by
   * /health (degraded) and by dplrf_state_damaged_files, while the other ranges are served and
   * ingest goes on to the release of the next epoch. A restart starts (R_1 is not needed to
   * restore) and finds it again by itself. A damaged file the restore needs (R_T after epoch T) is
   * a failed start whose one line names that file, not the snapshot.
   */
  @Test
  void damagedBltStateFiles_areNamed_theServiceStaysUp_andARestartNeedingOneFails(
      KafkaEnvironment kafka) throws Exception {
    String topic = newTopic(kafka);
    ChildService child = ChildService.start(settings(kafka, topic, "1"),
        logDir.resolve("serve.log"), START);
    children.add(child);
    Stream.sendAll(kafka.bootstrapServers(), topic, Stream.unkeyed(records(3 * EPOCH, 4)));
    Poll.until("the release of epoch 3", DEADLINE,
        () -> Http.object(child.api("/v1/release/latest")), r -> longOf(r, "epoch") == 3);

    flipByte(stateDir.resolve(RELEASE_1));
    for (String range : List.of("from=1&to=1", "from=2&to=3")) {
      Http.Answer refused = Http.get(child.api("/v1/release?" + range));
      assertEquals(500, refused.status(), refused.body());
      assertTrue(refused.body().contains("\"error\": \"the release of epochs [")
          && refused.body().contains("needs the prefix file blt/blt-release-1.sketch (epochs 1..1),"
          + " which is damaged (sketch snapshot checksum mismatch")
          && !refused.body().contains("internal error")
          && !refused.body().contains(stateDir.toString()), refused.body());
    }
    assertEquals(200, Http.get(child.api("/v1/release?from=3&to=3")).status());
    Http.Answer health = Http.get(child.api("/health"));
    assertTrue(health.body().contains("degraded") && health.body().contains("state-file-damaged")
        && health.body().contains("blt/blt-release-1.sketch"), health.body());
    Poll.until("dplrf_state_damaged_files 1 (published with the ingest statistics)", DEADLINE,
        () -> RunningService.sample(Http.get(child.operator("/metrics")).body(),
            "dplrf_state_damaged_files", null, null), v -> v == 1);

    Stream.sendAll(kafka.bootstrapServers(), topic, Stream.unkeyed(records(EPOCH, 5)));
    Poll.until("the release of epoch 4 (ingest goes on)", DEADLINE,
        () -> Http.object(child.api("/v1/release/latest")), r -> longOf(r, "epoch") == 4);
    assertTrue(child.isAlive(), child.output());
    child.kill();

    ChildService again = ChildService.start(settings(kafka, topic, "1"),
        logDir.resolve("restart.log"), START);
    children.add(again);
    Poll.until("/health names the damaged file after the restart", DEADLINE,
        () -> Http.get(again.api("/health")).body(),
        b -> b.contains("state-file-damaged") && b.contains("blt/blt-release-1.sketch"));
    assertEquals(4, longOf(Http.object(again.api("/v1/release/latest")), "epoch"));
    assertEquals(500, Http.get(again.api("/v1/release?from=2&to=4")).status());
    again.kill();

    Path last = stateDir.resolve("blt/blt-release-4.sketch");
    flipByte(last);
    String error = failedStart(settings(kafka, topic, "1"), "damaged-last-release");
    assertTrue(error.contains(last.toString() + " is damaged")
        && error.contains("that names it is whole"), error);
  }

  /**
   * A state write the directory refuses pauses ingest instead of ending the process: the service
   * stays up, /health says degraded with the reason, and once the directory takes writes again
   * the same close is retried and epoch 1 is released, without a person.
   */
  @Test
  void refusedStateWriteWhileServing_pausesIngest_andResumesByItself(KafkaEnvironment kafka)
      throws Exception {
    String topic = newTopic(kafka);
    ChildService child = ChildService.start(settings(kafka, topic, "1"),
        logDir.resolve("serve.log"), START);
    children.add(child);
    Poll.until("/health ok and dplrf_ingest_running 1", DEADLINE, () -> {
      Http.Answer health = Http.get(child.api("/health"));
      Http.Answer metrics = Http.get(child.operator("/metrics"));
      return health.status() == 200
          && RunningService.sample(metrics.body(), "dplrf_ingest_running", null, null) == 1;
    }, ok -> ok);

    // Closing epoch 1 must write the stream's state files into blt/ (continual = factorization,
    // the default), which is now a file: every attempt fails until it is a directory again.
    Path files = stateDir.resolve("blt");
    RunningService.deleteTree(files);
    Files.writeString(files, "not a directory");
    Stream.sendAll(kafka.bootstrapServers(), topic, Stream.unkeyed(records(EPOCH, 2)));

    String degraded = Poll.until("/health degraded: state-write-refused", DEADLINE,
        () -> Http.get(child.api("/health")).body(), b -> b.contains("state-write-refused"));
    assertTrue(degraded.contains("degraded"), degraded);
    assertTrue(degraded.contains("closing epoch 1 failed") && degraded.contains("ingest reads on"
        + " at most to the end of the open epoch, then waits"), degraded);
    assertTrue(child.isAlive(), "the service stays up:\n" + child.output());

    Files.delete(files); // the directory takes writes again: the close is retried
    Poll.until("the release of epoch 1", DEADLINE,
        () -> Http.object(child.api("/v1/release/latest")), r -> longOf(r, "epoch") == 1);
    Poll.until("/health ok again", DEADLINE, () -> Http.get(child.api("/health")).body(),
        b -> b.contains("\"ok\""));
  }

}
