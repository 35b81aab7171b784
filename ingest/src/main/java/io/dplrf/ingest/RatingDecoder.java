package io.dplrf.ingest;

import java.util.Objects;

/**
 * Completion mode ({@link ContributionBounds.Unit#USER_RATING}): the turnstile record format
 * ({@link UpdateRecords}) read as ratings, i = user, j = item, Δ = the rating value, handed to
 * a {@link RatingSink} (the ratings store: the latest rating of a (user, item) pair replaces the earlier one).
 *
 * <p><b>Validation</b> (whole record, nothing applied on failure), as for updates ({@link
 * ContributionBounds#validate}): length a positive multiple of 16 ({@link
 * DeadLetterReason#BAD_LENGTH}), 0 ≤ user &lt; rows and 0 ≤ item &lt; cols ({@link
 * DeadLetterReason#INDEX_OUT_OF_RANGE}), finite ({@link DeadLetterReason#NON_FINITE_DELTA}), so
 * those reasons come first; and on the declared scale, min ≤ rating ≤ max ({@link
 * DeadLetterReason#RATING_OUT_OF_RANGE}): a rating off the scale is a producer's bug, not
 * something to clamp silently. Keys are ignored: the privacy unit is the user.
 *
 * <p><b>Counts</b>: a stored rating counts as applied (checksum term {@link
 * IngestStats#updateHash} of (user, item, rating)); one beyond the user's ξ distinct items as
 * dropped. <b>Positions</b> for epochs cut by count: one per rating, whatever its content.
 *
 * <p>Not thread-safe.
 */
final class RatingDecoder implements RecordDecoder {
  private final ContributionBounds bounds;
  private final double min;
  private final double max;
  private final RatingSink sink;

  /** @param min the declared scale's lowest rating, @param max its highest, within ±clip */
  RatingDecoder(ContributionBounds bounds, double min, double max, RatingSink sink) {
    this.sink = Objects.requireNonNull(sink, "sink");
    this.bounds = Objects.requireNonNull(bounds, "bounds");
    if (bounds.config().unit() != ContributionBounds.Unit.USER_RATING) {
      throw new IllegalArgumentException("RatingDecoder needs unit USER_RATING, got "
          + bounds.config().unit());
    }
    double clip = bounds.config().clip();
    if (!(min <= max && -clip <= min && max <= clip)) {
      throw new IllegalArgumentException("the rating scale [" + min + ", " + max + "] must lie"
          + " within [-clip, clip] = [-" + clip + ", " + clip + "]");
    }
    this.min = min;
    this.max = max;
  }

  @Override
  public void apply(byte[] key, byte[] value, IngestStats stats)
      throws MalformedRecordException {
    int n = bounds.validate(key, value);
    for (int k = 0; k < n; k++) {
      double r = UpdateRecords.delta(value, k);
      if (!(r >= min && r <= max)) {
        throw new MalformedRecordException(DeadLetterReason.RATING_OUT_OF_RANGE, "rating " + k
            + ": value " + r + " is outside the declared scale [" + min + ", " + max + "]");
      }
    }
    for (int k = 0; k < n; k++) {
      int user = UpdateRecords.row(value, k);
      int item = UpdateRecords.col(value, k);
      double r = UpdateRecords.delta(value, k);
      if (sink.rate(user, item, r)) {
        stats.applied(user, item, r, false);
      } else {
        stats.dropped();
      }
    }
  }

  @Override
  public long positions(byte[] value) {
    return UpdateRecords.positions(value);
  }
}
