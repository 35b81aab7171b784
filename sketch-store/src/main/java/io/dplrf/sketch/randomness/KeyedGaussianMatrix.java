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
    long startByte = 8L * from * rows;
    Cipher c = stream.cipherAtBlock(startByte / KeyStream.BLOCK);
    byte[] buf = new byte[CHUNK];
    int skip = (int) (startByte % KeyStream.BLOCK);
    if (skip > 0) {
      KeyStream.generate(c, buf, 0, skip);
    }
    int n = (int) count;
    int out = 0;
    while (out < n) {
      int words = Math.min(n - out, CHUNK / 8);
      KeyStream.generate(c, buf, 0, words * 8);
      for (int w = 0; w < words; w++) {
        dst[out + w] = stdDev * GaussianMatrices.standardNormal((long) LONGS.get(buf, 8 * w));
      }
      out += words;
    }
  }

  @Override
  public String toString() {
    return "GaussianMatrix[" + stream + ", " + rows + "x" + cols + ", stdDev=" + stdDev + "]";
  }
}
