package io.dplrf.sketch.randomness;

import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.params.Preconditions;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** The {@link StableMatrices#stable} implementation: one AES block per entry. Immutable, thread-safe. */
final class KeyedStableMatrix implements SketchMatrix {
  private static final int CHUNK_BLOCKS = 512;
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private final KeyStream stream;
  private final int rows;
  private final int cols;
  private final double p;
  private final double clip;
  private final double scale;

  KeyedStableMatrix(KeyStream stream, int rows, int cols, double p, double clip, double scale) {
    this.stream = stream;
    this.rows = rows;
    this.cols = cols;
    this.p = p;
    this.clip = clip;
    this.scale = scale;
  }

  @Override
  public int rows() {
    return rows;
  }

  @Override
  public int cols() {
    return cols;
  }

  @Override
  public void columns(int from, int to, double[] dst) {
    Preconditions.check(0 <= from && from <= to && to <= cols, "column range",
        "within [0, " + cols + "]", "[" + from + ", " + to + ")");
    long count = (long) (to - from) * rows;
    Preconditions.check(dst.length >= count, "dst.length", ">= " + count, dst.length);
    long first = (long) from * rows;
    byte[] buf = new byte[16 * CHUNK_BLOCKS];
    for (long done = 0; done < count; ) {
      int blocks = (int) Math.min(CHUNK_BLOCKS, count - done);
      stream.blocks(first + done, buf, 0, blocks);
      for (int b = 0; b < blocks; b++) {
        double x = StableMatrices.standardStable(
            p, (long) LONGS.get(buf, 16 * b), (long) LONGS.get(buf, 16 * b + 8));
        dst[(int) (done + b)] = scale * Math.max(-clip, Math.min(clip, x));
      }
      done += blocks;
    }
  }

  @Override
  public String toString() {
    return "StableMatrix[" + stream + ", " + rows + "x" + cols + ", p=" + p + ", clip=" + clip
        + ", scale=" + scale + "]";
  }
}
