package io.dplrf.deploy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.client.LocalAggregate;
import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalReport;
import io.dplrf.client.LocalReportCodec;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.deploy.io.RowInput;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dplrf produce --local} without a broker: the reports it would send, and its refusals. */
class LocalProduceCommandTest {
  private static final String SEED = "5a".repeat(32);
  @TempDir Path dir;

  private Path csv() throws IOException {
    Path f = dir.resolve("rows.csv");
    Files.writeString(f, "1,0,0\n0,2,0\n0.5,0.5,0.5\n");
    return f;
  }

  @Test
  void reports_oneDecodableReportPerRow_thatAnAggregateAccepts() throws Exception {
    LocalPcaProtocol p = LocalPcaProtocol.of(PublicSeed.parse(SEED), 3, 2, 1,
        new PrivacyParams(1, 1e-6));
    List<byte[]> sent = new ArrayList<>();
    LocalProduceCommand.reports(p, 0, RowInput.open(csv()), sent::add);
    assertEquals(3, sent.size());
    LocalAggregate server = new LocalAggregate(p);
    for (byte[] b : sent) {
      assertEquals(24 + 8 * 6, b.length);
      server.add(LocalReportCodec.decode(b, p));
    }
    assertEquals(3, server.reports());
  }

  @Test
  void robustReports_oneReportPerRow_inSlotsFromFirstSlot_inFileOrder() throws Exception {
    LocalRobustProtocol p = LocalRobustProtocol.of(PublicSeed.parse(SEED), 8, 3, 1, null, null,
        1, 1, RobustMatrices.DEFAULT_STABLE_CLIP, new PrivacyParams(1, Double.MIN_VALUE));
    List<byte[]> sent = new ArrayList<>();
    LocalProduceCommand.reports(p, 4, RowInput.open(csv()), sent::add);
    assertEquals(3, sent.size());
    LocalAggregate server = new LocalAggregate(p);
    for (int r = 0; r < 3; r++) {
      LocalReport rep = LocalReportCodec.decode(sent.get(r), p);
      assertEquals(4 + r, rep.slot().getAsInt(), "row " + r + " in slot first-slot + r");
      server.add(rep);
    }
    assertEquals(3, server.reports());
  }

  @Test
  void robustRefusals_beforeAnyConnection() throws IOException {
    String in = csv().toString();
    String[] base = {"produce", "--local", "--mechanism", "local-robust", "--input", in, "--seed",
        SEED, "--rank", "1", "--epsilon", "1"};
    Run tooFew = run(concat(base, "--rows", "4", "--first-slot", "2"));
    assertEquals(2, tooFew.code());
    assertTrue(tooFew.err().contains("exceeds the protocol's 4 user slots"), tooFew.err());
    Run noRows = run(base);
    assertEquals(2, noRows.code());
    assertTrue(noRows.err().contains("--rows is required"), noRows.err());
    Run delta = run(concat(base, "--rows", "4", "--delta", "1e-6"));
    assertEquals(2, delta.code());
    assertTrue(delta.err().contains("--delta does not apply"), delta.err());
    Run wrongId = run(concat(base, "--rows", "4", "--protocol-id", "0000000000000000"));
    assertEquals(2, wrongId.code());
    assertTrue(wrongId.err().contains("differs from --protocol-id"), wrongId.err());
    Run slotForLocal = run("produce", "--local", "--input", in, "--seed", SEED, "--epsilon", "1",
        "--delta", "1e-6", "--first-slot", "3");
    assertEquals(2, slotForLocal.code());
    assertTrue(slotForLocal.err().contains("local-robust only"), slotForLocal.err());
    Run badMechanism = run("produce", "--local", "--mechanism", "gauss", "--input", in);
    assertEquals(2, badMechanism.code());
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private record Run(int code, String err) {}

  private Run run(String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Cli.run(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void refusals_beforeAnyConnection() throws IOException {
    String in = csv().toString();
    Run noSeed = run("produce", "--local", "--input", in, "--epsilon", "1", "--delta", "1e-6");
    assertEquals(2, noSeed.code());
    assertTrue(noSeed.err().contains("seed"), noSeed.err());
    Run wrongId = run("produce", "--local", "--input", in, "--seed", SEED, "--epsilon", "1",
        "--delta", "1e-6", "--protocol-id", "0000000000000000");
    assertEquals(2, wrongId.code());
    assertTrue(wrongId.err().contains("differs from --protocol-id"), wrongId.err());
    Run withKey = run("produce", "--local", "--input", in, "--seed", SEED, "--epsilon", "1",
        "--delta", "1e-6", "--key", "u1");
    assertEquals(2, withKey.code());
    assertTrue(withKey.err().contains("do not apply"), withKey.err());
    Run seedWithoutLocal = run("produce", "--input", in, "--seed", SEED);
    assertEquals(2, seedWithoutLocal.code());
    assertTrue(seedWithoutLocal.err().contains("applies to --local only"), seedWithoutLocal.err());
  }
}
