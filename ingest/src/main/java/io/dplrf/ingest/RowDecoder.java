package io.dplrf.ingest;

import io.dplrf.sketch.pca.RowClipping;
import java.util.Objects;

/**
 * Rows mode ({@link ContributionBounds.Unit#ROW_RECORD}): validates a {@link RowRecords} value,
 * clips the row to ℓ2 norm ≤ C and hands it to its {@link RowVisitor} (the tree, which adds x xᵀ to
 * the d×d matrix AᵀA).
 *
 * <p><b>Validation</b> (whole record, nothing applied on failure): length 8 + 12·nnz
 * ({@link DeadLetterReason#BAD_LENGTH}), every index in [0, d) ({@link
 * DeadLetterReason#INDEX_OUT_OF_RANGE}), every value finite ({@link
 * DeadLetterReason#NON_FINITE_VALUE}), no index twice ({@link DeadLetterReason#DUPLICATE_INDEX}:
 * refused rather than summed, so that a row means one thing and the producer learns of its bug).
 * Keys are ignored: the privacy unit is the record.
 *
 * <p><b>Clipping</b> ({@link RowClipping}): a row whose computed norm exceeds C·(1 − 10⁻⁹) is
 * scaled to exact norm ≤ C, and counted as clipped. So x xᵀ has ‖x xᵀ‖_F = ‖x‖₂² ≤ C², the
 * Frobenius bound the ATA tree is calibrated for. A row whose norm overflows a double (entries
 * near 10³⁰⁸) is first scaled by the exact power of two 2⁻⁶⁰⁰.
 *
 * <p><b>Positions</b> for epochs cut by count: one per record, whatever its content.
 *
 * <p>Work per row O(nnz) plus the target's; allocates one array of nnz doubles (the clipped
 * copy). Not thread-safe.
 */
final class RowDecoder implements RecordDecoder {
  private final int d;
  private final double clip;
  /** stamp[j] == generation iff j has been seen in the current row: O(nnz) duplicate check. */
  private final int[] stamp;
  private int generation;
  private int[] index = new int[16];
  private final RowVisitor sink;

  RowDecoder(ContributionBounds.Config config, RowVisitor sink) {
    this.sink = Objects.requireNonNull(sink, "sink");
    Objects.requireNonNull(config, "config");
    if (config.unit() != ContributionBounds.Unit.ROW_RECORD) {
      throw new IllegalArgumentException("RowDecoder needs unit ROW_RECORD, got " + config.unit());
    }
    this.d = config.cols();
    this.clip = config.clip();
    this.stamp = new int[d];
  }

  @Override
  public long positions(byte[] value) {
    return 1;
  }

  @Override
  public void apply(byte[] key, byte[] value, IngestStats stats)
      throws MalformedRecordException {
    int n = validate(value);
    if (index.length < n) {
      index = new int[Math.max(n, 2 * index.length)];
    }
    double[] x = new double[n];
    for (int k = 0; k < n; k++) {
      index[k] = RowRecords.index(value, k);
      x[k] = RowRecords.value(value, k);
    }
    if (Double.isInfinite(RowClipping.norm(x))) {
      for (int k = 0; k < n; k++) {
        x[k] = Math.scalb(x[k], -600);
      }
    }
    boolean clipped = n > 0 && RowClipping.clipInPlace(x, clip);
    sink.accept(index, x, n);
    stats.appliedRow(index, x, n, clipped);
  }

  /**
   * Checks the whole row and returns its number of non-zeros.
   *
   * @throws MalformedRecordException at the first problem, naming the row id and the entry
   */
  int validate(byte[] value) throws MalformedRecordException {
    int n = RowRecords.count(value);
    long id = RowRecords.rowId(value);
    if (++generation == 0) {
      java.util.Arrays.fill(stamp, 0);
      generation = 1;
    }
    for (int k = 0; k < n; k++) {
      int j = RowRecords.index(value, k);
      if (j < 0 || j >= d) {
        throw new MalformedRecordException(DeadLetterReason.INDEX_OUT_OF_RANGE,
            "row " + id + ", non-zero " + k + ": column index " + j + " is outside [0, " + d + ")");
      }
      double x = RowRecords.value(value, k);
      if (!Double.isFinite(x)) {
        throw new MalformedRecordException(DeadLetterReason.NON_FINITE_VALUE,
            "row " + id + ", non-zero " + k + ": value " + x + " is not finite");
      }
      if (stamp[j] == generation) {
        throw new MalformedRecordException(DeadLetterReason.DUPLICATE_INDEX,
            "row " + id + ", non-zero " + k + ": column index " + j + " appears twice");
      }
      stamp[j] = generation;
    }
    return n;
  }
}
