package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static io.dplrf.it.Http.objectOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.it.Stream.Update;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The first hour's epoch rules end to end (issue #27), on the suite's broker: a stream that ends
 * inside an epoch is released by {@code POST /admin/close-epoch} or by {@code
 * epoch-idle-seconds}; a restarted service answers with what it had released — the epoch, its
 * time, exhaustion — from its first request, and never looks like a new run.
 */
@ExtendWith(KafkaSuite.class)
class EpochEndAndRestartIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private final List<RunningService> services = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (RunningService s : services) {
      s.close();
    }
  }

  /** {@code n} updates of a 10 x 8 matrix, Δ in (−1, 1), from {@code seed}. */
  static List<Update> updates(int n, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Update> u = new ArrayList<>();
    for (int x = 0; x < n; x++) {
      u.add(new Update(rnd.nextInt(10), rnd.nextInt(8), rnd.nextDouble(-1, 1)));
    }
    return u;
  }

  private static String topic(KafkaEnvironment kafka, String name) {
    String topic = "it-" + name + "-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    return topic;
  }

  /** The defaults here, changed by name, value pairs (a null value unsets). */
  private static Map<String, String> settings(String... changes) {
    Map<String, String> s = RunningService.settings("rows", "10", "cols", "8", "rank", "2",
        "epsilon", "1", "delta", "1e-6", "epochs", "8", "epoch-updates", "40");
    for (int x = 0; x < changes.length; x += 2) {
      if (changes[x + 1] == null) {
        s.remove(changes[x]);
      } else {
        s.put(changes[x], changes[x + 1]);
      }
    }
    return s;
  }

  private RunningService start(KafkaEnvironment kafka, String topic, Path state,
      Map<String, String> settings) throws Exception {
    RunningService s = RunningService.start(kafka, topic, state, settings);
    services.add(s);
    return s;
  }

  private static Map<String, Object> awaitRelease(RunningService s, int epoch) {
    return Poll.until("the release of epoch " + epoch, DEADLINE,
        () -> Http.object(s.api("/v1/release/latest")), r -> longOf(r, "epoch") == epoch);
  }

  /**
   * 100 updates with epochs of 40: epochs 1 and 2 close at their count, 20 updates stay in epoch
   * 3, which {@code /v1/status} says waits (closed by itself after the default 300 s idle). The
   * operator closes it; a second close of the then empty epoch 4 is refused (409), and an
   * epoch cut by the clock refuses the request too.
   */
  @Test
  void streamEndingInsideAnEpoch_isReleasedByPostAdminCloseEpoch(KafkaEnvironment kafka)
      throws Exception {
    String topic = topic(kafka, "close-epoch");
    List<Update> all = updates(100, 1);
    Stream.sendAll(kafka.bootstrapServers(), topic, Stream.unkeyed(Stream.records(all, 10)));
    RunningService s = start(kafka, topic, Files.createTempDirectory("dplrf-it-close"),
        settings());
    awaitRelease(s, 2);
    Map<String, Object> open = objectOf(Poll.until("20 update positions in epoch 3", DEADLINE,
        s::ingest, i -> longOf(objectOf(i, "openEpoch"), "updatePositions") == 20), "openEpoch");
    assertEquals(3, longOf(open, "epoch"), "" + open);
    assertEquals(40, longOf(open, "closesAtUpdatePositions"), "" + open);
    // By default the idle rule closes it; while it waits, the public status says so and how.
    assertEquals(300.0, ((Number) open.get("idleCloseSeconds")).doubleValue(), "" + open);
    Map<String, Object> status = Poll.until("/v1/status says epoch 3 waits", DEADLINE,
        () -> Http.object(s.api("/v1/status")),
        st -> String.valueOf(st.get("message")).startsWith("epoch 3 "));
    assertEquals("epoch 3 holds updates and waits for more (the count epoch-updates is not"
        + " reached); it closes by itself 300 s after the last record (epoch-idle-seconds), or"
        + " POST /admin/close-epoch on the operator port closes it now", status.get("message"));

    Http.Answer closed = Http.send("POST", s.operator("/admin/close-epoch"), null);
    assertEquals(202, closed.status(), "" + closed);
    @SuppressWarnings("unchecked")
    Map<String, Object> body = (Map<String, Object>) closed.json();
    assertEquals(3, longOf(body, "epoch"), "" + closed);
    awaitRelease(s, 3);
    Map<String, Object> ingest = s.ingest();
    assertEquals(3, longOf(ingest, "epochsClosed"), "" + ingest);
    assertEquals(100, longOf(ingest, "updatesApplied"), "" + ingest);
    assertEquals(Stream.checksum(all, 1), ingest.get("checksum"), "" + ingest);

    Http.Answer empty = Http.send("POST", s.operator("/admin/close-epoch"), null);
    assertEquals(409, empty.status(), "" + empty);
    assertTrue(empty.body().contains("epoch 4 holds no update yet"), "" + empty);

    RunningService timed = start(kafka, topic(kafka, "close-timed"),
        Files.createTempDirectory("dplrf-it-close-timed"),
        settings("epoch-updates", null, "epoch-seconds", "3600"));
    Http.Answer clock = Http.send("POST", timed.operator("/admin/close-epoch"), null);
    assertEquals(409, clock.status(), "" + clock);
    assertTrue(clock.body().contains("cut by the clock"), "" + clock);
  }

  /**
   * Epochs by the clock open with the first record read, not at the start: before it, {@code
   * /v1/status} says so and names no close; after it, the close is an epoch length after the
   * record, and a restart keeps that time.
   */
  @Test
  void epochSeconds_theFirstEpochOpensWithTheFirstRecord_andARestartKeepsTheClock(
      KafkaEnvironment kafka) throws Exception {
    String topic = topic(kafka, "clock-start");
    Path state = Files.createTempDirectory("dplrf-it-clock-start");
    Map<String, String> hourly = settings("epoch-updates", null, "epoch-seconds", "3600");
    RunningService first = RunningService.start(kafka, topic, state, hourly);
    Map<String, Object> waiting = Http.object(first.api("/v1/status"));
    assertEquals("waiting for the first record: the first epoch opens when it is read and closes"
        + " 3600 s later", waiting.get("message"), "" + waiting);
    assertEquals(null, waiting.get("nextEpochClose"), "" + waiting);
    assertEquals(null, objectOf(first.ingest(), "openEpoch").get("closesAt"));

    Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS); // the service counts in ms
    Stream.sendAll(kafka.bootstrapServers(), topic,
        Stream.unkeyed(Stream.records(updates(10, 5), 10)));
    Map<String, Object> status = Poll.until("the first epoch opened", DEADLINE,
        () -> Http.object(first.api("/v1/status")), st -> st.get("nextEpochClose") != null);
    Instant closes = Instant.parse((String) status.get("nextEpochClose"));
    assertTrue(!closes.isBefore(before.plusSeconds(3600))
        && !closes.isAfter(Instant.now().plusSeconds(3600)), "" + status);
    assertEquals("waiting for the first epoch to close at " + closes + " (it opened with the"
        + " first record read)", status.get("message"));
    assertEquals(closes.toString(), objectOf(first.ingest(), "openEpoch").get("closesAt"));
    first.service.close();

    RunningService again = start(kafka, topic, state, hourly);
    assertEquals(closes.toString(), Http.object(again.api("/v1/status")).get("nextEpochClose"),
        "the restart does not move the clock");
  }

  /** The same stream with {@code epoch-idle-seconds 1}: epoch 3 closes by itself, and only it. */
  @Test
  void streamEndingInsideAnEpoch_isReleasedByTheIdleRule(KafkaEnvironment kafka)
      throws Exception {
    String topic = topic(kafka, "idle");
    List<Update> all = updates(100, 2);
    Stream.sendAll(kafka.bootstrapServers(), topic, Stream.unkeyed(Stream.records(all, 10)));
    RunningService s = start(kafka, topic, Files.createTempDirectory("dplrf-it-idle"),
        settings("epoch-idle-seconds", "1"));
    awaitRelease(s, 3);
    // A negative property needs a window: 3 s is three idle times, and the open epoch is empty.
    long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
    while (System.nanoTime() < until) {
      assertEquals(3, longOf(s.ingest(), "epochsClosed"), "an empty epoch never closes");
      Thread.sleep(100);
    }
    assertEquals(100, longOf(s.ingest(), "updatesApplied"));
  }

  /**
   * A clean stop and a start on the same state directory: the first answers of the restarted
   * service already show epoch 2 with the time it was released before (its epoch's close, not
   * the restart), {@code /admin/ingest} never says "new" nor a record read at the restart; once
   * the run is exhausted, a restart says so at once.
   */
  @Test
  void restart_answersWithTheRestoredReleaseAndItsTimeFromTheFirstRequest(KafkaEnvironment kafka)
      throws Exception {
    String topic = topic(kafka, "restart");
    Path state = Files.createTempDirectory("dplrf-it-restart");
    Stream.sendAll(kafka.bootstrapServers(), topic,
        Stream.unkeyed(Stream.records(updates(80, 3), 10)));
    Map<String, String> threeEpochs = settings("epochs", "3");
    RunningService first = RunningService.start(kafka, topic, state, threeEpochs);
    awaitRelease(first, 2);
    Instant releasedAt = Instant.parse((String) Http.object(first.api("/v1/status"))
        .get("lastReleaseTime"));
    first.service.close(); // a clean stop; the state directory stays

    Thread.sleep(1500); // a restart visibly later than the release
    RunningService second = start(kafka, topic, state, threeEpochs);
    Map<String, Object> status = Http.object(second.api("/v1/status"));
    Map<String, Object> ingest = second.ingest();
    System.out.println("restart: first status " + status + "; ingest state " + ingest.get("state"));
    assertEquals(2, longOf(status, "epoch"), "" + status);
    assertEquals(2, longOf(status, "latestRelease"), "" + status);
    assertEquals("releasing after every epoch", status.get("message"));
    assertEquals(releasedAt.toString(), status.get("lastReleaseTime"),
        "a release is dated by its epoch's close, before and after the restart");
    assertNotEquals("new", ingest.get("state"), "" + ingest);
    assertNull(objectOf(ingest, "openEpoch").get("lastRecordAt"),
        "no record read since the restart: " + ingest);
    assertEquals(2, longOf(ingest, "epochsClosed"), "" + ingest);

    Stream.sendAll(kafka.bootstrapServers(), topic,
        Stream.unkeyed(Stream.records(updates(40, 4), 10)));
    awaitRelease(second, 3);
    Poll.until("ingest exhausted", DEADLINE, second::ingest, i -> "exhausted".equals(i.get("state")));
    second.service.close();

    RunningService third = start(kafka, topic, state, threeEpochs);
    Map<String, Object> spent = Http.object(third.api("/v1/status"));
    assertEquals(Boolean.TRUE, spent.get("exhausted"), "" + spent);
    assertEquals(3, longOf(spent, "epoch"), "" + spent);
    assertTrue(((String) spent.get("message")).startsWith("epoch T = 3 reached"), "" + spent);
    assertEquals(3, longOf(Http.object(third.api("/v1/release/latest")), "epoch"));
  }
}
