package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalProtocol;
import io.dplrf.client.LocalRandomizer;
import io.dplrf.client.LocalReport;
import io.dplrf.client.LocalReportCodec;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Local mode's decoder, for both protocols: a valid report reaches the sink bit for bit; every
 * malformed one its reason with nothing applied; a second report of a slot is DUPLICATE_SLOT;
 * the checksum term of a report is the one the snapshots hold.
 */
class LocalReportDecoderTest {
  static final PublicSeed SEED = PublicSeed.parse(
      "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
  static final int D = 6;
  static final int T = 4;
  static final LocalPcaProtocol PCA = pca(1.0);
  static final int M = 5;
  static final int RD = 4;
  static final LocalRobustProtocol ROBUST = robust(1.0);

  static LocalPcaProtocol pca(double epsilon) {
    return LocalPcaProtocol.of(SEED, D, T, 1.0, new PrivacyParams(epsilon, 1e-6));
  }

  static LocalRobustProtocol robust(double epsilon) {
    return LocalRobustProtocol.of(SEED, M, RD, 1, null, null, 1, 1.0,
        RobustMatrices.DEFAULT_STABLE_CLIP, new PrivacyParams(epsilon, 1e-6));
  }

  /** Records the reports it is given; refuses a slot it already holds, as the service does. */
  static final class Reports implements Predicate<LocalReport> {
    final List<LocalReport> reports = new ArrayList<>();
    final Set<Integer> slots = new HashSet<>();

    @Override
    public boolean test(LocalReport report) {
      if (report.slot().isPresent() && !slots.add(report.slot().getAsInt())) {
        return false;
      }
      reports.add(report);
      return true;
    }
  }

  private static byte[] pcaReport() {
    return LocalReportCodec.encode(
        LocalRandomizer.create(PCA).report(new double[] {0.5, -0.5, 0, 0, 0.1, 0.2}));
  }

  private static byte[] robustReport(int slot) {
    return LocalReportCodec.encode(
        LocalRandomizer.create(ROBUST).report(slot, new double[] {0.5, -0.25, 0, 0.1}));
  }

  private static MalformedRecordException refused(LocalProtocol p, byte[] value, Reports target) {
    LocalReportDecoder decoder = new LocalReportDecoder(p, target);
    int before = target.reports.size();
    IngestStats stats = new IngestStats();
    MalformedRecordException e = assertThrows(MalformedRecordException.class,
        () -> decoder.apply(null, value, stats));
    assertEquals(before, target.reports.size(), "nothing applied");
    assertEquals(0, stats.updatesApplied());
    assertEquals(0, stats.checksum());
    return e;
  }

  private static MalformedRecordException refused(LocalProtocol p, byte[] value) {
    return refused(p, value, new Reports());
  }

  @Test
  void validReport_reachesTheSinkBitForBit_withItsSlot_andIsCountedOnce() throws Exception {
    for (LocalProtocol p : List.of(PCA, ROBUST)) {
      byte[] wire = p.hasSlots() ? robustReport(3) : pcaReport();
      Reports target = new Reports();
      LocalReportDecoder decoder = new LocalReportDecoder(p, target);
      IngestStats stats = new IngestStats();
      decoder.apply(null, wire, stats);
      assertEquals(1, target.reports.size());
      LocalReport r = target.reports.get(0);
      assertEquals(p.hasSlots() ? OptionalInt.of(3) : OptionalInt.empty(), r.slot());
      LocalReport expected = LocalReportCodec.decode(wire, p);
      for (int part = 0; part < p.parts().size(); part++) {
        assertArrayEquals(expected.values(part), r.values(part));
      }
      assertEquals(1, stats.updatesApplied());
      assertEquals(LocalReportDecoder.reportHash(r), stats.checksum());
      assertEquals(1, decoder.positions(wire));
    }
  }

  @Test
  void secondReportOfASlot_isDuplicateSlot_andTheFirstStays() throws Exception {
    Reports target = new Reports();
    byte[] first = robustReport(2);
    new LocalReportDecoder(ROBUST, target).apply(null, first, new IngestStats());
    MalformedRecordException e = refused(ROBUST, robustReport(2), target);
    assertEquals(DeadLetterReason.DUPLICATE_SLOT, e.reason());
    assertTrue(e.getMessage().contains("slot 2"), e.getMessage());
    assertArrayEquals(LocalReportCodec.decode(first, ROBUST).values(0),
        target.reports.get(0).values(0), "the first report of the slot is the one summed");
    // Another slot is still accepted.
    new LocalReportDecoder(ROBUST, target).apply(null, robustReport(4), new IngestStats());
    assertEquals(2, target.reports.size());
  }

  @Test
  void slotOutsideTheProtocolsUsers_isIndexOutOfRange() {
    for (int slot : new int[] {-1, M}) {
      byte[] wire = robustReport(0);
      ByteBuffer.wrap(wire).putInt(28, slot); // slot at offset 28
      MalformedRecordException e = refused(ROBUST, wire);
      assertEquals(DeadLetterReason.INDEX_OUT_OF_RANGE, e.reason(), "slot " + slot);
      assertTrue(e.getMessage().contains("slot"), e.getMessage());
    }
  }

  @Test
  void reportOfAnotherProtocol_isForeignProtocol() {
    byte[] pca = LocalReportCodec.encode(LocalRandomizer.create(pca(2.0)).report(new double[D]));
    assertEquals(DeadLetterReason.FOREIGN_PROTOCOL, refused(PCA, pca).reason());
    byte[] robust = LocalReportCodec.encode(
        LocalRandomizer.create(robust(2.0)).report(0, new double[RD]));
    assertEquals(DeadLetterReason.FOREIGN_PROTOCOL, refused(ROBUST, robust).reason());
  }

  @Test
  void protocolIdButOtherShape_isWrongShape() {
    byte[] pca = pcaReport();
    ByteBuffer.wrap(pca).putInt(20, T - 1); // t at offset 20
    assertEquals(DeadLetterReason.WRONG_SHAPE, refused(PCA, pca).reason());
    byte[] robust = robustReport(0);
    ByteBuffer.wrap(robust).putInt(24, 7); // v at offset 24
    assertEquals(DeadLetterReason.WRONG_SHAPE, refused(ROBUST, robust).reason());
  }

  @Test
  void truncatedOrEmptyOrNull_isBadLength() {
    for (LocalProtocol p : List.of(PCA, ROBUST)) {
      byte[] wire = p.hasSlots() ? robustReport(0) : pcaReport();
      assertEquals(DeadLetterReason.BAD_LENGTH,
          refused(p, Arrays.copyOf(wire, wire.length - 8)).reason());
      assertEquals(DeadLetterReason.BAD_LENGTH,
          refused(p, Arrays.copyOf(wire, wire.length + 1)).reason());
      assertEquals(DeadLetterReason.BAD_LENGTH, refused(p, new byte[10]).reason());
      assertEquals(DeadLetterReason.BAD_LENGTH, refused(p, null).reason());
    }
  }

  @Test
  void wrongMagicOrVersion_isNotAReport_dplrVersion1WithItsReason() {
    byte[] magic = pcaReport();
    magic[0] = 'X';
    assertEquals(DeadLetterReason.NOT_A_REPORT, refused(PCA, magic).reason());
    byte[] v2 = pcaReport();
    ByteBuffer.wrap(v2).putShort(4, (short) 2);
    assertEquals(DeadLetterReason.NOT_A_REPORT, refused(PCA, v2).reason());
    byte[] v1 = robustReport(0);
    ByteBuffer.wrap(v1).putShort(4, (short) 1);
    MalformedRecordException old = refused(ROBUST, v1);
    assertEquals(DeadLetterReason.NOT_A_REPORT, old.reason());
    assertTrue(old.getMessage().contains("no user slot"), old.getMessage());
    byte[] dplp = robustReport(0);
    dplp[3] = 'P'; // a DPLP (local) report header
    assertEquals(DeadLetterReason.NOT_A_REPORT, refused(ROBUST, dplp).reason());
    assertEquals(DeadLetterReason.NOT_A_REPORT, refused(ROBUST, pcaReport()).reason());
  }

  @Test
  void valueNaNOrOffGridOrBeyondTheExactSumBound_isBadValue_inEveryPart() throws Exception {
    double gamma = PCA.parts().get(0).gamma();
    for (double bad : new double[] {Double.NaN, Double.POSITIVE_INFINITY, gamma / 2,
        Math.scalb(gamma, 63)}) {
      byte[] wire = pcaReport();
      ByteBuffer.wrap(wire).putDouble(24 + 8 * 5, bad);
      MalformedRecordException e = refused(PCA, wire);
      assertEquals(DeadLetterReason.BAD_VALUE, e.reason(), "value " + bad);
      assertTrue(e.getMessage().contains("value 5"), e.getMessage());
    }
    double gYr = ROBUST.parts().get(0).gamma();
    double gZ = ROBUST.parts().get(1).gamma();
    int zAt = 32 + 8 * ROBUST.parts().get(0).size(); // first value of Z
    for (double[] bad : new double[][] {{32, Double.NaN}, {32, gYr / 2}, {32, Math.scalb(gYr, 63)},
        {zAt, Double.NEGATIVE_INFINITY}, {zAt, Math.scalb(gZ, 63)}}) {
      byte[] wire = robustReport(0);
      ByteBuffer.wrap(wire).putDouble((int) bad[0], bad[1]);
      assertEquals(DeadLetterReason.BAD_VALUE, refused(ROBUST, wire).reason(),
          Arrays.toString(bad));
    }
    // Exactly at the bound: accepted.
    byte[] edge = pcaReport();
    ByteBuffer.wrap(edge).putDouble(24, -Math.scalb(gamma, 62));
    Reports target = new Reports();
    new LocalReportDecoder(PCA, target).apply(null, edge, new IngestStats());
    byte[] zEdge = robustReport(0);
    ByteBuffer.wrap(zEdge).putDouble(zAt, Math.scalb(gZ, 62));
    new LocalReportDecoder(ROBUST, target).apply(null, zEdge, new IngestStats());
    assertEquals(2, target.reports.size());
  }

  /** A report with the fixed values γ·(e − 7), e the index in the part. */
  private static byte[] fixedReport(LocalProtocol p, int... header) {
    int n = p.parts().stream().mapToInt(part -> part.size()).sum();
    ByteBuffer b = ByteBuffer.allocate(16 + 4 * header.length + 8 * n);
    b.putInt(p.hasSlots() ? 0x44504C52 : 0x44504C50).putShort((short) (p.hasSlots() ? 2 : 1))
        .putShort((short) 0).put(HexFormat.of().parseHex(p.id()));
    for (int h : header) {
      b.putInt(h);
    }
    for (var part : p.parts()) {
      for (int e = 0; e < part.size(); e++) {
        b.putDouble((e - 7) * part.gamma());
      }
    }
    return b.array();
  }

  /**
   * The checksum term of a report is part of the snapshot (IngestStats), so it must not change:
   * fixed reports give the values recorded when the terms were defined — local,
   * mix(Σ updateHash(i, c, y_ic)); local-robust (slot 3), mix(Σ updateHash(slot, e, value_e)).
   */
  @Test
  void checksum_ofAFixedReport_isTheRecordedValue() throws Exception {
    IngestStats stats = new IngestStats();
    new LocalReportDecoder(PCA, new Reports()).apply(null, fixedReport(PCA, D, T), stats);
    assertEquals(0xc392352647af4204L, stats.checksum(), String.format("%016x", stats.checksum()));
    int t = ROBUST.sizes().t();
    int v = ROBUST.sizes().v();
    IngestStats robust = new IngestStats();
    new LocalReportDecoder(ROBUST, new Reports())
        .apply(null, fixedReport(ROBUST, t, RD, v, 3), robust);
    assertEquals(0xed0b6854cef117dcL, robust.checksum(), String.format("%016x", robust.checksum()));
  }
}
