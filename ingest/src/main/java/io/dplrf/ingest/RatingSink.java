package io.dplrf.ingest;

/** Receives validated ratings: user {@code user}'s latest rating of {@code item}. */
@FunctionalInterface
public interface RatingSink {
  /**
   * @return true if stored (new or replacing), false if dropped because the user already holds
   *     the maximum number of distinct items
   */
  boolean rate(int user, int item, double rating);
}
