package io.dplrf.ingest;

import java.time.Duration;

/**
 * What the ingest loop knows of its Kafka broker, for health, status and metrics: when the
 * consumer last had an answer from it (any response: a fetch, metadata, offsets; or records
 * handed out), and how long it has been asking since without one. Immutable; the loop publishes
 * a new one after every poll ({@link IngestLoop#brokerContact}).
 *
 * <p><b>Time spent asking, not wall time.</b> The loop stops polling while it waits for an epoch
 * close or writes a snapshot (seconds, at large sizes); no fetch is sent then, so that silence
 * says nothing about the broker. Only the time spent in {@code poll} (and in metadata calls)
 * counts. An idle broker answers every fetch within {@code fetch.max.wait.ms} (500 ms by
 * default), so {@link #UNREACHABLE_AFTER} of asking without any answer means the broker is
 * stopped, stalled or cut off, not merely quiet.
 *
 * @param lastAnswerMillis wall-clock milliseconds of the last answer; 0 before the first
 * @param silentMillis milliseconds spent asking since the last answer
 */
public record BrokerContact(long lastAnswerMillis, long silentMillis) {
  /**
   * Asking this long without an answer makes the broker unreachable: 30 fetch waits of 500 ms,
   * well inside a one-minute outage, and far from a busy broker's
   * slowest fetch.
   */
  public static final Duration UNREACHABLE_AFTER = Duration.ofSeconds(15);

  /** Before the loop has asked anything. */
  public static final BrokerContact NONE = new BrokerContact(0, 0);

  /** False once the consumer has asked for {@link #UNREACHABLE_AFTER} without an answer. */
  public boolean reachable() {
    return silentMillis < UNREACHABLE_AFTER.toMillis();
  }

  /** The contact after asking for {@code askedMillis} until {@code nowMillis}, with or without an answer. */
  BrokerContact after(long nowMillis, long askedMillis, boolean answered) {
    return answered ? new BrokerContact(nowMillis, 0)
        : new BrokerContact(lastAnswerMillis, silentMillis + Math.max(0, askedMillis));
  }
}
