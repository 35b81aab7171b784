package io.dplrf.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class LocalReportCodecTest {
  /** d = 3, t = 2, C = 1, ε = 1, δ = 1e-6, the test seed; noise from test key 7. */
  static final String GOLDEN = "local-report-v1.bin";

  private static LocalPcaProtocol goldenProtocol() {
    return LocalRandomizerTest.protocol(3, 2, 1, 1);
  }

  private static LocalReport goldenReport() {
    return LocalRandomizerTest.seeded(goldenProtocol(), 7).report(new double[] {0.6, -0.8, 0});
  }

  @Test
  void roundTrip_keepsEveryValue() {
    LocalPcaProtocol p = LocalRandomizerTest.protocol(5, 4, 1, 1);
    LocalReport r = LocalRandomizer.create(p).report(LocalRandomizerTest.row(5, 1, 9));
    byte[] b = LocalReportCodec.encode(r);
    assertEquals(24 + 8 * 20, b.length);
    LocalReport back = LocalReportCodec.decode(b, p);
    assertArrayEquals(r.values(), back.values());
    assertEquals(r.protocolId(), back.protocolId());
  }

  /**
   * Version 1 stays readable: the committed file decodes to the report the test randomizer
   * makes today, and today's encoding is byte-identical to it. (Regenerate only for a new
   * version: run with -Ddplrf.writeGolden=DIR.)
   */
  @Test
  void goldenFile_version1_decodesAndReencodesIdentically() throws IOException {
    byte[] now = LocalReportCodec.encode(goldenReport());
    String dir = System.getProperty("dplrf.writeGolden");
    if (dir != null) {
      Files.write(Path.of(dir, GOLDEN), now);
    }
    byte[] golden;
    try (InputStream in = LocalReportCodecTest.class.getResourceAsStream(GOLDEN)) {
      assertTrue(in != null, "missing golden file " + GOLDEN);
      golden = in.readAllBytes();
    }
    assertArrayEquals(golden, now);
    LocalReport r = LocalReportCodec.decode(golden, goldenProtocol());
    assertArrayEquals(goldenReport().values(), r.values());
  }

  @Test
  void decode_refusesOtherProtocolsBadHeadersAndOffGridValues() {
    LocalPcaProtocol p = goldenProtocol();
    byte[] ok = LocalReportCodec.encode(goldenReport());
    assertThrows(IllegalArgumentException.class,
        () -> LocalReportCodec.decode(ok, LocalRandomizerTest.protocol(3, 2, 1, 2)));
    byte[] magic = ok.clone();
    magic[0] = 'X';
    assertThrows(IllegalArgumentException.class, () -> LocalReportCodec.decode(magic, p));
    byte[] version = ok.clone();
    version[5] = 2;
    assertThrows(IllegalArgumentException.class, () -> LocalReportCodec.decode(version, p));
    assertThrows(IllegalArgumentException.class,
        () -> LocalReportCodec.decode(java.util.Arrays.copyOf(ok, ok.length - 8), p));
    byte[] offGrid = ok.clone();
    java.nio.ByteBuffer.wrap(offGrid).putDouble(24, 0.123456789);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> LocalReportCodec.decode(offGrid, p));
    assertTrue(e.getMessage().contains("grid"), e.getMessage());
  }
}
