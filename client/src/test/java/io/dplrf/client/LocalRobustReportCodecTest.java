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
import org.junit.jupiter.api.Test;

class LocalRobustReportCodecTest {
  /** m = 4, d = 3, k = 1 (t = 3, v = 6), p = 1, C = 1, ε = 1, the test seed; noise from test key 7, slot 2. */
  static final String GOLDEN = "local-robust-report-v2.bin";
  /** The same report in version 1 (no slot), committed with the first local-robust client. */
  static final String GOLDEN_V1 = "local-robust-report-v1.bin";

  private static LocalRobustProtocol goldenProtocol() {
    return LocalRobustRandomizerTest.protocol(4, 3, 1, 1, 1);
  }

  private static LocalRobustReport goldenReport() {
    return LocalRobustRandomizerTest.seeded(goldenProtocol(), 7).report(2, new double[] {0.25, -0.5, 0});
  }

  @Test
  void roundTrip_keepsEveryValue() {
    LocalRobustProtocol p = LocalRobustRandomizerTest.protocol(12, 5, 2, 1, 1);
    LocalRobustReport r = LocalRobustRandomizer.create(p).report(7, LocalRobustRandomizerTest.row(5, 1, 9));
    byte[] b = LocalRobustReportCodec.encode(r);
    assertEquals(32 + 8 * (5 * 5 + 10 * 10), b.length);
    LocalRobustReport back = LocalRobustReportCodec.decode(b, p);
    assertEquals(7, back.slot());
    assertArrayEquals(r.yr(), back.yr());
    assertArrayEquals(r.z(), back.z());
    assertEquals(r.protocolId(), back.protocolId());
  }

  /**
   * Version 2 stays readable: the committed file decodes to the report the test randomizer makes
   * today, and today's encoding is byte-identical to it (regenerate only for a new version:
   * -Ddplrf.writeGolden=DIR).
   */
  @Test
  void goldenFile_version2_decodesAndReencodesIdentically() throws IOException {
    byte[] now = LocalRobustReportCodec.encode(goldenReport());
    String dir = System.getProperty("dplrf.writeGolden");
    if (dir != null) {
      Files.write(Path.of(dir, GOLDEN), now);
    }
    byte[] golden = golden(GOLDEN);
    assertArrayEquals(golden, now);
    LocalRobustReport r = LocalRobustReportCodec.decode(golden, goldenProtocol());
    assertEquals(2, r.slot());
    assertArrayEquals(goldenReport().yr(), r.yr());
    assertArrayEquals(goldenReport().z(), r.z());
  }

  /**
   * Version 1 had no slot: refused as NOT_A_REPORT with a message saying why, and it is version
   * 2 without the 4 slot bytes (the values are the same bytes).
   */
  @Test
  void goldenFile_version1_isRefusedWithItsReason() throws IOException {
    byte[] v1 = golden(GOLDEN_V1);
    MalformedReportException e = assertProblem(Problem.NOT_A_REPORT,
        () -> LocalRobustReportCodec.decode(v1, goldenProtocol()));
    assertTrue(e.getMessage().contains("version 1 carries no user slot"), e.getMessage());
    byte[] v2 = golden(GOLDEN);
    assertEquals(v1.length + 4, v2.length);
    assertArrayEquals(Arrays.copyOfRange(v1, 28, v1.length), Arrays.copyOfRange(v2, 32, v2.length));
  }

  @Test
  void decode_refusesASlotOutsideTheProtocolsUsers() {
    LocalRobustProtocol p = goldenProtocol(); // m = 4
    byte[] ok = LocalRobustReportCodec.encode(goldenReport());
    for (int slot : new int[] {-1, 4, Integer.MAX_VALUE}) {
      byte[] bad = ok.clone();
      ByteBuffer.wrap(bad).putInt(28, slot);
      MalformedReportException e = assertProblem(Problem.SLOT,
          () -> LocalRobustReportCodec.decode(bad, p));
      assertTrue(e.getMessage().contains("0..3"), e.getMessage());
    }
    byte[] last = ok.clone();
    ByteBuffer.wrap(last).putInt(28, 3);
    assertEquals(3, LocalRobustReportCodec.decode(last, p).slot());
  }

  private static byte[] golden(String name) throws IOException {
    try (InputStream in = LocalRobustReportCodecTest.class.getResourceAsStream(name)) {
      assertTrue(in != null, "missing golden file " + name);
      return in.readAllBytes();
    }
  }

  @Test
  void decode_refusesOtherFormatsProtocolsShapesLengthsAndOffGridValues() {
    LocalRobustProtocol p = goldenProtocol();
    byte[] ok = LocalRobustReportCodec.encode(goldenReport());
    assertProblem(Problem.FOREIGN_PROTOCOL,
        () -> LocalRobustReportCodec.decode(ok, LocalRobustRandomizerTest.protocol(4, 3, 1, 1, 2)));
    byte[] magic = ok.clone();
    magic[3] = 'P'; // a "DPLP" (local) header is not a local-robust report
    assertProblem(Problem.NOT_A_REPORT, () -> LocalRobustReportCodec.decode(magic, p));
    byte[] version = ok.clone();
    version[5] = 3;
    assertProblem(Problem.NOT_A_REPORT, () -> LocalRobustReportCodec.decode(version, p));
    byte[] shape = ok.clone();
    ByteBuffer.wrap(shape).putInt(24, 7);
    assertProblem(Problem.SHAPE, () -> LocalRobustReportCodec.decode(shape, p));
    assertProblem(Problem.LENGTH,
        () -> LocalRobustReportCodec.decode(Arrays.copyOf(ok, ok.length - 8), p));
    assertProblem(Problem.LENGTH, () -> LocalRobustReportCodec.decode(new byte[20], p));
    for (int offset : new int[] {32, ok.length - 8}) { // first value of Yr, last of Z
      byte[] offGrid = ok.clone();
      ByteBuffer.wrap(offGrid).putDouble(offset, 0.123456789);
      MalformedReportException e = assertProblem(Problem.VALUE,
          () -> LocalRobustReportCodec.decode(offGrid, p));
      assertTrue(e.getMessage().contains("grid"), e.getMessage());
    }
    // A local (DPLP) report is refused as not a local-robust report, and vice versa.
    LocalPcaProtocol lp = LocalRandomizerTest.protocol(3, 2, 1, 1);
    byte[] local = LocalReportCodec.encode(LocalRandomizer.create(lp).report(new double[3]));
    assertProblem(Problem.NOT_A_REPORT, () -> LocalRobustReportCodec.decode(local, p));
    assertProblem(Problem.NOT_A_REPORT, () -> LocalReportCodec.decode(ok, lp));
  }

  private static MalformedReportException assertProblem(Problem expected,
      org.junit.jupiter.api.function.Executable call) {
    MalformedReportException e = assertThrows(MalformedReportException.class, call);
    assertEquals(expected, e.problem(), e.getMessage());
    return e;
  }
}
