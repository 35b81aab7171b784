package io.dplrf.deploy.http;

/**
 * Supplies the current {@link Status} and {@link Health}; called on HTTP worker threads, must be
 * thread-safe and cheap.
 */
@FunctionalInterface
public interface StatusSource {
  Status status();

  /** {@code /health}, and the {@code health} field of {@code /v1/status}. */
  default Health health() {
    return Health.OK;
  }
}
