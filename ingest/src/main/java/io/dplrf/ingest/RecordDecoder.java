package io.dplrf.ingest;

/**
 * Decodes, validates and bounds one Kafka record value into what the {@link IngestTarget}
 * receives. One implementation per record format: turnstile updates ({@link UpdateRecords},
 * bounded by {@link ContributionBounds}), rows ({@link RowRecords}, {@link RowDecoder}) and
 * local-DP reports ({@link LocalReportDecoder}).
 * Whole-record policy for every format: a record is validated completely before any of it is
 * applied; a malformed one changes nothing but the dead-letter counters.
 *
 * <p>Not thread-safe: the ingest loop owns its decoder.
 */
interface RecordDecoder {

  /**
   * Validates the record, then applies it to {@code target} and counts it in {@code stats}.
   *
   * @throws MalformedRecordException if any part of it is malformed; nothing was applied
   */
  void apply(byte[] key, byte[] value, IngestStats stats, IngestTarget target)
      throws MalformedRecordException;

  /**
   * The positions the record occupies for epochs cut by count ({@link IngestConfig#epochUpdates}):
   * a function of its length only, never of its content (docs/privacy/continual-release.md §7).
   */
  long positions(byte[] value);

  /** The turnstile format: 16-byte updates bounded by {@code bounds}. */
  static RecordDecoder updates(ContributionBounds bounds, IngestTarget target) {
    UpdateVisitor sink = target::update;
    return new RecordDecoder() {
      @Override
      public void apply(byte[] key, byte[] value, IngestStats stats, IngestTarget t)
          throws MalformedRecordException {
        bounds.accept(key, value, stats, sink);
      }

      @Override
      public long positions(byte[] value) {
        return UpdateRecords.positions(value);
      }
    };
  }
}
