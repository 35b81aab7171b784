package io.dplrf.ingest;

import io.dplrf.sketch.params.Preconditions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;

/**
 * Validates records and bounds each privacy unit's contribution (docs/privacy/README.md §1):
 * every update is clamped to {@code |Δ| ≤ C}; in {@link Unit#KEY} or {@link Unit#ROW} mode each
 * unit also has an ℓ1 budget {@code Σ|Δ| ≤ C} over the whole stream, and an update beyond the
 * unit's remainder is clipped to it ({@link BudgetPolicy#CLIP}) or dropped ({@link
 * BudgetPolicy#DROP}). Two neighbouring streams (differing in one unit's updates) then differ by
 * at most C in ℓ1 in every tree node, which is what the calibration scales by.
 *
 * <p><b>Whole-record policy.</b> A record is validated completely before any of it is applied:
 * one out-of-range index, one non-finite Δ, a bad length, or (KEY mode) a missing key rejects the
 * whole record, which goes to the dead-letter topic; none of its updates is applied or charged to
 * a budget. So a record is the unit of acceptance, and a producer can fix and resend it whole.
 *
 * <p><b>Null keys in KEY mode</b> are malformed ({@link DeadLetterReason#MISSING_KEY}): treating
 * each key-less record as its own unit would let one user escape the budget by omitting the key.
 * An empty (zero-length) key is a key like any other.
 *
 * <p><b>Rounding.</b> The spent amount of a unit is kept as an upper bound and the remainder as a
 * lower bound of the exact real numbers (Knuth's TwoSum gives the exact rounding error of each
 * addition; an inexact result is moved one ulp the safe way), so the exact ℓ1 sum of a unit's
 * applied |Δ| never exceeds C, and an exact remainder (the common case) is used as is.
 *
 * <p>Budget state (key bytes → spent, row → spent) lives in memory and in the snapshot; KEY mode
 * keeps one entry per key seen, ROW mode one double per row. Thread-safety: none; the ingest
 * loop owns it. Per-update work allocates nothing; a KEY-mode record allocates only when its key
 * is new.
 */
public final class ContributionBounds {

  /** What one privacy unit is (docs/privacy/README.md §1: one update, one record key, or one row). */
  public enum Unit {
    UPDATE,
    KEY,
    ROW,
    /**
     * Rows mode: one row record ({@link RowRecords}), clipped to ℓ2 norm ≤ C by {@link
     * RowDecoder}; no budgets across records. The turnstile methods of this class refuse it.
     */
    ROW_RECORD,
    /**
     * Local mode: one local-DP report ({@code io.dplrf.client.LocalReport}) of either local
     * protocol, decoded and checked by {@link LocalReportDecoder} (with the local-robust
     * mechanism each user slot counted once); no clipping or budgets (each report is already
     * private). The turnstile methods of this class refuse it.
     */
    LOCAL_REPORT,
    /**
     * Completion mode: one user, i.e. all rating records with row index i = the user
     * ({@link RatingDecoder}): the records are validated like updates ({@link #validate}), Δ is
     * the rating (|Δ| ≤ C, else dead-lettered, never clamped), and the latest rating of (user,
     * item) replaces the earlier one. No ℓ1 budgets: the bounds of one user's contribution are
     * at most ξ stored ratings ({@link RatingsStore}) and ‖P_Ω(Y_i)‖₂ ≤ L at fit time.
     * {@link #accept} refuses it.
     */
    USER_RATING
  }

  /** What happens to an update beyond its unit's remaining budget. */
  public enum BudgetPolicy {
    CLIP,
    DROP
  }

  /**
   * Validated bounds configuration.
   *
   * @param rows m, row indices are in [0, m)
   * @param cols n, column indices are in [0, n)
   * @param clip C &gt; 0: the per-update clamp and, in KEY/ROW mode, the per-unit ℓ1 budget
   * @param unit the privacy unit
   * @param policy the budget policy (irrelevant in UPDATE mode)
   */
  public record Config(int rows, int cols, double clip, Unit unit, BudgetPolicy policy) {
    public Config {
      Preconditions.checkPositive("rows", rows);
      Preconditions.checkPositive("cols", cols);
      Preconditions.checkPositiveFinite("clip", clip);
      Objects.requireNonNull(unit, "unit");
      Objects.requireNonNull(policy, "policy");
    }
  }

  private final Config config;
  private final double c;
  private final HashMap<KeyUnit, KeyUnit> keys;
  private final double[] rowSpent;
  private final KeyUnit probe = new KeyUnit(null, 0);

  public ContributionBounds(Config config) {
    this.config = Objects.requireNonNull(config, "config");
    this.c = config.clip();
    this.keys = config.unit() == Unit.KEY ? new HashMap<>() : null;
    this.rowSpent = config.unit() == Unit.ROW ? new double[config.rows()] : null;
  }

  public Config config() {
    return config;
  }

  /**
   * Validates the whole record, then applies its bounded updates to {@code sink} in order and
   * counts them in {@code stats}. On a malformed record nothing is applied, charged or counted.
   *
   * @throws MalformedRecordException if any part of the record is malformed
   */
  public void accept(byte[] key, byte[] value, IngestStats stats, UpdateVisitor sink)
      throws MalformedRecordException {
    requireTurnstile();
    if (config.unit() == Unit.USER_RATING) {
      throw new IllegalStateException("ratings are not added up: use RatingDecoder");
    }
    int n = validate(key, value);
    KeyUnit unit = config.unit() == Unit.KEY ? unitOf(key) : null;
    for (int k = 0; k < n; k++) {
      int i = UpdateRecords.row(value, k);
      int j = UpdateRecords.col(value, k);
      double d = UpdateRecords.delta(value, k);
      double a = Math.abs(d);
      boolean clipped = false;
      if (a > c) {
        a = c;
        clipped = true;
      }
      if (config.unit() != Unit.UPDATE) {
        double spent = unit != null ? unit.spent : rowSpent[i];
        double rem = remainderLowerBound(c, spent);
        if (a <= rem) {
          spent = sumUpperBound(spent, a);
        } else if (config.policy() == BudgetPolicy.CLIP && rem > 0) {
          a = rem;
          clipped = true;
          spent = c;
        } else {
          stats.dropped();
          continue;
        }
        if (unit != null) {
          unit.spent = spent;
        } else {
          rowSpent[i] = spent;
        }
      }
      double applied = clipped ? Math.copySign(a, d) : d;
      sink.accept(i, j, applied);
      stats.applied(i, j, applied, clipped);
    }
  }

  /**
   * Checks every update of the record and returns their number.
   *
   * @throws MalformedRecordException at the first problem, with a message naming it
   */
  public int validate(byte[] key, byte[] value) throws MalformedRecordException {
    requireTurnstile();
    int n = UpdateRecords.count(value);
    if (config.unit() == Unit.KEY && key == null) {
      throw new MalformedRecordException(DeadLetterReason.MISSING_KEY,
          "missing record key (privacy unit)");
    }
    for (int k = 0; k < n; k++) {
      int i = UpdateRecords.row(value, k);
      if (i < 0 || i >= config.rows()) {
        throw new MalformedRecordException(DeadLetterReason.INDEX_OUT_OF_RANGE,
            "update " + k + ": row index " + i + " is outside [0, " + config.rows() + ")");
      }
      int j = UpdateRecords.col(value, k);
      if (j < 0 || j >= config.cols()) {
        throw new MalformedRecordException(DeadLetterReason.INDEX_OUT_OF_RANGE,
            "update " + k + ": column index " + j + " is outside [0, " + config.cols() + ")");
      }
      double d = UpdateRecords.delta(value, k);
      if (!Double.isFinite(d)) {
        throw new MalformedRecordException(DeadLetterReason.NON_FINITE_DELTA,
            "update " + k + ": delta " + d + " is not finite");
      }
    }
    return n;
  }

  private void requireTurnstile() {
    if (config.unit() == Unit.ROW_RECORD || config.unit() == Unit.LOCAL_REPORT) {
      throw new IllegalStateException(config.unit() + " records have their own decoder, not updates");
    }
  }

  /** A lower bound of the exact {@code c - spent}, never negative. */
  static double remainderLowerBound(double c, double spent) {
    double x = c - spent;
    // TwoSum (Knuth, TAOCP vol. 2, 4.2.2): x + err == c + (-spent) exactly.
    double bv = x - c;
    double av = x - bv;
    double err = (c - av) + (-spent - bv);
    if (err < 0) {
      x = Math.nextDown(x);
    }
    return Math.max(x, 0.0);
  }

  /** An upper bound of the exact {@code spent + a}. */
  static double sumUpperBound(double spent, double a) {
    double x = spent + a;
    double bv = x - spent;
    double av = x - bv;
    double err = (spent - av) + (a - bv);
    return err > 0 ? Math.nextUp(x) : x;
  }

  private KeyUnit unitOf(byte[] key) {
    probe.key = key;
    probe.hash = Arrays.hashCode(key);
    KeyUnit u = keys.get(probe);
    probe.key = null;
    if (u == null) {
      u = new KeyUnit(key.clone(), Arrays.hashCode(key));
      keys.put(u, u);
    }
    return u;
  }

  // ---- budget state, for the StateStore ----

  /** Receives the budget state in canonical order. */
  interface BudgetVisitor {
    void key(byte[] key, double spent);

    void row(int row, double spent);
  }

  /**
   * Visits the budget state in a canonical order (keys sorted as unsigned bytes, rows ascending;
   * only rows with something spent), so equal states give equal snapshot bytes.
   */
  void visitBudgets(BudgetVisitor v) {
    if (keys != null) {
      List<KeyUnit> units = new ArrayList<>(keys.keySet());
      units.sort((a, b) -> Arrays.compareUnsigned(a.key, b.key));
      for (KeyUnit u : units) {
        v.key(u.key, u.spent);
      }
    }
    if (rowSpent != null) {
      for (int i = 0; i < rowSpent.length; i++) {
        if (rowSpent[i] != 0) {
          v.row(i, rowSpent[i]);
        }
      }
    }
  }

  /** Number of units {@link #visitBudgets} visits. */
  int budgetEntries() {
    if (keys != null) {
      return keys.size();
    }
    if (rowSpent != null) {
      int n = 0;
      for (double s : rowSpent) {
        if (s != 0) {
          n++;
        }
      }
      return n;
    }
    return 0;
  }

  /** The spent budget of a key (0 if never seen); for tests and admin. */
  public double spentByKey(byte[] key) {
    if (keys == null) {
      return 0;
    }
    probe.key = key;
    probe.hash = Arrays.hashCode(key);
    KeyUnit u = keys.get(probe);
    probe.key = null;
    return u == null ? 0 : u.spent;
  }

  /** The spent budget of a row (0 unless in ROW mode); for tests and admin. */
  public double spentByRow(int row) {
    return rowSpent == null ? 0 : rowSpent[row];
  }

  void restoreKey(byte[] key, double spent) {
    KeyUnit u = new KeyUnit(key.clone(), Arrays.hashCode(key));
    u.spent = spent;
    keys.put(u, u);
  }

  void restoreRow(int row, double spent) {
    rowSpent[row] = spent;
  }

  private static final class KeyUnit {
    byte[] key;
    int hash;
    double spent;

    KeyUnit(byte[] key, int hash) {
      this.key = key;
      this.hash = hash;
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof KeyUnit u && hash == u.hash && Arrays.equals(key, u.key);
    }
  }
}
