package io.dplrf.ingest;

import java.util.EnumSet;
import java.util.Set;

/**
 * Why a record was sent to the dead-letter topic. The constant's name is written in the
 * {@code dplrf-reason-code} header and, by ordinal, in the snapshot: append new reasons at the
 * end, never reorder. Each record format gives some of them only ({@link #ofUpdates} and the
 * others): the service counts, exports and lists those of its own format.
 */
public enum DeadLetterReason {
  /**
   * The value's length is 0 (or the value is null) or not a multiple of 16 bytes; rows mode: not
   * 8 + 12·nnz bytes; local mode: shorter than the report header or not the report's length (24 + 8·d·t bytes for
   * local, 32 + 8·(t·d + v·v) for local-robust).
   */
  BAD_LENGTH,
  /**
   * An update's row or column index is outside {@code [0, rows)} or {@code [0, cols)}; rows mode:
   * a column index outside {@code [0, d)}; local-robust: a report's user slot outside
   * {@code [0, m)}.
   */
  INDEX_OUT_OF_RANGE,
  /** An update's Δ is NaN or infinite. */
  NON_FINITE_DELTA,
  /** Key privacy units are configured and the record has no key. */
  MISSING_KEY,
  /** Rows mode: a row's value x is NaN or infinite. */
  NON_FINITE_VALUE,
  /** Rows mode: a column index appears twice in one row. */
  DUPLICATE_INDEX,
  /**
   * Local mode: not a report of the protocol's format (wrong magic or version of {@code
   * LocalReportCodec}'s "DPLP", or for local-robust of its "DPLR", whose version 1 had no slot).
   */
  NOT_A_REPORT,
  /** Local mode: a report made under another protocol (other seed, d, t, C, ε or δ). */
  FOREIGN_PROTOCOL,
  /** Local mode: the protocol's id but another d×t (local-robust: another t, d or v). */
  WRONG_SHAPE,
  /**
   * Local mode: a value NaN, infinite, off the protocol's noise grid γℤ, or beyond 2⁶²·γ in
   * magnitude (no randomizer output comes near it; the bound keeps the exact sum exact).
   */
  BAD_VALUE,
  /** Completion mode: a rating whose magnitude exceeds the configured bound C ({@code clip}). */
  RATING_OUT_OF_RANGE,
  /**
   * Local-robust: a report for a user slot that already has a report in the sum; only the first
   * report of each slot is counted, so repeated reports of one user never compose in a release.
   */
  DUPLICATE_SLOT;

  /**
   * The turnstile format's ({@link RecordDecoder#updates}, {@link ContributionBounds#validate}):
   * {@link #MISSING_KEY} only when the privacy unit is the record key.
   */
  public static Set<DeadLetterReason> ofUpdates(boolean keyUnit) {
    EnumSet<DeadLetterReason> r = EnumSet.of(BAD_LENGTH, INDEX_OUT_OF_RANGE, NON_FINITE_DELTA);
    if (keyUnit) {
      r.add(MISSING_KEY);
    }
    return Set.copyOf(r);
  }

  /** Row records' ({@link RowDecoder}). */
  public static Set<DeadLetterReason> ofRows() {
    return Set.of(BAD_LENGTH, INDEX_OUT_OF_RANGE, NON_FINITE_VALUE, DUPLICATE_INDEX);
  }

  /** Ratings' ({@link RatingDecoder}): the turnstile format's, and a rating off the scale. */
  public static Set<DeadLetterReason> ofRatings() {
    return Set.of(BAD_LENGTH, INDEX_OUT_OF_RANGE, NON_FINITE_DELTA, RATING_OUT_OF_RANGE);
  }

  /**
   * Local reports' ({@link LocalReportDecoder}); local-robust reports carry a user slot, which
   * may be out of range or repeated.
   */
  public static Set<DeadLetterReason> ofLocalReports(boolean robust) {
    EnumSet<DeadLetterReason> r = EnumSet.of(BAD_LENGTH, NOT_A_REPORT, FOREIGN_PROTOCOL,
        WRONG_SHAPE, BAD_VALUE);
    if (robust) {
      r.add(INDEX_OUT_OF_RANGE);
      r.add(DUPLICATE_SLOT);
    }
    return Set.copyOf(r);
  }
}
