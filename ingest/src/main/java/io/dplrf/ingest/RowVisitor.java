package io.dplrf.ingest;

/**
 * Receives one validated, clipped row by its non-zeros: {@code index[0..n)} distinct columns,
 * {@code x[0..n)} their finite values, ‖x‖₂ ≤ C. The arrays are scratch space of the caller,
 * valid only during the call.
 */
@FunctionalInterface
public interface RowVisitor {
  void accept(int[] index, double[] x, int n);
}
