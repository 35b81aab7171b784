package io.dplrf.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.client.LocalReportCodec.MalformedReportException;
import io.dplrf.client.LocalReportCodec.Problem;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Both wire formats: "DPLP" version 1 (local-DP PCA) and "DPLR" version 2 (LOCAL-ROBUST-PCA, with
 * the slot) stay byte-identical to their committed golden files, round-trip every value, and
 * refuse each malformation with its {@link Problem}.
 */
class LocalReportCodecTest {
  /** d = 3, t = 2, C = 1, ε = 1, δ = 1e-6, the test seed; noise from test key 7. */
  static final String GOLDEN_DPLP = "local-report-v1.bin";
  /** m = 4, d = 3, k = 1 (t = 3, v = 6), p = 1, C = 1, ε = 1, the test seed; test key 7, slot 2. */
  static final String GOLDEN_DPLR = "local-robust-report-v2.bin";
  /** The same report in DPLR version 1 (no slot), committed with the first local-robust client. */
  static final String GOLDEN_DPLR_V1 = "local-robust-report-v1.bin";

  private static LocalPcaProtocol pcaGoldenProtocol() {
    return LocalPcaProtocolTest.protocol(3, 2, 1, 1);
  }

  private static LocalReport pcaGoldenReport() {
    return LocalRandomizerTest.seeded(pcaGoldenProtocol(), 7).report(new double[] {0.6, -0.8, 0});
  }

  private static LocalRobustProtocol robustGoldenProtocol() {
    return LocalRobustProtocolTest.protocol(4, 3, 1, 1, 1);
  }

  private static LocalReport robustGoldenReport() {
    return LocalRandomizerTest.seeded(robustGoldenProtocol(), 7)
        .report(2, new double[] {0.25, -0.5, 0});
  }

  @Test
  void roundTrip_keepsEveryValueAndTheSlot_atTheFormatsLength() {
    LocalPcaProtocol p = LocalPcaProtocolTest.protocol(5, 4, 1, 1);
    LocalReport r = LocalRandomizer.create(p).report(LocalPcaProtocolTest.row(5, 1, 9));
    byte[] b = LocalReportCodec.encode(r);
    assertEquals(24 + 8 * 20, b.length);
    assertEquals(b.length, LocalReportCodec.length(p));
    LocalReport back = LocalReportCodec.decode(b, p);
    assertArrayEquals(r.values(0), back.values(0));
    assertEquals(r.protocolId(), back.protocolId());
    assertEquals(OptionalInt.empty(), back.slot());

    LocalRobustProtocol q = LocalRobustProtocolTest.protocol(12, 5, 2, 1, 1);
    LocalReport s = LocalRandomizer.create(q).report(7, LocalRobustProtocolTest.row(5, 1, 9));
    byte[] c = LocalReportCodec.encode(s);
    assertEquals(32 + 8 * (5 * 5 + 10 * 10), c.length);
    assertEquals(c.length, LocalReportCodec.length(q));
    LocalReport again = LocalReportCodec.decode(c, q);
    assertEquals(OptionalInt.of(7), again.slot());
    assertArrayEquals(s.values(0), again.values(0));
    assertArrayEquals(s.values(1), again.values(1));
  }

  /**
   * DPLP version 1 stays readable and written: the committed file decodes to the report the test
   * randomizer makes today (so the noise is drawn in the same order), today's encoding is
   * byte-identical to it, and so is the re-encoding of the decoded file. (Regenerate only for a
   * new version: run with -Ddplrf.writeGolden=DIR.)
   */
  @Test
  void goldenDplpVersion1_decodesAndReencodesIdentically() throws IOException {
    byte[] now = LocalReportCodec.encode(pcaGoldenReport());
    byte[] golden = golden(GOLDEN_DPLP, now);
    assertArrayEquals(golden, now);
    LocalReport r = LocalReportCodec.decode(golden, pcaGoldenProtocol());
    assertArrayEquals(pcaGoldenReport().values(0), r.values(0));
    assertArrayEquals(golden, LocalReportCodec.encode(r));
  }

  /** DPLR version 2, as DPLP version 1 above; the slot comes back too. */
  @Test
  void goldenDplrVersion2_decodesAndReencodesIdentically() throws IOException {
    byte[] now = LocalReportCodec.encode(robustGoldenReport());
    byte[] golden = golden(GOLDEN_DPLR, now);
    assertArrayEquals(golden, now);
    LocalReport r = LocalReportCodec.decode(golden, robustGoldenProtocol());
    assertEquals(OptionalInt.of(2), r.slot());
    assertArrayEquals(robustGoldenReport().values(0), r.values(0));
    assertArrayEquals(robustGoldenReport().values(1), r.values(1));
    assertArrayEquals(golden, LocalReportCodec.encode(r));
  }

  /**
   * DPLR version 1 had no slot: refused as NOT_A_REPORT with a message saying why, and it is
   * version 2 without the 4 slot bytes (the values are the same bytes).
   */
  @Test
  void goldenDplrVersion1_isRefusedWithItsReason() throws IOException {
    byte[] v1 = golden(GOLDEN_DPLR_V1, null);
    MalformedReportException e = assertProblem(Problem.NOT_A_REPORT,
        () -> LocalReportCodec.decode(v1, robustGoldenProtocol()));
    assertTrue(e.getMessage().contains("version 1 carries no user slot"), e.getMessage());
    byte[] v2 = golden(GOLDEN_DPLR, null);
    assertEquals(v1.length + 4, v2.length);
    assertArrayEquals(Arrays.copyOfRange(v1, 28, v1.length), Arrays.copyOfRange(v2, 32, v2.length));
  }

  @Test
  void decode_refusesASlotOutsideTheProtocolsUsers() {
    LocalRobustProtocol p = robustGoldenProtocol(); // m = 4
    byte[] ok = LocalReportCodec.encode(robustGoldenReport());
    for (int slot : new int[] {-1, 4, Integer.MAX_VALUE}) {
      byte[] bad = ok.clone();
      ByteBuffer.wrap(bad).putInt(28, slot);
      MalformedReportException e = assertProblem(Problem.SLOT, () -> LocalReportCodec.decode(bad, p));
      assertTrue(e.getMessage().contains("0..3"), e.getMessage());
    }
    byte[] last = ok.clone();
    ByteBuffer.wrap(last).putInt(28, 3);
    assertEquals(OptionalInt.of(3), LocalReportCodec.decode(last, p).slot());
  }

  @Test
  void decode_dplp_refusesOtherProtocolsBadHeadersShapesLengthsAndValues() {
    LocalPcaProtocol p = pcaGoldenProtocol();
    byte[] ok = LocalReportCodec.encode(pcaGoldenReport());
    assertProblem(Problem.FOREIGN_PROTOCOL,
        () -> LocalReportCodec.decode(ok, LocalPcaProtocolTest.protocol(3, 2, 1, 2)));
    byte[] magic = ok.clone();
    magic[0] = 'X';
    assertProblem(Problem.NOT_A_REPORT, () -> LocalReportCodec.decode(magic, p));
    byte[] version = ok.clone();
    version[5] = 2;
    assertProblem(Problem.NOT_A_REPORT, () -> LocalReportCodec.decode(version, p));
    byte[] shape = ok.clone();
    ByteBuffer.wrap(shape).putInt(20, 1); // t
    assertProblem(Problem.SHAPE, () -> LocalReportCodec.decode(shape, p));
    assertProblem(Problem.LENGTH, () -> LocalReportCodec.decode(Arrays.copyOf(ok, ok.length - 8), p));
    assertProblem(Problem.LENGTH, () -> LocalReportCodec.decode(Arrays.copyOf(ok, ok.length + 1), p));
    assertProblem(Problem.LENGTH, () -> LocalReportCodec.decode(new byte[20], p));
    double gamma = p.parts().get(0).gamma();
    for (double bad : new double[] {0.123456789, Double.NaN, Math.scalb(gamma, 63)}) {
      byte[] value = ok.clone();
      ByteBuffer.wrap(value).putDouble(24 + 8 * 5, bad);
      MalformedReportException e = assertProblem(Problem.VALUE, () -> LocalReportCodec.decode(value, p));
      assertTrue(e.getMessage().contains("value 5"), e.getMessage());
    }
    byte[] edge = ok.clone();
    ByteBuffer.wrap(edge).putDouble(24, -Math.scalb(gamma, 62)); // at the bound: accepted
    assertEquals(-Math.scalb(gamma, 62), LocalReportCodec.decode(edge, p).values(0)[0]);
  }

  @Test
  void decode_dplr_refusesOtherFormatsProtocolsShapesLengthsAndValuesInEitherPart() {
    LocalRobustProtocol p = robustGoldenProtocol();
    byte[] ok = LocalReportCodec.encode(robustGoldenReport());
    assertProblem(Problem.FOREIGN_PROTOCOL,
        () -> LocalReportCodec.decode(ok, LocalRobustProtocolTest.protocol(4, 3, 1, 1, 2)));
    byte[] magic = ok.clone();
    magic[3] = 'P'; // a "DPLP" (local) header is not a local-robust report
    assertProblem(Problem.NOT_A_REPORT, () -> LocalReportCodec.decode(magic, p));
    byte[] version = ok.clone();
    version[5] = 3;
    assertProblem(Problem.NOT_A_REPORT, () -> LocalReportCodec.decode(version, p));
    byte[] shape = ok.clone();
    ByteBuffer.wrap(shape).putInt(24, 7); // v
    assertProblem(Problem.SHAPE, () -> LocalReportCodec.decode(shape, p));
    assertProblem(Problem.LENGTH, () -> LocalReportCodec.decode(Arrays.copyOf(ok, ok.length - 8), p));
    assertProblem(Problem.LENGTH, () -> LocalReportCodec.decode(new byte[20], p));
    int zAt = 32 + 8 * p.parts().get(0).size();
    for (int offset : new int[] {32, zAt, ok.length - 8}) { // first of Yr, first and last of Z
      for (double bad : new double[] {0.123456789, Double.NEGATIVE_INFINITY,
          Math.scalb(p.parts().get(offset < zAt ? 0 : 1).gamma(), 63)}) {
        byte[] value = ok.clone();
        ByteBuffer.wrap(value).putDouble(offset, bad);
        assertProblem(Problem.VALUE, () -> LocalReportCodec.decode(value, p));
      }
    }
    // A local (DPLP) report is refused as not a local-robust report, and vice versa.
    LocalPcaProtocol lp = pcaGoldenProtocol();
    byte[] local = LocalReportCodec.encode(LocalRandomizer.create(lp).report(new double[3]));
    assertProblem(Problem.NOT_A_REPORT, () -> LocalReportCodec.decode(local, p));
    assertProblem(Problem.NOT_A_REPORT, () -> LocalReportCodec.decode(ok, lp));
  }

  /** The committed golden file; written first to -Ddplrf.writeGolden=DIR if set and now != null. */
  private static byte[] golden(String name, byte[] now) throws IOException {
    String dir = System.getProperty("dplrf.writeGolden");
    if (dir != null && now != null) {
      Files.write(Path.of(dir, name), now);
    }
    try (InputStream in = LocalReportCodecTest.class.getResourceAsStream(name)) {
      assertTrue(in != null, "missing golden file " + name);
      return in.readAllBytes();
    }
  }

  private static MalformedReportException assertProblem(Problem expected,
      org.junit.jupiter.api.function.Executable call) {
    MalformedReportException e = assertThrows(MalformedReportException.class, call);
    assertEquals(expected, e.problem(), e.getMessage());
    return e;
  }
}
