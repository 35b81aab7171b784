package io.dplrf.release.completion;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.pca.RowClipping;
import org.junit.jupiter.api.Test;

class RatingsTest {
  @Test
  void of_keepsFirstXiDistinctItemsInArrivalOrder_laterValueWins_restDroppedAndCounted() {
    // user 0 rates items 5, 2, 5 (change), 7, 9 with xi = 3: keeps {5, 2, 7}, drops 9.
    Ratings r = Ratings.of(2, 10, 3, 100, new int[] {0, 0, 1, 0, 0, 0},
        new int[] {5, 2, 3, 5, 7, 9}, new double[] {1, 2, 4, 3, 5, 6});
    assertArrayEquals(new int[] {2, 5, 7}, r.row(0).items());
    assertArrayEquals(new double[] {2, 3, 5}, r.row(0).values());
    assertArrayEquals(new int[] {3}, r.row(1).items());
    assertEquals(1, r.dropped());
    assertEquals(4, r.size());
    assertEquals(0, r.clippedRows());
  }

  @Test
  void of_clipsEachRowToNormL() {
    Ratings r = Ratings.of(2, 4, 80, 1.0, new int[] {0, 0, 1}, new int[] {0, 1, 2},
        new double[] {3, 4, 0.5});
    double[] row0 = r.row(0).values();
    assertTrue(RowClipping.norm(row0) <= 1.0, "norm " + RowClipping.norm(row0));
    assertEquals(0.6, row0[0], 1e-8);
    assertEquals(0.8, row0[1], 1e-8);
    assertArrayEquals(new double[] {0.5}, r.row(1).values(), "a short row is untouched");
    assertEquals(1, r.clippedRows());
  }

  @Test
  void normalizeRow_appliesTheSamePolicyAsOf() {
    int[] items = {4, 1, 4, 3, 0};
    double[] values = {1, 2, 9, 3, 4};
    Ratings.Row one = Ratings.normalizeRow(5, 3, 5, items, values);
    Ratings all = Ratings.of(1, 5, 3, 5, new int[5], items, values);
    assertArrayEquals(all.row(0).items(), one.items());
    assertArrayEquals(all.row(0).values(), one.values());
  }

  @Test
  void of_rejectsOutOfRangeIdsAndNonFiniteValues() {
    assertThrows(IllegalArgumentException.class,
        () -> Ratings.of(2, 3, 80, 1, new int[] {2}, new int[] {0}, new double[] {1}));
    assertThrows(IllegalArgumentException.class,
        () -> Ratings.of(2, 3, 80, 1, new int[] {0}, new int[] {3}, new double[] {1}));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Ratings.of(2, 3, 80, 1, new int[] {0}, new int[] {0}, new double[] {Double.NaN}));
    assertTrue(e.getMessage().contains("rating must be finite"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> Ratings.of(2, 3, 0, 1, new int[] {0}, new int[] {0}, new double[] {1}));
  }

  /**
   * ofUsable drops (and counts) each record with an id out of range or a non-finite value before
   * the ξ bound: the result is {@link Ratings#of} on the other records, so user 0's bad records
   * (arriving first) take none of her ξ = 2 places and user 1's row is untouched.
   */
  @Test
  void ofUsable_dropsUnusableRecordsAsIfNeverSent_andCountsThem() {
    int[] u = {0, 0, 0, 0, 2, -1, 0, 1, 0, 0};
    int[] it = {0, 3, -1, 1, 0, 0, 1, 2, 2, 0};
    double[] v = {Double.NaN, 1, 1, Double.POSITIVE_INFINITY, 1, 1, 4, 5, 6, 7};
    Ratings r = Ratings.ofUsable(2, 3, 2, 100, u, it, v);
    Ratings clean = Ratings.of(2, 3, 2, 100, new int[] {0, 1, 0, 0}, new int[] {1, 2, 2, 0},
        new double[] {4, 5, 6, 7});
    assertEquals(6, r.unusable());
    assertEquals(0, clean.unusable());
    for (int i = 0; i < 2; i++) {
      assertArrayEquals(clean.row(i).items(), r.row(i).items(), "user " + i);
      assertArrayEquals(clean.row(i).values(), r.row(i).values(), "user " + i);
    }
    assertArrayEquals(new int[] {1, 2}, r.row(0).items());
    assertEquals(clean.dropped(), r.dropped());
    assertEquals(1, r.dropped(), "item 0's 7 arrives after two kept items");
    assertThrows(IllegalArgumentException.class,
        () -> Ratings.ofUsable(2, 3, 2, 100, new int[] {0}, new int[0], new double[0]));
  }
}
