package io.dplrf.client;

/**
 * The one message a user sends in local-DP PCA: the noisy d×t sketch round_γ(x xᵀΦ) + N of the
 * user's clipped row x ({@link LocalPcaProtocol}). It is (ε, δ)-DP with respect to the row by
 * itself, so it may be sent, stored and published.
 *
 * <p>The constructor is package-private: in this library a report is made only by
 * {@link LocalRandomizer#report} (which clips, sketches and adds the calibrated noise) or decoded
 * from bytes by {@link LocalReportCodec#decode} (which checks the protocol, shape and grid). The
 * server's {@link LocalPcaAggregate} accepts nothing else — no {@code double[]} rows — so server
 * code cannot be handed an unnoised row by mistake. (A remote client could of course send bytes
 * without noise; that only gives up its own privacy, never another user's.)
 *
 * <p>Immutable and thread-safe.
 */
public final class LocalReport {
  private final String protocolId;
  private final int rows;
  private final int cols;
  private final double[] values;

  LocalReport(String protocolId, int rows, int cols, double[] values) {
    if (values.length != rows * cols) {
      throw new IllegalArgumentException(
          "a " + rows + "x" + cols + " report needs " + rows * cols + " values, got " + values.length);
    }
    this.protocolId = protocolId;
    this.rows = rows;
    this.cols = cols;
    this.values = values;
  }

  /** {@link LocalPcaProtocol#id()} of the protocol the report was made under. */
  public String protocolId() {
    return protocolId;
  }

  /** d. */
  public int rows() {
    return rows;
  }

  /** t. */
  public int cols() {
    return cols;
  }

  /** Entry (i, c) of the noisy sketch. */
  public double get(int i, int c) {
    java.util.Objects.checkIndex(i, rows);
    java.util.Objects.checkIndex(c, cols);
    return values[i * cols + c];
  }

  /** The noisy sketch, row-major d×t (a copy). */
  public double[] values() {
    return values.clone();
  }

  /** The backing array, for the aggregate and the codec. */
  double[] valuesUnsafe() {
    return values;
  }

  @Override
  public String toString() {
    return "LocalReport[protocol=" + protocolId + ", " + rows + "x" + cols + "]";
  }
}
