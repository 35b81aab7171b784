package io.dplrf.ingest;

/** Receives decoded turnstile updates {@code A[i][j] += delta}, one call per update. */
@FunctionalInterface
public interface UpdateVisitor {
  void accept(int i, int j, double delta);
}
