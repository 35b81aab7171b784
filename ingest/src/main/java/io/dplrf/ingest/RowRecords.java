package io.dplrf.ingest;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The one owner of the row record format (rows mode, docs/rows.md): one record is one whole row
 * of the data matrix A, given by its non-zeros, big-endian.
 *
 * <pre>
 *  offset        type     field
 *  ------------  -------  -------------------------------------------------------------
 *   0            int64    row id: a public label, used only in logs and dead-letter
 *                         messages (never deduplicated, never a privacy unit)
 *   8 + 12·k     int32    j_k   column index of non-zero k, 0-based, in [0, d)
 *  12 + 12·k     float64  x_k   its value, IEEE 754 binary64, finite
 * </pre>
 *
 * The length is 8 + 12·nnz bytes, nnz ≥ 0 (a row with no non-zeros is valid and contributes
 * nothing). Column indices must be distinct within a row; order is free. Validation of indices,
 * values and duplicates is {@link RowDecoder}'s; this class reads and writes bytes only and
 * allocates nothing when reading.
 */
public final class RowRecords {
  /** Bytes before the first pair: the row id. */
  public static final int HEADER_BYTES = 8;
  /** Bytes per (int32 j, float64 x) pair. */
  public static final int ENTRY_BYTES = 12;

  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private RowRecords() {}

  /**
   * The number of non-zeros in a value of {@code length} bytes.
   *
   * @throws MalformedRecordException (reason {@link DeadLetterReason#BAD_LENGTH}) unless
   *     {@code length} is 8 + 12·nnz for some nnz ≥ 0
   */
  public static int count(int length) throws MalformedRecordException {
    if (length < HEADER_BYTES || (length - HEADER_BYTES) % ENTRY_BYTES != 0) {
      throw new MalformedRecordException(DeadLetterReason.BAD_LENGTH,
          "length " + length + " is not 8 + 12·nnz (int64 row id, then (int32 j, float64 x) pairs)");
    }
    return (length - HEADER_BYTES) / ENTRY_BYTES;
  }

  /** The number of non-zeros in {@code value} (null counts as length 0, which is malformed). */
  public static int count(byte[] value) throws MalformedRecordException {
    return count(value == null ? 0 : value.length);
  }

  /** The row id of a value of at least 8 bytes. */
  public static long rowId(byte[] value) {
    return (long) LONG.get(value, 0);
  }

  /** Column index of non-zero {@code k} of a well-formed value. */
  public static int index(byte[] value, int k) {
    return (int) INT.get(value, HEADER_BYTES + k * ENTRY_BYTES);
  }

  /** Value of non-zero {@code k} of a well-formed value. */
  public static double value(byte[] value, int k) {
    return Double.longBitsToDouble((long) LONG.get(value, HEADER_BYTES + k * ENTRY_BYTES + 4));
  }

  /**
   * Encodes non-zeros {@code [from, to)} of the two arrays as one row record (the range may be
   * empty). Writes what it is given: zeros, duplicates and non-finite values included.
   */
  public static byte[] encode(long rowId, int[] index, double[] x, int from, int to) {
    if (from < 0 || to < from || to > index.length || to > x.length) {
      throw new IndexOutOfBoundsException("range [" + from + ", " + to + ") of arrays of length "
          + index.length + ", " + x.length);
    }
    byte[] out = new byte[HEADER_BYTES + (to - from) * ENTRY_BYTES];
    LONG.set(out, 0, rowId);
    for (int k = from, p = HEADER_BYTES; k < to; k++, p += ENTRY_BYTES) {
      INT.set(out, p, index[k]);
      LONG.set(out, p + 4, Double.doubleToRawLongBits(x[k]));
    }
    return out;
  }

  /** Encodes a dense row: its non-zero entries, in column order. */
  public static byte[] encodeDense(long rowId, double[] row) {
    int nnz = 0;
    for (double v : row) {
      if (v != 0) {
        nnz++;
      }
    }
    int[] index = new int[nnz];
    double[] x = new double[nnz];
    for (int j = 0, k = 0; j < row.length; j++) {
      if (row[j] != 0) {
        index[k] = j;
        x[k++] = row[j];
      }
    }
    return encode(rowId, index, x, 0, nnz);
  }
}
