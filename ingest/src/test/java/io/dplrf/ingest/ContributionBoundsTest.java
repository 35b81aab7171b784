package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.ingest.ContributionBounds.BudgetPolicy;
import io.dplrf.ingest.ContributionBounds.Unit;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ContributionBoundsTest {
  private static final byte[] ALICE = "alice".getBytes(StandardCharsets.UTF_8);
  private static final byte[] BOB = "bob".getBytes(StandardCharsets.UTF_8);

  private final IngestStats stats = new IngestStats();
  private final List<double[]> applied = new ArrayList<>();
  private final UpdateVisitor sink = (i, j, d) -> applied.add(new double[] {i, j, d});

  private static ContributionBounds bounds(Unit unit, BudgetPolicy policy) {
    return new ContributionBounds(new ContributionBounds.Config(10, 5, 1.0, unit, policy));
  }

  private static byte[] rec(double... ijd) {
    int n = ijd.length / 3;
    int[] i = new int[n];
    int[] j = new int[n];
    double[] d = new double[n];
    for (int k = 0; k < n; k++) {
      i[k] = (int) ijd[3 * k];
      j[k] = (int) ijd[3 * k + 1];
      d[k] = ijd[3 * k + 2];
    }
    return UpdateRecords.encode(i, j, d, 0, n);
  }

  private List<Double> deltas() {
    return applied.stream().map(u -> u[2]).toList();
  }

  @Test
  void update_largerThanClip_isClampedToPlusMinusCAndCountedAsClipped() throws Exception {
    ContributionBounds b = bounds(Unit.UPDATE, BudgetPolicy.CLIP);
    b.accept(null, rec(0, 0, 5.0, 1, 1, -3.0, 2, 2, 0.5, 3, 3, 1.0), stats, sink);
    assertEquals(List.of(1.0, -1.0, 0.5, 1.0), deltas());
    assertEquals(4, stats.updatesApplied());
    assertEquals(2, stats.updatesClipped());
    assertEquals(0, stats.updatesDropped());
  }

  @Test
  void keyBudget_clip_clipsToTheRemainderThenDropsWhatFindsNoneLeft() throws Exception {
    ContributionBounds b = bounds(Unit.KEY, BudgetPolicy.CLIP);
    b.accept(ALICE, rec(0, 0, 0.5, 0, 1, -0.25), stats, sink);
    b.accept(ALICE, rec(1, 0, 0.75, 1, 1, 0.1), stats, sink);
    b.accept(BOB, rec(1, 0, 0.75), stats, sink);
    assertEquals(List.of(0.5, -0.25, 0.25, 0.75), deltas());
    assertEquals(1.0, b.spentByKey(ALICE));
    assertEquals(0.75, b.spentByKey(BOB));
    assertEquals(5, stats.updatesConsumed());
    assertEquals(4, stats.updatesApplied());
    assertEquals(1, stats.updatesClipped());
    assertEquals(1, stats.updatesDropped());
  }

  @Test
  void keyBudget_drop_dropsAnUpdateBeyondTheRemainderButAppliesLaterOnesThatFit() throws Exception {
    ContributionBounds b = bounds(Unit.KEY, BudgetPolicy.DROP);
    b.accept(ALICE, rec(0, 0, 0.5, 0, 1, 0.75, 0, 2, -0.5, 0, 3, 0.1), stats, sink);
    assertEquals(List.of(0.5, -0.5), deltas());
    assertEquals(1.0, b.spentByKey(ALICE));
    assertEquals(2, stats.updatesApplied());
    assertEquals(0, stats.updatesClipped());
    assertEquals(2, stats.updatesDropped());
  }

  @Test
  void rowBudget_clip_chargesEachRowOverTheWholeStreamWhateverTheKey() throws Exception {
    ContributionBounds b = bounds(Unit.ROW, BudgetPolicy.CLIP);
    b.accept(ALICE, rec(3, 0, 0.75, 4, 0, 2.0), stats, sink);
    b.accept(BOB, rec(3, 1, 0.75, 4, 1, 0.5), stats, sink);
    assertEquals(List.of(0.75, 1.0, 0.25), deltas());
    assertEquals(1.0, b.spentByRow(3));
    assertEquals(1.0, b.spentByRow(4));
    assertEquals(3, stats.updatesApplied());
    assertEquals(2, stats.updatesClipped());
    assertEquals(1, stats.updatesDropped());
  }

  @Test
  void rowBudget_drop_dropsUpdatesBeyondTheRowsRemainder() throws Exception {
    ContributionBounds b = bounds(Unit.ROW, BudgetPolicy.DROP);
    b.accept(null, rec(3, 0, 0.75, 3, 1, 0.5, 3, 2, 0.25), stats, sink);
    assertEquals(List.of(0.75, 0.25), deltas());
    assertEquals(1, stats.updatesDropped());
  }

  @Test
  void record_withOneOutOfRangeIndex_isRejectedWholeAndNothingIsAppliedOrCharged() {
    ContributionBounds b = bounds(Unit.KEY, BudgetPolicy.CLIP);
    for (byte[] bad : List.of(rec(0, 0, 0.5, 10, 0, 0.5), rec(0, 0, 0.5, 0, 5, 0.5),
        rec(0, 0, 0.5, -1, 0, 0.5), rec(0, 0, 0.5, 0, -1, 0.5))) {
      MalformedRecordException e =
          assertThrows(MalformedRecordException.class, () -> b.accept(ALICE, bad, stats, sink));
      assertEquals(DeadLetterReason.INDEX_OUT_OF_RANGE, e.reason());
      assertTrue(e.getMessage().startsWith("update 1: "), e.getMessage());
    }
    assertEquals(List.of(), applied);
    assertEquals(0.0, b.spentByKey(ALICE));
    assertEquals(new IngestStats(), stats);
  }

  @Test
  void record_withNaNOrInfiniteDelta_isRejectedWhole() {
    ContributionBounds b = bounds(Unit.UPDATE, BudgetPolicy.CLIP);
    for (double d : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
      MalformedRecordException e = assertThrows(MalformedRecordException.class,
          () -> b.accept(null, rec(0, 0, 0.5, 1, 1, d), stats, sink));
      assertEquals(DeadLetterReason.NON_FINITE_DELTA, e.reason());
      assertEquals("update 1: delta " + d + " is not finite", e.getMessage());
    }
    assertEquals(List.of(), applied);
  }

  @Test
  void keyMode_recordWithoutKey_isMalformedButAnEmptyKeyIsAUnit() throws Exception {
    ContributionBounds b = bounds(Unit.KEY, BudgetPolicy.CLIP);
    MalformedRecordException e = assertThrows(MalformedRecordException.class,
        () -> b.accept(null, rec(0, 0, 0.5), stats, sink));
    assertEquals(DeadLetterReason.MISSING_KEY, e.reason());
    assertEquals("missing record key (privacy unit)", e.getMessage());
    b.accept(new byte[0], rec(0, 0, 0.5), stats, sink);
    assertEquals(0.5, b.spentByKey(new byte[0]));
  }

  @Test
  void keyBudget_exactSumOfAppliedAbsoluteDeltas_neverExceedsClip() throws Exception {
    // 0.1 and friends are inexact in binary: the spent amount must round up, the remainder down.
    SplittableRandom rnd = new SplittableRandom(11);
    for (BudgetPolicy policy : BudgetPolicy.values()) {
      ContributionBounds b = new ContributionBounds(
          new ContributionBounds.Config(1, 1, 0.3, Unit.KEY, policy));
      for (int key = 0; key < 200; key++) {
        applied.clear();
        byte[] k = {(byte) key, (byte) (key >> 8)};
        for (int r = 0; r < 20; r++) {
          b.accept(k, rec(0, 0, rnd.nextInt(1, 10) / 100.0), stats, sink);
        }
        BigDecimal total = BigDecimal.ZERO;
        for (double[] u : applied) {
          total = total.add(new BigDecimal(Math.abs(u[2])));
        }
        assertTrue(total.compareTo(new BigDecimal(0.3)) <= 0, "key " + key + ": " + total);
        assertTrue(b.spentByKey(k) <= 0.3);
      }
    }
  }

  @Test
  void roundingHelpers_areExactWhenExactAndConservativeOtherwise() {
    assertEquals(1.0, ContributionBounds.remainderLowerBound(1.0, 0.0));
    assertEquals(0.5, ContributionBounds.remainderLowerBound(1.0, 0.5));
    assertEquals(0.0, ContributionBounds.remainderLowerBound(1.0, 1.0));
    assertEquals(0.75, ContributionBounds.sumUpperBound(0.5, 0.25));
    double up = ContributionBounds.sumUpperBound(0.1, 0.2);
    assertTrue(new BigDecimal(up).compareTo(new BigDecimal(0.1).add(new BigDecimal(0.2))) >= 0);
    double rem = ContributionBounds.remainderLowerBound(1.0, 1e-17);
    assertTrue(new BigDecimal(rem).compareTo(BigDecimal.ONE.subtract(new BigDecimal(1e-17))) <= 0);
  }
}
