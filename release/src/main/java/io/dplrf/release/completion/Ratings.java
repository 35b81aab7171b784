package io.dplrf.release.completion;

import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.pca.RowClipping;
import java.util.Arrays;
import java.util.Objects;

/**
 * The observed ratings P_Ω(Y*) of paper 004 (Jain, Thakkar, Thakurta, ICML 2018) as immutable
 * sparse per-user rows: for each user i, the sorted item ids Ω_i and the values Y*_ij.
 *
 * <p><b>Contribution bounds</b> (what the privacy analysis of {@link PrivateFrankWolfe} needs,
 * docs/privacy/completion.md §2), applied to each user's records in arrival order:
 * <ol>
 *   <li>at most ξ ratings per user: the first ξ <em>distinct</em> items in arrival order are kept;
 *       a later record for a kept item replaces its value (a change is a new record); a record for
 *       any further item is dropped and counted ({@link #dropped()});
 *   <li>the row is clipped to ‖P_Ω(Y*_i)‖₂ ≤ L by scaling it down ({@link RowClipping}).
 * </ol>
 * The same policy is applied by {@link #normalizeRow}, which the serving side
 * ({@link CompletionModel#predictUser}) uses for a single user's own row.
 *
 * <p>NOT private: the rows, {@link #dropped()} and {@link #clippedRows()} are raw data. Immutable
 * and thread-safe.
 */
public final class Ratings {
  private final int users;
  private final int items;
  private final int maxPerUser;
  private final double clip;
  private final int[] rowStart; // users + 1 offsets into cols/vals
  private final int[] cols;
  private final double[] vals;
  private final long dropped;
  private final int clippedRows;
  private final long unusable;

  private Ratings(int users, int items, int maxPerUser, double clip, int[] rowStart, int[] cols,
      double[] vals, long dropped, int clippedRows, long unusable) {
    this.users = users;
    this.items = items;
    this.maxPerUser = maxPerUser;
    this.clip = clip;
    this.rowStart = rowStart;
    this.cols = cols;
    this.vals = vals;
    this.dropped = dropped;
    this.clippedRows = clippedRows;
    this.unusable = unusable;
  }

  /** One user's normalised row: strictly increasing item ids and their (clipped) values. */
  public record Row(int[] items, double[] values) {
    public int size() {
      return items.length;
    }
  }

  /**
   * Builds the rows from (user, item, value) triples given in arrival order.
   *
   * @param users m, user ids are 0..m−1 (public)
   * @param items n (the paper's n; d here), item ids are 0..d−1 (public)
   * @param maxPerUser ξ ≥ 1
   * @param clip L &gt; 0
   * @throws IllegalArgumentException on an id out of range, a non-finite value or mismatched
   *     array lengths; nothing is built then
   */
  public static Ratings of(int users, int items, int maxPerUser, double clip, int[] user,
      int[] item, double[] value) {
    Preconditions.checkPositive("users", users);
    Preconditions.checkPositive("items", items);
    Preconditions.checkPositive("max ratings per user (xi)", maxPerUser);
    Preconditions.checkPositiveFinite("clip (L)", clip);
    if (user.length != item.length || user.length != value.length) {
      throw new IllegalArgumentException("triples need equal lengths: " + user.length + " users, "
          + item.length + " items, " + value.length + " values");
    }
    int[] count = new int[users + 1];
    for (int r = 0; r < user.length; r++) {
      checkRecord(users, items, user[r], item[r], value[r], r);
      count[user[r] + 1]++;
    }
    for (int u = 0; u < users; u++) {
      count[u + 1] += count[u];
    }
    // Counting sort by user, stable: each user's records stay in arrival order.
    int[] order = new int[user.length];
    int[] next = Arrays.copyOf(count, users);
    for (int r = 0; r < user.length; r++) {
      order[next[user[r]]++] = r;
    }
    int[] rowStart = new int[users + 1];
    int[] outCols = new int[(int) Math.min(user.length, (long) users * maxPerUser)];
    double[] outVals = new double[outCols.length];
    long dropped = 0;
    int clippedRows = 0;
    int[] rowItems = new int[0];
    double[] rowValues = new double[0];
    int out = 0;
    for (int u = 0; u < users; u++) {
      int len = count[u + 1] - count[u];
      if (rowItems.length < len) {
        rowItems = new int[len];
        rowValues = new double[len];
      }
      for (int x = 0; x < len; x++) {
        int r = order[count[u] + x];
        rowItems[x] = item[r];
        rowValues[x] = value[r];
      }
      Normalized row = normalize(rowItems, rowValues, len, maxPerUser, clip);
      dropped += row.dropped;
      if (row.clipped) {
        clippedRows++;
      }
      System.arraycopy(row.row.items(), 0, outCols, out, row.row.size());
      System.arraycopy(row.row.values(), 0, outVals, out, row.row.size());
      out += row.row.size();
      rowStart[u + 1] = out;
    }
    return new Ratings(users, items, maxPerUser, clip, rowStart, Arrays.copyOf(outCols, out),
        Arrays.copyOf(outVals, out), dropped, clippedRows, 0);
  }

  /**
   * As {@link #of}, except that a record with a user id outside [0, users), an item id outside
   * [0, items) or a non-finite value is dropped and counted ({@link #unusable()}) instead of
   * failing. It is dropped before the ξ bound, so it takes none of its user's ξ places: the
   * result is exactly {@link #of} on the other records, and dropping one user's record changes
   * that user's row only (which the neighbouring relation covers), never whether there is a
   * result. Mismatched array lengths and invalid dimensions still fail.
   */
  public static Ratings ofUsable(int users, int items, int maxPerUser, double clip, int[] user,
      int[] item, double[] value) {
    if (user.length != item.length || user.length != value.length) {
      throw new IllegalArgumentException("triples need equal lengths: " + user.length + " users, "
          + item.length + " items, " + value.length + " values");
    }
    int usable = 0;
    for (int r = 0; r < user.length; r++) {
      usable += isUsable(users, items, user[r], item[r], value[r]) ? 1 : 0;
    }
    if (usable == user.length) {
      return of(users, items, maxPerUser, clip, user, item, value);
    }
    int[] u = new int[usable];
    int[] it = new int[usable];
    double[] v = new double[usable];
    int out = 0;
    for (int r = 0; r < user.length; r++) {
      if (isUsable(users, items, user[r], item[r], value[r])) {
        u[out] = user[r];
        it[out] = item[r];
        v[out++] = value[r];
      }
    }
    Ratings kept = of(users, items, maxPerUser, clip, u, it, v);
    return new Ratings(users, items, maxPerUser, clip, kept.rowStart, kept.cols, kept.vals,
        kept.dropped, kept.clippedRows, user.length - usable);
  }

  private static boolean isUsable(int users, int items, int u, int j, double v) {
    return u >= 0 && u < users && j >= 0 && j < items && Double.isFinite(v);
  }

  /**
   * One user's records (arrival order) under the same policy as {@link #of}: first ξ distinct
   * items, latest value per kept item, sorted by item, clipped to norm L.
   *
   * @throws IllegalArgumentException on an item id outside [0, items) or a non-finite value
   */
  public static Row normalizeRow(int items, int maxPerUser, double clip, int[] item,
      double[] value) {
    if (item.length != value.length) {
      throw new IllegalArgumentException(
          item.length + " item ids but " + value.length + " values");
    }
    for (int r = 0; r < item.length; r++) {
      checkRecord(1, items, 0, item[r], value[r], r);
    }
    return normalize(item, value, item.length, maxPerUser, clip).row;
  }

  private record Normalized(Row row, long dropped, boolean clipped) {}

  private static Normalized normalize(int[] item, double[] value, int len, int maxPerUser,
      double clip) {
    int[] keptItems = new int[Math.min(len, maxPerUser)];
    double[] keptValues = new double[keptItems.length];
    int kept = 0;
    long dropped = 0;
    for (int x = 0; x < len; x++) {
      int at = -1;
      for (int k = 0; k < kept; k++) { // ξ is small (the paper uses 80): a scan beats a map
        if (keptItems[k] == item[x]) {
          at = k;
          break;
        }
      }
      if (at >= 0) {
        keptValues[at] = value[x];
      } else if (kept < maxPerUser) {
        keptItems[kept] = item[x];
        keptValues[kept++] = value[x];
      } else {
        dropped++;
      }
    }
    Integer[] byItem = new Integer[kept];
    for (int k = 0; k < kept; k++) {
      byItem[k] = k;
    }
    Arrays.sort(byItem, (a, b) -> Integer.compare(keptItems[a], keptItems[b]));
    int[] items = new int[kept];
    double[] values = new double[kept];
    for (int k = 0; k < kept; k++) {
      items[k] = keptItems[byItem[k]];
      values[k] = keptValues[byItem[k]];
    }
    boolean clipped = kept > 0 && RowClipping.clipInPlace(values, clip);
    return new Normalized(new Row(items, values), dropped, clipped);
  }

  private static void checkRecord(int users, int items, int u, int j, double v, int r) {
    if (u < 0 || u >= users) {
      throw new IllegalArgumentException(
          "record " + r + ": user must be in [0, " + users + "). Provided value: " + u);
    }
    if (j < 0 || j >= items) {
      throw new IllegalArgumentException(
          "record " + r + ": item must be in [0, " + items + "). Provided value: " + j);
    }
    if (!Double.isFinite(v)) {
      throw new IllegalArgumentException(
          "record " + r + ": rating must be finite. Provided value: " + v);
    }
  }

  /** m, the number of users (public). */
  public int users() {
    return users;
  }

  /** d, the number of items (public). */
  public int items() {
    return items;
  }

  /** ξ. */
  public int maxPerUser() {
    return maxPerUser;
  }

  /** L. */
  public double clip() {
    return clip;
  }

  /** |Ω| after the ξ bound: NOT private. */
  public int size() {
    return cols.length;
  }

  /** Records dropped by the ξ bound: NOT private (an operator statistic). */
  public long dropped() {
    return dropped;
  }

  /**
   * Records dropped by {@link #ofUsable} for an id out of range or a non-finite value (0 from
   * {@link #of}): NOT private (an operator statistic).
   */
  public long unusable() {
    return unusable;
  }

  /** Users whose row was scaled down to norm L: NOT private. */
  public int clippedRows() {
    return clippedRows;
  }

  /** User i's row (copies). */
  public Row row(int user) {
    Objects.checkIndex(user, users);
    return new Row(Arrays.copyOfRange(cols, rowStart[user], rowStart[user + 1]),
        Arrays.copyOfRange(vals, rowStart[user], rowStart[user + 1]));
  }

  int start(int user) {
    return rowStart[user];
  }

  int end(int user) {
    return rowStart[user + 1];
  }

  /** The shared item-id array (package-private, read-only by convention). */
  int[] cols() {
    return cols;
  }

  /** The shared value array (package-private, read-only by convention). */
  double[] vals() {
    return vals;
  }
}
