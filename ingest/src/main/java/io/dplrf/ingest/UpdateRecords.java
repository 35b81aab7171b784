package io.dplrf.ingest;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The one owner of the Kafka record value format (docs/user-guide.md, "Records"): one or more
 * packed updates, each 16 bytes, big-endian.
 *
 * <pre>
 *  offset  type     field
 *  ------  -------  -----------------------------
 *   0      int32    i   row index, 0-based
 *   4      int32    j   column index, 0-based
 *   8      float64  Δ   IEEE 754 binary64
 *  16      ...      next update
 * </pre>
 *
 * A value whose length is 0 (or a null value) or not a multiple of 16 is malformed. Decoding
 * reads straight from the record's bytes and allocates nothing per update.
 */
public final class UpdateRecords {
  /** Bytes per packed update. */
  public static final int UPDATE_BYTES = 16;

  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private UpdateRecords() {}

  /**
   * The number of updates in a value of {@code length} bytes.
   *
   * @throws MalformedRecordException (reason {@link DeadLetterReason#BAD_LENGTH}) unless
   *     {@code length} is a positive multiple of 16
   */
  public static int count(int length) throws MalformedRecordException {
    if (length <= 0 || length % UPDATE_BYTES != 0) {
      throw new MalformedRecordException(DeadLetterReason.BAD_LENGTH,
          "length " + length + " is not a positive multiple of " + UPDATE_BYTES);
    }
    return length / UPDATE_BYTES;
  }

  /**
   * The update positions a value occupies in the stream: its length / 16, rounded down, whether
   * or not it is well-formed (null counts as length 0). Depends on the length only, never on the
   * content, so epochs cut by this count fall at the same records for streams that differ only
   * in the values of some updates (docs/privacy/continual-release.md §7).
   */
  public static int positions(byte[] value) {
    return value == null ? 0 : value.length / UPDATE_BYTES;
  }

  /** The number of updates in {@code value} (null counts as length 0). */
  public static int count(byte[] value) throws MalformedRecordException {
    return count(value == null ? 0 : value.length);
  }

  /** Row index of update {@code k} of a well-formed value. */
  public static int row(byte[] value, int k) {
    return (int) INT.get(value, k * UPDATE_BYTES);
  }

  /** Column index of update {@code k} of a well-formed value. */
  public static int col(byte[] value, int k) {
    return (int) INT.get(value, k * UPDATE_BYTES + 4);
  }

  /** Δ of update {@code k} of a well-formed value. */
  public static double delta(byte[] value, int k) {
    return Double.longBitsToDouble((long) LONG.get(value, k * UPDATE_BYTES + 8));
  }

  /**
   * Calls {@code v} once per update of {@code value}, in order. Validates the length only (before
   * the first call); indices and Δ are passed as they are.
   */
  public static void forEach(byte[] value, UpdateVisitor v) throws MalformedRecordException {
    int n = count(value);
    for (int k = 0; k < n; k++) {
      v.accept(row(value, k), col(value, k), delta(value, k));
    }
  }

  /**
   * Like {@link #forEach(byte[], UpdateVisitor)} for the remaining bytes of {@code value}, read
   * big-endian whatever the buffer's byte order; the buffer's position is not changed.
   */
  public static void forEach(ByteBuffer value, UpdateVisitor v) throws MalformedRecordException {
    int n = count(value == null ? 0 : value.remaining());
    boolean swap = value.order() != ByteOrder.BIG_ENDIAN;
    int p = value.position();
    for (int k = 0; k < n; k++, p += UPDATE_BYTES) {
      int i = value.getInt(p);
      int j = value.getInt(p + 4);
      long d = value.getLong(p + 8);
      if (swap) {
        i = Integer.reverseBytes(i);
        j = Integer.reverseBytes(j);
        d = Long.reverseBytes(d);
      }
      v.accept(i, j, Double.longBitsToDouble(d));
    }
  }

  /**
   * Packs updates {@code from} (inclusive) to {@code to} (exclusive) of the three arrays into one
   * record value. The range must not be empty (an empty value is malformed).
   */
  public static byte[] encode(int[] i, int[] j, double[] d, int from, int to) {
    if (from < 0 || to <= from || to > i.length || to > j.length || to > d.length) {
      throw new IndexOutOfBoundsException("range [" + from + ", " + to + ") of arrays of length "
          + i.length + ", " + j.length + ", " + d.length);
    }
    byte[] out = new byte[(to - from) * UPDATE_BYTES];
    for (int k = from, p = 0; k < to; k++, p += UPDATE_BYTES) {
      INT.set(out, p, i[k]);
      INT.set(out, p + 4, j[k]);
      LONG.set(out, p + 8, Double.doubleToRawLongBits(d[k]));
    }
    return out;
  }
}
