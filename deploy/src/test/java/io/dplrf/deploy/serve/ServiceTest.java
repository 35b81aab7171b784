package io.dplrf.deploy.serve;

import io.dplrf.sketch.params.Mechanism;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.ingest.IngestConfig;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the service refuses before it touches the state (the running service is tested in it-tests). */
class ServiceTest {
  private static ServiceConfig config(String name, String value) {
    return ServiceConfig.load(null, Map.of(), Map.of("rows", "10", "cols", "8", "rank", "2",
        "epsilon", "1", "delta", "1e-6", "epochs", "4", name, value));
  }

  /** Counted epochs plus the given settings (name, value, name, value, ...). */
  private static ServiceConfig counted(String... settings) {
    Map<String, String> m = new java.util.HashMap<>(Map.of("rows", "10", "cols", "8", "rank", "2",
        "epsilon", "1", "delta", "1e-6", "epochs", "4", "epoch-updates", "10"));
    for (int x = 0; x < settings.length; x += 2) {
      m.put(settings[x], settings[x + 1]);
    }
    return ServiceConfig.load(null, Map.of(), m);
  }

  @Test
  void priv1_refusesKeyAndRowUnits_beforeTouchingState(@TempDir Path dir) {
    for (String unit : new String[] {"key", "row"}) {
      Path state = dir.resolve("priv1-" + unit);
      ServiceConfig c = ServiceConfig.load(null, Map.of(), Map.of("rows", "10", "cols", "8",
          "rank", "2", "epsilon", "1", "delta", "1e-6", "epochs", "4", "epoch-updates", "10",
          "mechanism", "priv1", "privacy-unit", unit, "state-dir", state.toString()));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> Service.start(c, new PrintStream(OutputStream.nullOutputStream())));
      assertTrue(e.getMessage().contains("mechanism priv1 protects one update only"),
          e.getMessage());
      assertFalse(Files.exists(state), "nothing created for a refused configuration");
    }
  }

  /**
   * A refused close's write does not stop consumption at once (the loop reads on to the end of
   * the open epoch): /health says so instead of "not ingesting".
   */
  @Test
  void stateWriteRefused_saysIngestReadsOnToTheEndOfTheOpenEpoch() {
    io.dplrf.deploy.http.Health.Reason r = Service.stateWriteRefused(
        new io.dplrf.ingest.StateWrites.Blocked("closing epoch 3", "No space left on device",
            java.time.Instant.parse("2026-01-01T00:00:00Z"), 2));
    assertEquals("state-write-refused", r.code());
    assertEquals("closing epoch 3 failed (No space left on device) since 2026-01-01T00:00:00Z,"
        + " 2 attempt(s): ingest reads on at most to the end of the open epoch, then waits; the"
        + " write is retried every 30 s at most, and ingest resumes by itself once it succeeds;"
        + " the releases made so far stay available", r.message());
    assertFalse(r.message().contains("not ingesting"), r.message());
  }

  @Test
  void checksum_isSixteenHexDigits_zeroPadded_asTheLogPrintsIt() {
    assertEquals("000000000000002a", Service.checksumHex(42));
    assertEquals("ffffffffffffffff", Service.checksumHex(-1));
    assertEquals(String.format("%016x", 0x0123_4567_89ab_cdefL),
        Service.checksumHex(0x0123_4567_89ab_cdefL));
    assertEquals(new io.dplrf.ingest.IngestStats().toString().replaceAll(".*checksum=(\\w+).*", "$1"),
        Service.checksumHex(0), "the same form as IngestStats.toString");
  }
}
