package io.dplrf.ingest;

import io.dplrf.client.LocalProtocol;
import io.dplrf.client.LocalReport;
import java.util.function.Predicate;

/**
 * Decodes, validates and bounds one Kafka record value and hands what it holds to a typed sink:
 * turnstile updates to an {@link UpdateVisitor} ({@link UpdateRecords}, bounded by {@link
 * ContributionBounds}), rows to a {@link RowVisitor} ({@link RowRecords}), ratings to a {@link
 * RatingSink}, local-DP reports to their aggregate. Each service mode builds the decoder of its
 * record format around its own sink; the {@link IngestLoop} only calls {@link #apply}.
 * Whole-record policy for every format: a record is validated completely before any of it is
 * applied; a malformed one changes nothing but the dead-letter counters.
 *
 * <p>Not thread-safe: the ingest loop owns its decoder.
 */
public interface RecordDecoder {

  /**
   * Validates the record, then hands it to the sink and counts it in {@code stats}.
   *
   * @throws MalformedRecordException if any part of it is malformed; nothing was applied
   */
  void apply(byte[] key, byte[] value, IngestStats stats) throws MalformedRecordException;

  /**
   * The positions the record occupies for epochs cut by count ({@link IngestConfig#epochUpdates}):
   * a function of its length only, never of its content (docs/privacy/continual-release.md §7).
   */
  long positions(byte[] value);

  /** The turnstile format: 16-byte updates bounded by {@code bounds}, the loop's own. */
  static RecordDecoder updates(ContributionBounds bounds, UpdateVisitor sink) {
    return new RecordDecoder() {
      @Override
      public void apply(byte[] key, byte[] value, IngestStats stats)
          throws MalformedRecordException {
        bounds.accept(key, value, stats, sink);
      }

      @Override
      public long positions(byte[] value) {
        return UpdateRecords.positions(value);
      }
    };
  }

  /** Rows mode: row records, clipped to the bounds' C ({@link RowDecoder}). */
  static RecordDecoder rows(ContributionBounds.Config bounds, RowVisitor sink) {
    return new RowDecoder(bounds, sink);
  }

  /**
   * Completion mode: the turnstile format read as ratings on the declared scale [min, max]
   * ({@link RatingDecoder}).
   */
  static RecordDecoder ratings(ContributionBounds bounds, double min, double max,
      RatingSink sink) {
    return new RatingDecoder(bounds, min, max, sink);
  }

  /**
   * Local mode: reports of {@code protocol}, either local protocol; the sink returns false for a
   * report whose slot is counted already ({@link LocalReportDecoder}).
   */
  static RecordDecoder localReports(LocalProtocol protocol, Predicate<LocalReport> sink) {
    return new LocalReportDecoder(protocol, sink);
  }
}
