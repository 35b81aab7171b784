package io.dplrf.ingest;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the service log says about dead letters: enough for a person reading it to see that
 * records are rejected and why, never so much that a stream of bad records floods it.
 *
 * <ul>
 *   <li>The <b>first</b> dead letter of each {@link DeadLetterReason} in a run is one WARN line:
 *       the reason, the record's topic-partition@offset, the decoder's message (which names the
 *       first bad value and its valid range), how many update positions the record held (all
 *       rejected with it: a record is applied or dead-lettered whole), the dead-letter topic and a
 *       {@link #hint} of the usual cause.
 *   <li>Every later one is only counted; the counts since the last line are written as one
 *       summary line by {@link #tick} at most once per {@link #SUMMARY_INTERVAL_MILLIS}, and by
 *       {@link #summarize} at each epoch close and at a clean stop. At most one first-warning per
 *       reason (12) plus one summary a minute plus one per epoch close: bounded whatever the
 *       stream holds.
 * </ul>
 *
 * <p>Cost: nothing on the path of a good record. {@link #tick} is one comparison when nothing
 * is pending; strings are built only for the lines written. The exact counts, for metrics and
 * {@code /admin/ingest}, are {@link IngestStats}'s; these counts exist only for the log.
 *
 * <p>Thread-safety: none; the ingest loop's thread owns it.
 */
final class DeadLetterLog {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterLog.class);

  /** At most one summary line per minute from {@link #tick}. */
  static final long SUMMARY_INTERVAL_MILLIS = 60_000;

  private static final DeadLetterReason[] REASONS = DeadLetterReason.values();

  private final String deadLetterTopic;
  private final LongSupplier clockMillis;
  private final Consumer<String> warn;
  private final boolean[] warned = new boolean[REASONS.length];
  /** Dead letters counted, not yet written in a line, by reason ordinal. */
  private final long[] pending = new long[REASONS.length];
  private long pendingTotal;
  /** When the last line (first warning or summary) was written. */
  private long lastLineMillis;

  /** Writes to this class's logger at WARN. */
  DeadLetterLog(String deadLetterTopic, LongSupplier clockMillis) {
    this(deadLetterTopic, clockMillis, LOG::warn);
  }

  /** Tests: lines go to {@code warn}. */
  DeadLetterLog(String deadLetterTopic, LongSupplier clockMillis, Consumer<String> warn) {
    this.deadLetterTopic = Objects.requireNonNull(deadLetterTopic, "deadLetterTopic");
    this.clockMillis = Objects.requireNonNull(clockMillis, "clockMillis");
    this.warn = Objects.requireNonNull(warn, "warn");
  }

  /**
   * One record sent to the dead-letter topic.
   *
   * @param positions the update positions the record held (its updates, all rejected with it)
   */
  void deadLettered(DeadLetterReason reason, String topic, int partition, long offset,
      String message, long positions) {
    int r = reason.ordinal();
    if (!warned[r]) {
      warned[r] = true;
      lastLineMillis = clockMillis.getAsLong();
      warn.accept("dead letter (" + code(reason) + ") " + topic + "-" + partition + "@" + offset
          + ": " + message + "; the whole record"
          + (positions > 1 && reason != DeadLetterReason.BAD_LENGTH ? " (" + positions
              + " updates)" : "") + " went to " + deadLetterTopic + ". Hint: " + hint(reason)
          + ". Further dead letters are summed up here at most once a minute and at each epoch"
          + " close; exact counts at /admin/ingest");
      return;
    }
    pending[r]++;
    pendingTotal++;
    tick();
  }

  /** Writes the summary if dead letters are pending and the last line is a minute old. */
  void tick() {
    if (pendingTotal > 0 && clockMillis.getAsLong() - lastLineMillis >= SUMMARY_INTERVAL_MILLIS) {
      summarize("");
    }
  }

  /**
   * Writes the summary of the pending dead letters now, if there are any.
   *
   * @param occasion appended to the line's opening words, e.g. {@code " (epoch 3 closes)"}
   */
  void summarize(String occasion) {
    if (pendingTotal == 0) {
      return;
    }
    StringBuilder line = new StringBuilder("dead letters since the previous dead-letter line")
        .append(occasion).append(": ").append(pendingTotal).append(" more record").append(pendingTotal == 1 ? "" : "s")
        .append(" to ").append(deadLetterTopic).append(" (");
    String sep = "";
    for (DeadLetterReason reason : REASONS) {
      long n = pending[reason.ordinal()];
      if (n > 0) {
        line.append(sep).append(code(reason)).append(' ').append(n);
        sep = ", ";
      }
    }
    line.append("); exact counts at /admin/ingest");
    java.util.Arrays.fill(pending, 0);
    pendingTotal = 0;
    lastLineMillis = clockMillis.getAsLong();
    warn.accept(line.toString());
  }

  /** The reason as metrics and {@code /admin/ingest} name it. */
  private static String code(DeadLetterReason reason) {
    return reason.name().toLowerCase(Locale.ROOT);
  }

  /** The usual cause of a reason, and what to do about it, for the first warning. */
  static String hint(DeadLetterReason reason) {
    return switch (reason) {
      case BAD_LENGTH -> "the record is not in the format of the service's mode (updates: 16-byte"
          + " int32 i, int32 j, float64 delta entries; rows: int64 row id then 12-byte int32 j,"
          + " float64 x entries; local: reports of dplrf produce --local)";
      case INDEX_OUT_OF_RANGE -> "indices are 0-based and must lie in the range above, the shape"
          + " the service was started with; 1-based ids (MovieLens, Jester) need 1 subtracted;"
          + " dplrf produce --rows M --cols N (--cols N for rows) checks a file before sending";
      case NON_FINITE_DELTA -> "every delta must be a finite number";
      case MISSING_KEY -> "privacy-unit=key needs every record keyed by its privacy unit"
          + " (dplrf produce --key or --key-column)";
      case NON_FINITE_VALUE -> "every value of a row must be a finite number";
      case DUPLICATE_INDEX -> "a row record lists each column index at most once";
      case NOT_A_REPORT -> "local mode reads only reports made by dplrf produce --local or the"
          + " client library";
      case FOREIGN_PROTOCOL, WRONG_SHAPE -> "make reports with the parameters the service"
          + " publishes at /v1/local/protocol";
      case BAD_VALUE -> "a report's values are the randomizer's output; send them unchanged";
      case RATING_OUT_OF_RANGE -> "ratings must lie on the declared scale, the serve settings"
          + " [rating-min, rating-max]; rescale them to it, or start a run (a new state"
          + " directory) with the scale they use";
      case DUPLICATE_SLOT -> "one report per user slot is counted; later reports of a slot are"
          + " refused";
    };
  }
}
