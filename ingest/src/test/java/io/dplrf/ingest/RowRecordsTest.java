package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.ingest.ContributionBounds.BudgetPolicy;
import io.dplrf.ingest.ContributionBounds.Unit;
import io.dplrf.sketch.pca.RowClipping;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The row record codec ({@link RowRecords}) and its validation and clipping ({@link RowDecoder}). */
class RowRecordsTest {
  static final int D = 10;
  static final double C = 2.0;
  static final ContributionBounds.Config ROWS =
      new ContributionBounds.Config(D, D, C, Unit.ROW_RECORD, BudgetPolicy.CLIP);

  /** A sink that records the rows it receives (copies). */
  static final class Rows implements RowVisitor {
    final List<double[]> dense = new ArrayList<>();

    @Override
    public void accept(int[] index, double[] x, int n) {
      double[] row = new double[D];
      for (int k = 0; k < n; k++) {
        row[index[k]] = x[k];
      }
      dense.add(row);
    }
  }

  @Test
  void encode_thenDecode_roundTripsIdIndicesAndValuesBitForBit() throws Exception {
    int[] j = {7, 0, 3};
    double[] x = {-0.0, Double.MIN_VALUE, -123.456e200};
    byte[] v = RowRecords.encode(-42L, j, x, 0, 3);
    assertEquals(8 + 3 * 12, v.length);
    assertEquals(3, RowRecords.count(v));
    assertEquals(-42L, RowRecords.rowId(v));
    for (int k = 0; k < 3; k++) {
      assertEquals(j[k], RowRecords.index(v, k));
      assertEquals(Double.doubleToRawLongBits(x[k]),
          Double.doubleToRawLongBits(RowRecords.value(v, k)));
    }
    // Big-endian layout: the id's most significant byte first, then j0 = 7 as 00 00 00 07.
    assertEquals((byte) 0xff, v[0]);
    assertArrayEquals(new byte[] {0, 0, 0, 7}, java.util.Arrays.copyOfRange(v, 8, 12));
  }

  @Test
  void encodeDense_writesTheNonZerosInColumnOrder() throws Exception {
    byte[] v = RowRecords.encodeDense(5, new double[] {0, 1.5, 0, -2});
    assertEquals(2, RowRecords.count(v));
    assertEquals(1, RowRecords.index(v, 0));
    assertEquals(-2.0, RowRecords.value(v, 1));
  }

  @Test
  void emptyRow_isValidAndAppliesNothing() throws Exception {
    Rows t = new Rows();
    IngestStats s = new IngestStats();
    new RowDecoder(ROWS, t).apply(null, RowRecords.encode(1, new int[0], new double[0], 0, 0), s);
    assertEquals(1, s.updatesApplied());
    assertEquals(0, s.updatesClipped());
    assertTrue(t.dense.get(0).length == D && java.util.Arrays.stream(t.dense.get(0)).allMatch(x -> x == 0));
  }

  @Test
  void badLength_isRejected() {
    for (byte[] v : new byte[][] {null, new byte[0], new byte[7], new byte[8 + 11], new byte[8 + 13]}) {
      MalformedRecordException e = assertThrows(MalformedRecordException.class,
          () -> new RowDecoder(ROWS, new Rows()).validate(v));
      assertEquals(DeadLetterReason.BAD_LENGTH, e.reason());
    }
  }

  @Test
  void outOfRangeIndex_isRejectedWithItsReason() {
    for (int j : new int[] {-1, D, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      byte[] v = RowRecords.encode(9, new int[] {0, j}, new double[] {1, 1}, 0, 2);
      MalformedRecordException e = assertThrows(MalformedRecordException.class,
          () -> new RowDecoder(ROWS, new Rows()).validate(v));
      assertEquals(DeadLetterReason.INDEX_OUT_OF_RANGE, e.reason());
      assertTrue(e.getMessage().contains("row 9"), e.getMessage());
    }
  }

  @Test
  void nonFiniteValue_isRejectedWithItsReason() {
    for (double x : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
      byte[] v = RowRecords.encode(1, new int[] {2, 3}, new double[] {1, x}, 0, 2);
      MalformedRecordException e = assertThrows(MalformedRecordException.class,
          () -> new RowDecoder(ROWS, new Rows()).validate(v));
      assertEquals(DeadLetterReason.NON_FINITE_VALUE, e.reason());
    }
  }

  @Test
  void duplicateIndex_isRejectedButTheSameIndexInTheNextRowIsFine() throws Exception {
    RowDecoder dec = new RowDecoder(ROWS, new Rows());
    byte[] dup = RowRecords.encode(1, new int[] {4, 1, 4}, new double[] {1, 2, 3}, 0, 3);
    MalformedRecordException e =
        assertThrows(MalformedRecordException.class, () -> dec.validate(dup));
    assertEquals(DeadLetterReason.DUPLICATE_INDEX, e.reason());
    assertEquals(1, dec.validate(RowRecords.encode(2, new int[] {4}, new double[] {1}, 0, 1)));
    assertEquals(1, dec.validate(RowRecords.encode(3, new int[] {4}, new double[] {1}, 0, 1)));
  }

  @Test
  void malformedRow_appliesAndCountsNothing() {
    Rows t = new Rows();
    IngestStats s = new IngestStats();
    byte[] v = RowRecords.encode(1, new int[] {1, 2}, new double[] {1, Double.NaN}, 0, 2);
    assertThrows(MalformedRecordException.class, () -> new RowDecoder(ROWS, t).apply(null, v, s));
    assertTrue(t.dense.isEmpty());
    assertEquals(new IngestStats(), s);
  }

  @Test
  void rows_areClippedToNormAtMostC_andShortRowsPassUnchanged() throws Exception {
    SplittableRandom rnd = new SplittableRandom(7);
    Rows t = new Rows();
    RowDecoder dec = new RowDecoder(ROWS, t);
    IngestStats s = new IngestStats();
    int clippedExpected = 0;
    for (int r = 0; r < 500; r++) {
      double scale = Math.pow(10, rnd.nextDouble(-3, 300));
      int n = rnd.nextInt(D + 1);
      int[] j = new int[n];
      double[] x = new double[n];
      for (int k = 0; k < n; k++) {
        j[k] = k;
        x[k] = scale * rnd.nextDouble(-1, 1);
      }
      double norm = RowClipping.norm(x);
      boolean clip = norm > C * (1 - 1e-9);
      if (clip) {
        clippedExpected++;
      }
      dec.apply(null, RowRecords.encode(r, j, x, 0, n), s);
      double[] got = t.dense.get(r);
      double gotNorm = RowClipping.norm(got);
      assertTrue(gotNorm <= C, "row " + r + ": norm " + gotNorm);
      if (!clip) {
        for (int k = 0; k < n; k++) {
          assertEquals(x[k], got[k], 0.0);
        }
      } else if (Double.isFinite(norm)) {
        // Clipping only shrinks: the direction is kept.
        for (int k = 0; k < n; k++) {
          assertEquals(x[k] / norm, got[k] / gotNorm, 1e-9);
        }
      }
    }
    assertEquals(500, s.updatesApplied());
    assertEquals(clippedExpected, s.updatesClipped());
    assertTrue(clippedExpected > 100 && clippedExpected < 500, "both cases exercised");
  }

  @Test
  void hugeEntries_whoseNormOverflows_areClippedNotRejected() throws Exception {
    Rows t = new Rows();
    IngestStats s = new IngestStats();
    new RowDecoder(ROWS, t).apply(null, RowRecords.encode(1, new int[] {0, 1},
        new double[] {Double.MAX_VALUE, -Double.MAX_VALUE}, 0, 2), s);
    double[] got = t.dense.get(0);
    assertTrue(RowClipping.norm(got) <= C);
    assertEquals(C / Math.sqrt(2), got[0], 1e-6);
    assertEquals(1, s.updatesClipped());
  }


  @Test
  void rowChecksum_isIndependentOfEntryOrderButNotOfRowMembership() {
    long a = IngestStats.rowHash(new int[] {1, 2}, new double[] {0.5, 0.25}, 2);
    long b = IngestStats.rowHash(new int[] {2, 1}, new double[] {0.25, 0.5}, 2);
    assertEquals(a, b);
    long split = IngestStats.rowHash(new int[] {1}, new double[] {0.5}, 1)
        + IngestStats.rowHash(new int[] {2}, new double[] {0.25}, 1);
    assertFalse(a == split);
  }

  @Test
  void turnstileMethods_refuseRowRecordBounds() {
    ContributionBounds b = new ContributionBounds(ROWS);
    assertThrows(IllegalStateException.class, () -> b.validate(null, new byte[16]));
  }
}
