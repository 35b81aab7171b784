package io.dplrf.deploy.oneshot;

/** Something that can replay a matrix as turnstile updates (a file, a generator). */
@FunctionalInterface
public interface UpdateSource {
  /** Receives one update A[i][j] += delta. */
  @FunctionalInterface
  interface Sink {
    void accept(int i, int j, double delta);
  }

  void forEach(Sink sink) throws Exception;
}
