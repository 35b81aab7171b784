package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.client.LocalRobustRandomizer;
import io.dplrf.client.LocalRobustReport;
import io.dplrf.client.LocalRobustReportCodec;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.params.PrivacyParams;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Local-robust decoder: a valid report reaches the target; every malformed one its reason; a
 * second report of a slot is DUPLICATE_SLOT with nothing applied.
 */
class LocalRobustReportDecoderTest {
  static final int M = 5;
  static final int D = 4;
  static final LocalRobustProtocol PROTOCOL = protocol(1.0);

  static LocalRobustProtocol protocol(double epsilon) {
    return LocalRobustProtocol.of(LocalReportDecoderTest.SEED, M, D, 1, null, null, 1, 1.0,
        RobustMatrices.DEFAULT_STABLE_CLIP, new PrivacyParams(epsilon, 1e-6));
  }

  /** Records the reports it is given; refuses a slot it already holds, as the service does. */
  static final class Reports implements java.util.function.Predicate<LocalRobustReport> {
    final List<LocalRobustReport> reports = new ArrayList<>();
    final Set<Integer> slots = new HashSet<>();

    @Override
    public boolean test(LocalRobustReport report) {
      if (!slots.add(report.slot())) {
        return false;
      }
      reports.add(report);
      return true;
    }
  }

  private static byte[] validReport(int slot) {
    return LocalRobustReportCodec.encode(
        LocalRobustRandomizer.create(PROTOCOL).report(slot, new double[] {0.5, -0.25, 0, 0.1}));
  }

  private static MalformedRecordException refused(byte[] value, Reports target) {
    LocalRobustReportDecoder decoder = new LocalRobustReportDecoder(PROTOCOL, target);
    int before = target.reports.size();
    IngestStats stats = new IngestStats();
    MalformedRecordException e = assertThrows(MalformedRecordException.class,
        () -> decoder.apply(null, value, stats));
    assertEquals(before, target.reports.size(), "nothing applied");
    assertEquals(0, stats.updatesApplied());
    assertEquals(0, stats.checksum());
    return e;
  }

  private static MalformedRecordException refused(byte[] value) {
    return refused(value, new Reports());
  }

  @Test
  void validReport_reachesTargetBitForBit_withItsSlot_andIsCountedOnce() throws Exception {
    byte[] wire = validReport(3);
    Reports target = new Reports();
    LocalRobustReportDecoder decoder = new LocalRobustReportDecoder(PROTOCOL, target);
    IngestStats stats = new IngestStats();
    decoder.apply(null, wire, stats);
    assertEquals(1, target.reports.size());
    LocalRobustReport r = target.reports.get(0);
    assertEquals(3, r.slot());
    LocalRobustReport expected = LocalRobustReportCodec.decode(wire, PROTOCOL);
    assertArrayEquals(expected.yr(), r.yr());
    assertArrayEquals(expected.z(), r.z());
    assertEquals(1, stats.updatesApplied());
    assertEquals(LocalRobustReportDecoder.reportHash(r), stats.checksum());
    assertEquals(1, decoder.positions(wire));
  }

  @Test
  void secondReportOfASlot_isDuplicateSlot_andTheFirstStays() throws Exception {
    Reports target = new Reports();
    byte[] first = validReport(2);
    new LocalRobustReportDecoder(PROTOCOL, target).apply(null, first, new IngestStats());
    MalformedRecordException e = refused(validReport(2), target);
    assertEquals(DeadLetterReason.DUPLICATE_SLOT, e.reason());
    assertTrue(e.getMessage().contains("slot 2"), e.getMessage());
    assertArrayEquals(LocalRobustReportCodec.decode(first, PROTOCOL).yr(),
        target.reports.get(0).yr(), "the first report of the slot is the one summed");
    // Another slot is still accepted.
    new LocalRobustReportDecoder(PROTOCOL, target).apply(null, validReport(4), new IngestStats());
    assertEquals(2, target.reports.size());
  }

  @Test
  void slotOutsideTheProtocolsUsers_isIndexOutOfRange() {
    for (int slot : new int[] {-1, M}) {
      byte[] wire = validReport(0);
      ByteBuffer.wrap(wire).putInt(28, slot); // slot at offset 28
      MalformedRecordException e = refused(wire);
      assertEquals(DeadLetterReason.INDEX_OUT_OF_RANGE, e.reason(), "slot " + slot);
      assertTrue(e.getMessage().contains("slot"), e.getMessage());
    }
  }

  @Test
  void otherProtocolShapeVersionLengthOrMagic_isRefusedWithItsReason() {
    byte[] foreign = LocalRobustReportCodec.encode(
        LocalRobustRandomizer.create(protocol(2.0)).report(0, new double[D]));
    assertEquals(DeadLetterReason.FOREIGN_PROTOCOL, refused(foreign).reason());
    byte[] shape = validReport(0);
    ByteBuffer.wrap(shape).putInt(24, 7); // v at offset 24
    assertEquals(DeadLetterReason.WRONG_SHAPE, refused(shape).reason());
    byte[] v1 = validReport(0);
    ByteBuffer.wrap(v1).putShort(4, (short) 1);
    MalformedRecordException old = refused(v1);
    assertEquals(DeadLetterReason.NOT_A_REPORT, old.reason());
    assertTrue(old.getMessage().contains("no user slot"), old.getMessage());
    byte[] magic = validReport(0);
    magic[3] = 'P'; // a DPLP (local) report header
    assertEquals(DeadLetterReason.NOT_A_REPORT, refused(magic).reason());
    byte[] wire = validReport(0);
    assertEquals(DeadLetterReason.BAD_LENGTH,
        refused(Arrays.copyOf(wire, wire.length - 8)).reason());
    assertEquals(DeadLetterReason.BAD_LENGTH, refused(new byte[12]).reason());
    assertEquals(DeadLetterReason.BAD_LENGTH, refused(null).reason());
  }

  @Test
  void valueNaNOrOffGridOrBeyondTheExactSumBound_isBadValue_inEitherPart() {
    double gYr = PROTOCOL.plan().yr().grid().gamma();
    double gZ = PROTOCOL.plan().z().grid().gamma();
    int t = PROTOCOL.sizes().t();
    int zAt = 32 + 8 * t * D; // first value of Z
    for (double[] bad : new double[][] {{32, Double.NaN}, {32, gYr / 2}, {32, Math.scalb(gYr, 63)},
        {zAt, Double.NEGATIVE_INFINITY}, {zAt, Math.scalb(gZ, 63)}}) {
      byte[] wire = validReport(0);
      ByteBuffer.wrap(wire).putDouble((int) bad[0], bad[1]);
      assertEquals(DeadLetterReason.BAD_VALUE, refused(wire).reason(), Arrays.toString(bad));
    }
    byte[] edge = validReport(0);
    ByteBuffer.wrap(edge).putDouble(zAt, Math.scalb(gZ, 62)); // at the bound: accepted
    Reports target = new Reports();
    try {
      new LocalRobustReportDecoder(PROTOCOL, target).apply(null, edge, new IngestStats());
    } catch (MalformedRecordException e) {
      throw new AssertionError("refused: " + e.getMessage(), e);
    }
    assertEquals(1, target.reports.size());
  }

  /**
   * The checksum term of a report is part of the snapshot (IngestStats), so it must not change:
   * a fixed report of slot 3 (values γ·(e − 7), Yr then Z) gives the value recorded when the
   * term was defined, mix(Σ updateHash(slot, e, value_e)).
   */
  @Test
  void checksum_ofAFixedReport_isTheRecordedValue() throws Exception {
    int t = PROTOCOL.sizes().t();
    int v = PROTOCOL.sizes().v();
    ByteBuffer b = ByteBuffer.allocate(32 + 8 * (t * D + v * v));
    b.putInt(0x44504C52).putShort((short) 2).putShort((short) 0);
    b.put(java.util.HexFormat.of().parseHex(PROTOCOL.id())).putInt(t).putInt(D).putInt(v).putInt(3);
    for (int e = 0; e < t * D; e++) {
      b.putDouble((e - 7) * PROTOCOL.plan().yr().grid().gamma());
    }
    for (int e = 0; e < v * v; e++) {
      b.putDouble((e - 7) * PROTOCOL.plan().z().grid().gamma());
    }
    IngestStats stats = new IngestStats();
    new LocalRobustReportDecoder(PROTOCOL, new Reports()).apply(null, b.array(), stats);
    assertEquals(CHECKSUM, stats.checksum(), String.format("%016x", stats.checksum()));
  }

  private static final long CHECKSUM = 0xed0b6854cef117dcL;
}
