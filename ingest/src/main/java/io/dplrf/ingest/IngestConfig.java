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
 * @param epochUpdates close an epoch after this many update positions read, or 0: every consumed
 *     record counts its length / 16 ({@link UpdateRecords#positions}), whether its updates are
 *     applied, clipped, dropped or dead-lettered; the epoch closes at the end of the record that
 *     reaches the count. Not applied updates: that count depends on the protected data
 *     ({@code IngestLoop.epochDue})
 * @param epochLength close an epoch this long after it opened, or {@link Duration#ZERO}; exactly
 *     one of {@code epochUpdates} and {@code epochLength} is positive. Any positive length, also
 *     fractions of a second; the loop's clock counts milliseconds, so a length that is not a whole
 *     number of milliseconds is rounded up to the next one.
 * @param pollTimeout the consumer's poll timeout (also the granularity of time-based epochs when
 *     idle)
 * @param idleClose with {@code epochUpdates}: close the open epoch once it holds at least one
 *     update position and no record has been read for this long, or {@link Duration#ZERO} (the
 *     default): an epoch closes only at its count (or on {@link IngestLoop#requestClose}). Must be
 *     zero with {@code epochLength}, whose clock closes every epoch anyway. Public, as the count:
 *     it depends only on when records are read (docs/privacy/epoch-boundaries.md)
 */
public record IngestConfig(String topic, String deadLetterTopic, ContributionBounds.Config bounds,
    long epochUpdates, Duration epochLength, Duration pollTimeout, Duration idleClose) {

  public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(200);

  public IngestConfig {
    Preconditions.check(topic != null && !topic.isEmpty(), "topic", "a non-empty name", topic);
    Preconditions.check(deadLetterTopic != null && !deadLetterTopic.isEmpty()
        && !deadLetterTopic.equals(topic), "deadLetterTopic", "a non-empty name other than the topic",
        deadLetterTopic);
    Objects.requireNonNull(bounds, "bounds");
    Preconditions.check(epochUpdates >= 0, "epochUpdates", ">= 0", epochUpdates);
    Preconditions.check(epochLength != null && !epochLength.isNegative(), "epochLength", ">= 0",
        epochLength);
    Preconditions.check((epochUpdates > 0) != !epochLength.isZero(), "epochUpdates/epochLength",
        "positive for exactly one of the two", epochUpdates + "/" + epochLength);
    Preconditions.check(pollTimeout != null && !pollTimeout.isNegative() && !pollTimeout.isZero(),
        "pollTimeout", "> 0", pollTimeout);
    Preconditions.check(idleClose != null && !idleClose.isNegative()
        && (idleClose.isZero() || epochUpdates > 0), "idleClose",
        ">= 0, and 0 unless epochs are cut by count", idleClose);
  }

  /** Without an idle close. */
  public IngestConfig(String topic, String deadLetterTopic, ContributionBounds.Config bounds,
      long epochUpdates, Duration epochLength, Duration pollTimeout) {
    this(topic, deadLetterTopic, bounds, epochUpdates, epochLength, pollTimeout, Duration.ZERO);
  }

  /** Epochs of {@code epochUpdates} update positions; dead-letter topic {@code <topic>.dead-letter}. */
  public static IngestConfig byUpdates(String topic, ContributionBounds.Config bounds,
      long epochUpdates) {
    return new IngestConfig(topic, topic + ".dead-letter", bounds, epochUpdates, Duration.ZERO,
        DEFAULT_POLL_TIMEOUT);
  }

  /** Epochs of {@code epochLength} (&gt; 0); dead-letter topic {@code <topic>.dead-letter}. */
  public static IngestConfig byTime(String topic, ContributionBounds.Config bounds,
      Duration epochLength) {
    return new IngestConfig(topic, topic + ".dead-letter", bounds, 0, epochLength,
        DEFAULT_POLL_TIMEOUT);
  }

  /** Epochs of {@code epochSeconds} whole seconds; see {@link #byTime}. */
  public static IngestConfig bySeconds(String topic, ContributionBounds.Config bounds,
      long epochSeconds) {
    return byTime(topic, bounds, Duration.ofSeconds(epochSeconds));
  }

  /** The epoch length in whole milliseconds of the loop's clock (rounded up), or 0. */
  long epochMillis() {
    return millisRoundedUp(epochLength);
  }

  /** {@link #idleClose} in whole milliseconds of the loop's clock (rounded up), or 0. */
  long idleCloseMillis() {
    return millisRoundedUp(idleClose);
  }

  private static long millisRoundedUp(Duration d) {
    long nanos = d.toNanos();
    return nanos / 1_000_000 + (nanos % 1_000_000 == 0 ? 0 : 1);
  }

  public IngestConfig withDeadLetterTopic(String name) {
    return new IngestConfig(topic, name, bounds, epochUpdates, epochLength, pollTimeout,
        idleClose);
  }

  public IngestConfig withPollTimeout(Duration timeout) {
    return new IngestConfig(topic, deadLetterTopic, bounds, epochUpdates, epochLength, timeout,
        idleClose);
  }

  /** With epochs cut by count only: see {@link #idleClose}. */
  public IngestConfig withIdleClose(Duration idle) {
    return new IngestConfig(topic, deadLetterTopic, bounds, epochUpdates, epochLength,
        pollTimeout, idle);
  }
}
