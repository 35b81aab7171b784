package io.dplrf.deploy.http;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * What {@code /v1/status} reports: where the service is in its T epochs and the privacy
 * guarantee of what it releases. All of it is public (the parameters are part of the guarantee).
 *
 * @param epoch the latest released epoch, 0..T: 0 before the first release, T once exhausted (the
 *     epoch being ingested is the next one; status follows what is released, never the tree's
 *     epoch counter, which runs ahead while a release is being computed)
 * @param epochs T, the number of epochs the budget covers
 * @param mechanism the mechanism's name, e.g. "priv2-sparse"
 * @param relation the neighbouring relation protected, by its short name: "one-entry",
 *     "entrywise-l1", "frobenius", "rank-one", "local", "one-user"
 * @param neighbouring the neighbouring relation, in words, e.g. "streams differing in one update
 *     of |Δ| ≤ C; matrices differ by ‖A − A'‖_F ≤ C"
 * @param privacyUnit "update", "key" or "row"
 * @param exhausted true once epoch T has been released and releasing has stopped
 * @param message a human sentence about the state (why releasing stopped, ...); may be empty
 * @param lastRelease when the latest release was made; null before the first
 * @param extra the mode's own fields of {@code /v1/status} (mode completion: {@code
 *     "completion"}); empty for the others
 * @param nextEpochClose with epochs cut by the clock, when the open epoch closes (public: a
 *     function of the clock and of when the first record was read); null otherwise, and before
 *     the first record
 */
public record Status(int epoch, int epochs, double epsilon, double delta, String mechanism,
    String relation, String neighbouring, double clip, String privacyUnit, boolean exhausted, String message,
    Instant lastRelease, int rows, int cols, int rank, Map<String, Object> extra,
    Instant nextEpochClose) {

  public Status {
    Objects.requireNonNull(mechanism, "mechanism");
    Objects.requireNonNull(relation, "relation");
    Objects.requireNonNull(neighbouring, "neighbouring");
    Objects.requireNonNull(privacyUnit, "privacyUnit");
    Objects.requireNonNull(message, "message");
    extra = Map.copyOf(extra);
  }

  /** A status without {@code nextEpochClose}. */
  public Status(int epoch, int epochs, double epsilon, double delta, String mechanism,
      String relation, String neighbouring, double clip, String privacyUnit, boolean exhausted,
      String message, Instant lastRelease, int rows, int cols, int rank, Map<String, Object> extra) {
    this(epoch, epochs, epsilon, delta, mechanism, relation, neighbouring, clip, privacyUnit,
        exhausted, message, lastRelease, rows, cols, rank, extra, null);
  }

  /** This status with another message (the service's word on its ingest, e.g. a broker outage). */
  public Status withMessage(String newMessage) {
    return new Status(epoch, epochs, epsilon, delta, mechanism, relation, neighbouring, clip,
        privacyUnit, exhausted, newMessage, lastRelease, rows, cols, rank, extra, nextEpochClose);
  }

  /** This status with {@code nextEpochClose} set. */
  public Status withNextEpochClose(Instant at) {
    return new Status(epoch, epochs, epsilon, delta, mechanism, relation, neighbouring, clip,
        privacyUnit, exhausted, message, lastRelease, rows, cols, rank, extra, at);
  }

  /** A status with no mode-specific fields. */
  public Status(int epoch, int epochs, double epsilon, double delta, String mechanism,
      String relation, String neighbouring, double clip, String privacyUnit, boolean exhausted,
      String message, Instant lastRelease, int rows, int cols, int rank) {
    this(epoch, epochs, epsilon, delta, mechanism, relation, neighbouring, clip, privacyUnit,
        exhausted, message, lastRelease, rows, cols, rank, Map.of());
  }
}
