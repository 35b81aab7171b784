package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dplrf.it.Stream.Update;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a newcomer reads in the service's log on a first run (issue 38), on the suite's broker.
 */
@ExtendWith(KafkaSuite.class)
class NewcomerIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private final List<RunningService> services = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (RunningService s : services) {
      s.close();
    }
  }

  /** The service's own log, teed to the console. */
  static final class Log {
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    final PrintStream stream = new PrintStream(new OutputStream() {
      @Override
      public void write(int b) {
        System.out.write(b);
        synchronized (buffer) {
          buffer.write(b);
        }
      }

      @Override
      public void write(byte[] b, int off, int len) {
        System.out.write(b, off, len);
        synchronized (buffer) {
          buffer.write(b, off, len);
        }
      }
    }, true, StandardCharsets.UTF_8);

    List<String> lines() {
      synchronized (buffer) {
        return buffer.toString(StandardCharsets.UTF_8).lines().toList();
      }
    }

    List<String> linesContaining(String text) {
      return lines().stream().filter(l -> l.contains(text)).toList();
    }
  }

  private RunningService start(KafkaEnvironment kafka, String name, Map<String, String> settings,
      Log log) throws Exception {
    String topic = "it-" + name + "-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    RunningService s = RunningService.start(kafka, topic,
        Files.createTempDirectory("dplrf-it-" + name), settings, log.stream);
    services.add(s);
    return s;
  }

  /**
   * Ratings of 1 to 5 at the default clip 1: most updates are clamped, and the log says so once,
   * naming clip, as {@code dplrf factorize} does on its terminal.
   */
  @Test
  void updatesAboveClip_areNamedOnceInTheLog(KafkaEnvironment kafka) throws Exception {
    Log log = new Log();
    RunningService s = start(kafka, "clip", RunningService.settings("rows", "10", "cols", "8",
        "rank", "2", "epsilon", "1", "delta", "1e-6", "epochs", "4", "epoch-updates", "40"), log);
    List<Update> ratings = new ArrayList<>();
    for (int x = 0; x < 40; x++) {
      ratings.add(new Update(x % 10, x % 8, 1 + x % 5)); // 32 of 40 above 1
    }
    Stream.sendAll(kafka.bootstrapServers(), s.topic, Stream.unkeyed(Stream.records(ratings, 10)));
    Poll.until("40 updates read", DEADLINE, s::ingest, i -> longOf(i, "updatesConsumed") == 40);
    List<String> warned = Poll.until("the clip warning", DEADLINE,
        () -> log.linesContaining("above clip"), l -> !l.isEmpty());
    // The counts are those of the first publication after a clamp (32 of 40 once all are read).
    String expected = "dplrf: WARNING: N of M updates read so far had |delta| above clip 1.0 and"
        + " were clamped to it: the releases are of the clipped data. Choose clip as the largest"
        + " change one update may make (e.g. the top of a rating scale); clip is pinned with the"
        + " run, so a new value needs a new state directory. Said once; exact counts at"
        + " /admin/ingest";
    assertEquals(expected, warned.get(0).replaceFirst("WARNING: [1-9][0-9]* of [1-9][0-9]* ",
        "WARNING: N of M "), warned.get(0));
    Stream.sendAll(kafka.bootstrapServers(), s.topic, Stream.unkeyed(Stream.records(ratings, 10)));
    Poll.until("80 updates read", DEADLINE, s::ingest, i -> longOf(i, "updatesConsumed") == 80);
    Thread.sleep(2500); // two more publications of the counters, which must not repeat it
    assertEquals(1, log.linesContaining("above clip").size(), "said once: " + log.lines());
    assertEquals(64, longOf(s.ingest(), "updatesClipped"));
  }
}
