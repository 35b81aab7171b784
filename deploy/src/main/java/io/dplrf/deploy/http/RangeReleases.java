package io.dplrf.deploy.http;

/**
 * Computes the release of an epoch range on demand (the sum of the range's dyadic tree nodes,
 * post-processed). Called on HTTP worker threads; must be thread-safe.
 */
@FunctionalInterface
public interface RangeReleases {
  /**
   * @param from first epoch, 1 ≤ from ≤ to
   * @param to last epoch, ≤ the latest closed epoch
   * @throws IllegalArgumentException for a range the service cannot answer (message shown to the
   *     client, status 400)
   * @throws IllegalStateException when ranges are temporarily unavailable (status 503, with a
   *     {@code Retry-After}), e.g. while another release is being computed
   * @throws DamagedStateException when the range needs a stored file that is damaged (status
   *     500, with the message naming the file)
   */
  ServedRelease release(int from, int to);
}
