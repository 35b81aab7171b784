package io.dplrf.deploy.http;

/** Supplies the current {@link Status}; called on HTTP worker threads, must be thread-safe and cheap. */
@FunctionalInterface
public interface StatusSource {
  Status status();
}
