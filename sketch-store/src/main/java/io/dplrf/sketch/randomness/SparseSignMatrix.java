package io.dplrf.sketch.randomness;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.params.Preconditions;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;

/**
 * A keyed sparse sign sketching matrix (an OSNAP-style embedding with block structure, Nelson and
 * Nguyễn 2013; Kane and Nelson 2014): every column has exactly {@code s} non-zero entries, one in
 * each of s contiguous blocks of rows, each ±1/√s. Every column therefore has Euclidean norm
 * exactly 1 — for s a power of 4, 1/√s is a power of two and even the floating-point norm is
 * exactly 1 — which is what makes the sensitivity of {@code AΦ} and {@code SA} to one entry of A
 * exactly |Δ| (docs/privacy/sparse-embeddings.md).
 *
 * <p>Block b holds rows [⌊b·rows/s⌋, ⌊(b+1)·rows/s⌋). Column j's row in block b and its sign come
 * from the 32-bit big-endian word w_{j,b} at byte 4·(j·s + b) of {@code KeyStream.of(key, label)}:
 * sign = the top bit, row = block start + (w mod 2^31) mod (block size). The modulo's bias is at
 * most size/2^31 (below 5·10⁻⁵ for blocks of 10⁵ rows); it affects only how evenly rows are used,
 * never a column's norm, so it touches utility, not privacy.
 *
 * <p>The non-zeros are generated once and held, each as a row and its sign in one number, {@code
 * row << 1 | negative}: one array rather than two, and a sign applied by flipping the sign bit
 * rather than by a branch, because {@link #addColumn} is the inner loop of a sparse sketch's
 * ingest (a random read per column, and a sign the branch predictor cannot guess). When every
 * block has at most 128 rows (the default sketch sizes: blocks of 25 rows for t = 100, 100 for v =
 * 400), the row is stored relative to its block's start and the code fits a byte: {@code cols·s}
 * bytes, 400 KB for a 100,000-column matrix with s = 4, instead of 1.6 MB of ints. A banded flush
 * reads this table at random beside a cache-sized band of the accumulator, and the smaller table
 * leaves the band in cache. With s = 4 (the sparse mechanism's, {@code Mechanism.SPARSITY}) a
 * column's four codes are read as one int and the block starts are fields, so that {@link
 * #addColumn} is four read-modify-writes with no loop, no per-byte bounds check and no lookup of
 * the starts. Both measured with {@code dplrf bench update} against the alternative
 * (docs/benchmarks-ingest.md, "Choices on the update path"). Immutable and thread-safe.
 */
public final class SparseSignMatrix implements SketchMatrix {
  private final int rows;
  private final int cols;
  private final int s;
  private final double value;
  /** s + 1: block b holds rows [blockStarts[b], blockStarts[b + 1]). */
  private final int[] blockStarts;
  /**
   * cols·s, when every block has ≤ 128 rows: (row of column j's b-th non-zero − blockStarts[b])
   * << 1 | (1 if it is negative); null otherwise.
   */
  private final byte[] byteCode;
  /** cols·s, when {@link #byteCode} is null: (row of column j's b-th non-zero) << 1 | negative. */
  private final int[] intCode;
  /** s = 4 and byte-coded: a column's codes are read as one little-endian int ({@link #codeWord}). */
  private final boolean fourBytes;
  /** blockStarts[1..3] when {@link #fourBytes} (block 0 starts at row 0). */
  private final int start1;
  private final int start2;
  private final int start3;

  private static final VarHandle CODES_LE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private SparseSignMatrix(KeyStream stream, int rows, int cols, int s, boolean bytesIfTheyFit) {
    this.rows = rows;
    this.cols = cols;
    this.s = s;
    this.value = 1 / Math.sqrt(s);
    blockStarts = new int[s + 1];
    int largest = 0;
    for (int b = 0; b <= s; b++) {
      blockStarts[b] = (int) ((long) b * rows / s);
      largest = b == 0 ? 0 : Math.max(largest, blockStarts[b] - blockStarts[b - 1]);
    }
    int entries = Math.multiplyExact(cols, s);
    byteCode = bytesIfTheyFit && largest <= 128 ? new byte[entries] : null;
    intCode = byteCode == null ? new int[entries] : null;
    fourBytes = byteCode != null && s == 4;
    start1 = fourBytes ? blockStarts[1] : 0;
    start2 = fourBytes ? blockStarts[2] : 0;
    start3 = fourBytes ? blockStarts[3] : 0;
    byte[] words = new byte[64 * 1024];
    int perChunk = words.length / 4;
    for (int start = 0; start < entries; start += perChunk) {
      int count = Math.min(perChunk, entries - start);
      stream.fill(4L * start, words, 0, 4 * count);
      for (int e = 0; e < count; e++) {
        int w = ((words[4 * e] & 0xff) << 24) | ((words[4 * e + 1] & 0xff) << 16)
            | ((words[4 * e + 2] & 0xff) << 8) | (words[4 * e + 3] & 0xff);
        int b = (start + e) % s;
        int offset = (w & 0x7fffffff) % (blockStarts[b + 1] - blockStarts[b]);
        if (byteCode != null) {
          byteCode[start + e] = (byte) (offset << 1 | (w >>> 31));
        } else {
          intCode[start + e] = (blockStarts[b] + offset) << 1 | (w >>> 31);
        }
      }
    }
  }

  /**
   * A rows×cols sparse sign matrix keyed by (key, label).
   *
   * @param rows at most 2^30 (a row and its sign share an int)
   * @param s non-zeros per column, 1 ≤ s ≤ rows
   */
  public static SparseSignMatrix of(SecretKey key, String label, int rows, int cols, int s) {
    Objects.requireNonNull(key, "key");
    Preconditions.checkPositive("rows", rows);
    Preconditions.check(rows <= 1 << 30, "rows", "<= 2^30", rows);
    Preconditions.checkPositive("cols", cols);
    Preconditions.checkPositive("s", s);
    Preconditions.check(s <= rows, "s", "<= rows = " + rows, s);
    return new SparseSignMatrix(KeyStream.of(key, label), rows, cols, s, true);
  }

  /** As {@link #of}, held as ints whatever the block size (for tests of the byte encoding). */
  static SparseSignMatrix ofIntCode(SecretKey key, String label, int rows, int cols, int s) {
    return new SparseSignMatrix(KeyStream.of(key, label), rows, cols, s, false);
  }

  /** Column j's b-th non-zero as {@code row << 1 | negative}. */
  private int code(int j, int b) {
    int e = j * s + b;
    return byteCode != null ? (blockStarts[b] << 1) + (byteCode[e] & 0xff) : intCode[e];
  }

  @Override
  public int rows() {
    return rows;
  }

  @Override
  public int cols() {
    return cols;
  }

  /** Non-zeros per column. */
  public int nonZerosPerColumn() {
    return s;
  }

  /** The row of column j's b-th non-zero (0 ≤ b < s); rows increase with b. */
  public int row(int j, int b) {
    return code(j, b) >>> 1;
  }

  /** The b-th non-zero of column j: ±1/√s. */
  public double entry(int j, int b) {
    return (code(j, b) & 1) != 0 ? -value : value;
  }

  /**
   * Adds {@code delta} times column j into {@code acc[off + row]} for its s non-zero rows: the
   * O(s) update of a sketch row (or column) kept contiguously.
   */
  public void addColumn(int j, double delta, double[] acc, int off) {
    if (fourBytes) {
      addCodeWord(codeWord(j), delta, acc, off);
      return;
    }
    int base = j * s;
    // ±Δ/√s: the sign bit flipped when negative, which is exactly what negation does.
    long plus = Double.doubleToRawLongBits(delta * value);
    if (byteCode != null) {
      for (int b = 0; b < s; b++) {
        int c = byteCode[base + b] & 0xff;
        acc[off + blockStarts[b] + (c >>> 1)] += Double.longBitsToDouble(plus ^ ((long) c << 63));
      }
    } else {
      for (int b = 0; b < s; b++) {
        int c = intCode[base + b];
        acc[off + (c >>> 1)] += Double.longBitsToDouble(plus ^ ((long) c << 63));
      }
    }
  }

  /** True when columns can be read as {@link #codeWord}s: s = 4 and byte-coded. */
  public boolean hasCodeWords() {
    return fourBytes;
  }

  /**
   * Column j's four codes as one int, byte b its code in block b (only when {@link
   * #hasCodeWords}). Lets a caller read a column's codes ahead of {@link #addCodeWord}.
   */
  public int codeWord(int j) {
    return (int) CODES_LE.get(byteCode, j << 2);
  }

  /**
   * {@link #addColumn} for the column whose {@link #codeWord} is {@code w}: the same four sums,
   * bit for bit. {@code (long) c << 63} keeps only a code's sign bit (bit 0).
   */
  public void addCodeWord(int w, double delta, double[] acc, int off) {
    long plus = Double.doubleToRawLongBits(delta * value);
    int c0 = w & 0xff;
    int c1 = (w >>> 8) & 0xff;
    int c2 = (w >>> 16) & 0xff;
    int c3 = w >>> 24;
    acc[off + (c0 >>> 1)] += Double.longBitsToDouble(plus ^ ((long) c0 << 63));
    acc[off + start1 + (c1 >>> 1)] += Double.longBitsToDouble(plus ^ ((long) c1 << 63));
    acc[off + start2 + (c2 >>> 1)] += Double.longBitsToDouble(plus ^ ((long) c2 << 63));
    acc[off + start3 + (c3 >>> 1)] += Double.longBitsToDouble(plus ^ ((long) c3 << 63));
  }

  @Override
  public void columns(int from, int to, double[] dst) {
    Objects.checkFromToIndex(from, to, cols);
    Arrays.fill(dst, 0, (to - from) * rows, 0);
    for (int j = from; j < to; j++) {
      int off = (j - from) * rows;
      for (int b = 0; b < s; b++) {
        dst[off + row(j, b)] = entry(j, b);
      }
    }
  }

  /** Bytes held: rows and signs. */
  public long sizeInBytes() {
    return byteCode != null ? byteCode.length : 4L * intCode.length;
  }
}
