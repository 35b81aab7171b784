package io.dplrf.sketch.randomness;

import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.params.Preconditions;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import javax.crypto.Cipher;

/** The {@link GaussianMatrices#gaussian} implementation. Immutable and thread-safe. */
final class KeyedGaussianMatrix implements SketchMatrix {
  private static final int CHUNK = 8192;
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private final KeyStream stream;
  private final int rows;
  private final int cols;
  private final double stdDev;

  KeyedGaussianMatrix(KeyStream stream, int rows, int cols, double stdDev) {
    this.stream = stream;
    this.rows = rows;
    this.cols = cols;
    this.stdDev = stdDev;
  }

  @Override
  public int rows() {
    return rows;
  }

  @Override
  public int cols() {
    return cols;
  }

  /** One cipher initialisation for the whole range: columns are contiguous in the stream. */
  @Override
  public void columns(int from, int to, double[] dst) {
    Preconditions.check(0 <= from && from <= to && to <= cols, "column range",
        "within [0, " + cols + "]", "[" + from + ", " + to + ")");
    long count = (long) (to - from) * rows;
    Preconditions.check(dst.length >= count, "dst.length", ">= " + count, dst.length);
    if (count == 0) {
      return;
    }
    // Entry e uses stream bytes [8e, 8e + 8): two entries per 16-byte block.
    long firstEntry = (long) from * rows;
    long block = firstEntry / 2;
    int skip = (int) (firstEntry % 2); // an odd first entry starts in the second half of a block
    byte[] buf = new byte[(int) Math.min(CHUNK, 16 * (count / 2 + 1))];
    int n = (int) count;
    int out = 0;
    while (out < n) {
      int words = Math.min(n - out + skip, buf.length / 8);
      int blocks = (words + 1) / 2;
      stream.blocks(block, buf, 0, blocks);
      for (int w = skip; w < words; w++) {
        dst[out + w - skip] = stdDev * GaussianMatrices.standardNormal((long) LONGS.get(buf, 8 * w));
      }
      out += words - skip;
      block += blocks;
      skip = 0;
    }
  }

  @Override
  public String toString() {
    return "GaussianMatrix[" + stream + ", " + rows + "x" + cols + ", stdDev=" + stdDev + "]";
  }
}
