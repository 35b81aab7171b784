package io.dplrf.ingest;

/**
 * Why a record was sent to the dead-letter topic. The constant's name is written in the
 * {@code dplrf-reason-code} header and, by ordinal, in the snapshot: append new reasons at the
 * end, never reorder.
 */
public enum DeadLetterReason {
  /**
   * The value's length is 0 (or the value is null) or not a multiple of 16 bytes; rows mode: not
   * 8 + 12·nnz bytes.
   */
  BAD_LENGTH,
  /**
   * An update's row or column index is outside {@code [0, rows)} or {@code [0, cols)}; rows mode:
   * a column index outside {@code [0, d)}.
   */
  INDEX_OUT_OF_RANGE,
  /** An update's Δ is NaN or infinite. */
  NON_FINITE_DELTA,
  /** Key privacy units are configured and the record has no key. */
  MISSING_KEY,
  /** Rows mode: a row's value x is NaN or infinite. */
  NON_FINITE_VALUE,
  /** Rows mode: a column index appears twice in one row. */
  DUPLICATE_INDEX
}
