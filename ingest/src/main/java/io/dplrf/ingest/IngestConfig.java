package io.dplrf.ingest;

import io.dplrf.sketch.params.Preconditions;
import java.time.Duration;
import java.util.Objects;

/**
 * Validated settings of the ingest loop.
 *
 * @param topic the updates topic
 * @param deadLetterTopic where malformed records go ({@code <topic>.dead-letter} by default)
 * @param bounds validation ranges and contribution bounds
 * @param epochUpdates close an epoch after this many applied updates (at the end of the record
 *     that reaches it), or 0
 * @param epochSeconds close an epoch this many seconds after it opened, or 0; exactly one of
 *     {@code epochUpdates} and {@code epochSeconds} is positive
 * @param pollTimeout the consumer's poll timeout (also the granularity of time-based epochs when
 *     idle)
 */
public record IngestConfig(String topic, String deadLetterTopic, ContributionBounds.Config bounds,
    long epochUpdates, long epochSeconds, Duration pollTimeout) {

  public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(200);

  public IngestConfig {
    Preconditions.check(topic != null && !topic.isEmpty(), "topic", "a non-empty name", topic);
    Preconditions.check(deadLetterTopic != null && !deadLetterTopic.isEmpty()
        && !deadLetterTopic.equals(topic), "deadLetterTopic", "a non-empty name other than the topic",
        deadLetterTopic);
    Objects.requireNonNull(bounds, "bounds");
    Preconditions.check(epochUpdates >= 0, "epochUpdates", ">= 0", epochUpdates);
    Preconditions.check(epochSeconds >= 0, "epochSeconds", ">= 0", epochSeconds);
    Preconditions.check((epochUpdates > 0) != (epochSeconds > 0), "epochUpdates/epochSeconds",
        "positive for exactly one of the two", epochUpdates + "/" + epochSeconds);
    Preconditions.check(pollTimeout != null && !pollTimeout.isNegative() && !pollTimeout.isZero(),
        "pollTimeout", "> 0", pollTimeout);
  }

  /** Epochs of {@code epochUpdates} applied updates; dead-letter topic {@code <topic>.dead-letter}. */
  public static IngestConfig byUpdates(String topic, ContributionBounds.Config bounds,
      long epochUpdates) {
    return new IngestConfig(topic, topic + ".dead-letter", bounds, epochUpdates, 0,
        DEFAULT_POLL_TIMEOUT);
  }

  /** Epochs of {@code epochSeconds} seconds; dead-letter topic {@code <topic>.dead-letter}. */
  public static IngestConfig bySeconds(String topic, ContributionBounds.Config bounds,
      long epochSeconds) {
    return new IngestConfig(topic, topic + ".dead-letter", bounds, 0, epochSeconds,
        DEFAULT_POLL_TIMEOUT);
  }

  public IngestConfig withDeadLetterTopic(String name) {
    return new IngestConfig(topic, name, bounds, epochUpdates, epochSeconds, pollTimeout);
  }

  public IngestConfig withPollTimeout(Duration timeout) {
    return new IngestConfig(topic, deadLetterTopic, bounds, epochUpdates, epochSeconds, timeout);
  }
}
