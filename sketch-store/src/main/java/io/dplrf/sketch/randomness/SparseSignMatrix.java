package io.dplrf.sketch.randomness;

import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.params.Preconditions;
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
 * <p>The non-zeros are generated once and held ({@code cols·s} ints, each a row and its sign:
 * {@code row << 1 | negative}): for Φ of a 100,000-column matrix with s = 4, 1.6 MB. One array
 * rather than two, and a sign applied by flipping the sign bit rather than by a branch, because
 * {@link #addColumn} is the inner loop of a sparse sketch's ingest (a random read per non-zero,
 * and a sign the branch predictor cannot guess). Immutable and thread-safe.
 */
public final class SparseSignMatrix implements SketchMatrix {
  private final int rows;
  private final int cols;
  private final int s;
  private final double value;
  /** cols·s: (row of column j's b-th non-zero) << 1 | (1 if it is negative). */
  private final int[] code;

  private SparseSignMatrix(KeyStream stream, int rows, int cols, int s) {
    this.rows = rows;
    this.cols = cols;
    this.s = s;
    this.value = 1 / Math.sqrt(s);
    code = new int[Math.multiplyExact(cols, s)];
    byte[] words = new byte[64 * 1024];
    int perChunk = words.length / 4;
    for (int start = 0; start < code.length; start += perChunk) {
      int count = Math.min(perChunk, code.length - start);
      stream.fill(4L * start, words, 0, 4 * count);
      for (int e = 0; e < count; e++) {
        int w = ((words[4 * e] & 0xff) << 24) | ((words[4 * e + 1] & 0xff) << 16)
            | ((words[4 * e + 2] & 0xff) << 8) | (words[4 * e + 3] & 0xff);
        int b = (start + e) % s;
        int lo = blockStart(b);
        int size = blockStart(b + 1) - lo;
        code[start + e] = (lo + (w & 0x7fffffff) % size) << 1 | (w >>> 31);
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
    return new SparseSignMatrix(KeyStream.of(key, label), rows, cols, s);
  }

  private int blockStart(int b) {
    return (int) ((long) b * rows / s);
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
    return code[j * s + b] >>> 1;
  }

  /** The b-th non-zero of column j: ±1/√s. */
  public double entry(int j, int b) {
    return (code[j * s + b] & 1) != 0 ? -value : value;
  }

  /**
   * Adds {@code delta} times column j into {@code acc[off + row]} for its s non-zero rows: the
   * O(s) update of a sketch row (or column) kept contiguously.
   */
  public void addColumn(int j, double delta, double[] acc, int off) {
    int base = j * s;
    long plus = Double.doubleToRawLongBits(delta * value);
    for (int b = 0; b < s; b++) {
      int c = code[base + b];
      // ±Δ/√s: the sign bit flipped when negative, which is exactly what negation does.
      acc[off + (c >>> 1)] += Double.longBitsToDouble(plus ^ ((long) c << 63));
    }
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
    return 4L * code.length;
  }
}
