package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalRandomizer;
import io.dplrf.client.LocalReport;
import io.dplrf.client.LocalReportCodec;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Local mode's decoder: a valid report reaches the target; every malformed one its reason. */
class LocalReportDecoderTest {
  static final PublicSeed SEED = PublicSeed.parse(
      "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
  static final int D = 6;
  static final int T = 4;
  static final LocalPcaProtocol PROTOCOL =
      LocalPcaProtocol.of(SEED, D, T, 1.0, new PrivacyParams(1.0, 1e-6));

  /** Records the reports it is given. */
  static final class Reports implements java.util.function.Consumer<LocalReport> {
    final List<LocalReport> reports = new ArrayList<>();

    @Override
    public void accept(LocalReport report) {
      reports.add(report);
    }
  }

  private static byte[] validReport() {
    return LocalReportCodec.encode(
        LocalRandomizer.create(PROTOCOL).report(new double[] {0.5, -0.5, 0, 0, 0.1, 0.2}));
  }

  private static MalformedRecordException refused(byte[] value) {
    Reports target = new Reports();
    LocalReportDecoder decoder = new LocalReportDecoder(PROTOCOL, target);
    IngestStats stats = new IngestStats();
    MalformedRecordException e = assertThrows(MalformedRecordException.class,
        () -> decoder.apply(null, value, stats));
    assertTrue(target.reports.isEmpty(), "nothing applied");
    assertEquals(0, stats.updatesApplied());
    assertEquals(0, stats.checksum());
    return e;
  }

  @Test
  void validReport_reachesTargetBitForBit_andIsCountedOnce() throws Exception {
    byte[] wire = validReport();
    Reports target = new Reports();
    LocalReportDecoder decoder = new LocalReportDecoder(PROTOCOL, target);
    IngestStats stats = new IngestStats();
    decoder.apply(null, wire, stats);
    assertEquals(1, target.reports.size());
    assertArrayEquals(LocalReportCodec.decode(wire, PROTOCOL).values(),
        target.reports.get(0).values());
    assertEquals(1, stats.updatesApplied());
    assertEquals(LocalReportDecoder.reportHash(target.reports.get(0)), stats.checksum());
    assertEquals(1, decoder.positions(wire));
  }

  @Test
  void reportOfAnotherProtocol_isForeignProtocol() {
    LocalPcaProtocol other = LocalPcaProtocol.of(SEED, D, T, 1.0, new PrivacyParams(2.0, 1e-6));
    byte[] wire = LocalReportCodec.encode(LocalRandomizer.create(other).report(new double[D]));
    assertEquals(DeadLetterReason.FOREIGN_PROTOCOL, refused(wire).reason());
  }

  @Test
  void protocolIdButOtherShape_isWrongShape() {
    byte[] wire = validReport();
    ByteBuffer.wrap(wire).putInt(20, T - 1); // t at offset 20
    assertEquals(DeadLetterReason.WRONG_SHAPE, refused(wire).reason());
  }

  @Test
  void truncatedOrEmptyOrNull_isBadLength() {
    byte[] wire = validReport();
    assertEquals(DeadLetterReason.BAD_LENGTH,
        refused(Arrays.copyOf(wire, wire.length - 8)).reason());
    assertEquals(DeadLetterReason.BAD_LENGTH,
        refused(Arrays.copyOf(wire, wire.length + 1)).reason());
    assertEquals(DeadLetterReason.BAD_LENGTH, refused(new byte[10]).reason());
    assertEquals(DeadLetterReason.BAD_LENGTH, refused(null).reason());
  }

  @Test
  void wrongMagicOrVersion_isNotAReport() {
    byte[] wire = validReport();
    wire[0] = 'X';
    assertEquals(DeadLetterReason.NOT_A_REPORT, refused(wire).reason());
    byte[] v2 = validReport();
    ByteBuffer.wrap(v2).putShort(4, (short) 2);
    assertEquals(DeadLetterReason.NOT_A_REPORT, refused(v2).reason());
  }

  @Test
  void valueNaNOrOffGridOrBeyondTheExactSumBound_isBadValue() {
    double gamma = PROTOCOL.noise().grid().gamma();
    for (double bad : new double[] {Double.NaN, Double.POSITIVE_INFINITY, gamma / 2,
        Math.scalb(gamma, 63)}) {
      byte[] wire = validReport();
      ByteBuffer.wrap(wire).putDouble(24 + 8 * 5, bad);
      MalformedRecordException e = refused(wire);
      assertEquals(DeadLetterReason.BAD_VALUE, e.reason(), "value " + bad);
      assertTrue(e.getMessage().contains("value 5"), e.getMessage());
    }
    byte[] edge = validReport();
    ByteBuffer.wrap(edge).putDouble(24, -Math.scalb(gamma, 62)); // exactly at the bound: accepted
    Reports target = new Reports();
    assertDoesNotThrowApply(edge, target);
    assertEquals(1, target.reports.size());
  }

  /**
   * The checksum term of a report is part of the snapshot (IngestStats), so it must not change:
   * a fixed report (values γ·(e − 7)) gives the value recorded when the term was defined,
   * mix(Σ updateHash(i, c, y_ic)).
   */
  @Test
  void checksum_ofAFixedReport_isTheRecordedValue() throws Exception {
    double gamma = PROTOCOL.noise().grid().gamma();
    ByteBuffer b = ByteBuffer.allocate(24 + 8 * D * T);
    b.putInt(0x44504C50).putShort((short) 1).putShort((short) 0);
    b.put(java.util.HexFormat.of().parseHex(PROTOCOL.id())).putInt(D).putInt(T);
    for (int e = 0; e < D * T; e++) {
      b.putDouble((e - 7) * gamma);
    }
    IngestStats stats = new IngestStats();
    new LocalReportDecoder(PROTOCOL, new Reports()).apply(null, b.array(), stats);
    assertEquals(CHECKSUM, stats.checksum(), String.format("%016x", stats.checksum()));
  }

  private static final long CHECKSUM = 0xc392352647af4204L;

  private static void assertDoesNotThrowApply(byte[] value, Reports target) {
    try {
      new LocalReportDecoder(PROTOCOL, target).apply(null, value, new IngestStats());
    } catch (MalformedRecordException e) {
      throw new AssertionError("refused: " + e.getMessage(), e);
    }
  }

}
