package io.dplrf.ingest;

import io.dplrf.client.LocalProtocol;
import io.dplrf.client.LocalReport;
import io.dplrf.client.LocalReportCodec;
import io.dplrf.client.ReportPart;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.function.Predicate;

/**
 * Local mode ({@link ContributionBounds.Unit#LOCAL_REPORT}): one record value is one local-DP
 * report in its protocol's {@link LocalReportCodec} wire format ("DPLP" for local-DP PCA, "DPLR"
 * version 2, with the user's slot, for LOCAL-ROBUST-PCA), made by a user's {@code
 * LocalRandomizer} under the service's published {@link LocalProtocol}. The decoder checks it
 * whole and hands it to its sink (the aggregate), which sums it — unless the protocol has slots
 * and the slot is counted already; the server never clips, scales or noises a report (each one
 * is private for its user's row by itself: docs/privacy/local-pca.md §2, §4).
 *
 * <p><b>Validation</b> (the codec's checks, mapped to dead-letter reasons; nothing applied on
 * failure): a null value or a length other than the format's ({@link
 * DeadLetterReason#BAD_LENGTH}), wrong magic or version, DPLR version 1 included ({@link
 * DeadLetterReason#NOT_A_REPORT}), another protocol id ({@link
 * DeadLetterReason#FOREIGN_PROTOCOL}), another shape ({@link DeadLetterReason#WRONG_SHAPE}), a
 * slot outside [0, m) ({@link DeadLetterReason#INDEX_OUT_OF_RANGE}), a value NaN, infinite, off
 * its part's noise grid γℤ or beyond 2⁶²·γ ({@link DeadLetterReason#BAD_VALUE}; the bound keeps
 * the aggregate's 128-bit grid sums exact, and an honest entry is far below it: {@link
 * ReportPart#exactBound()}). A dishonest client can still send large values below it: local DP
 * protects each user's privacy, not the accuracy of the sum. Then the sink's own check: a slot
 * already counted ({@link DeadLetterReason#DUPLICATE_SLOT}); which slots are counted depends on
 * the slots alone (public), never on a report's values.
 *
 * <p><b>Positions</b> for epochs cut by count: one per record, whatever its content. Keys are
 * ignored (a client should send none: a key would link reports to users; with slots, the slot
 * already names the user to the server, as in Algorithm 3).
 *
 * <p>Work per report O(values); allocates the decoded report. Not thread-safe.
 */
final class LocalReportDecoder implements RecordDecoder {
  private final LocalProtocol protocol;
  private final Predicate<LocalReport> sink;

  /** {@code sink} returns false for a report whose slot is counted already. */
  LocalReportDecoder(LocalProtocol protocol, Predicate<LocalReport> sink) {
    this.protocol = Objects.requireNonNull(protocol, "protocol");
    this.sink = Objects.requireNonNull(sink, "sink");
  }

  @Override
  public long positions(byte[] value) {
    return 1;
  }

  @Override
  public void apply(byte[] key, byte[] value, IngestStats stats)
      throws MalformedRecordException {
    LocalReport report = decode(value);
    if (!sink.test(report)) {
      throw new MalformedRecordException(DeadLetterReason.DUPLICATE_SLOT, "user slot "
          + report.slot().getAsInt() + " already has a report in the sum: one report per slot is"
          + " counted");
    }
    stats.appliedReport(reportHash(report));
  }

  /**
   * The checked report.
   *
   * @throws MalformedRecordException naming the reason and the first thing that is wrong
   */
  LocalReport decode(byte[] value) throws MalformedRecordException {
    if (value == null) {
      throw new MalformedRecordException(DeadLetterReason.BAD_LENGTH, "null value: no report");
    }
    try {
      return LocalReportCodec.decode(value, protocol);
    } catch (LocalReportCodec.MalformedReportException e) {
      throw new MalformedRecordException(reason(e.problem()), e.getMessage());
    }
  }

  static DeadLetterReason reason(LocalReportCodec.Problem p) {
    return switch (p) {
      case LENGTH -> DeadLetterReason.BAD_LENGTH;
      case NOT_A_REPORT -> DeadLetterReason.NOT_A_REPORT;
      case FOREIGN_PROTOCOL -> DeadLetterReason.FOREIGN_PROTOCOL;
      case SHAPE -> DeadLetterReason.WRONG_SHAPE;
      case VALUE -> DeadLetterReason.BAD_VALUE;
      case SLOT -> DeadLetterReason.INDEX_OUT_OF_RANGE;
    };
  }

  /**
   * The checksum term of one applied report (part of the snapshot's checksum, so it never
   * changes): {@code mix(Σ_e updateHash(a_e, b_e, value_e))} (sum mod 2⁶⁴) over every value of
   * every part, in order, keyed like the updates of the other modes — by the slot and the index
   * e across the parts when the report has a slot (LOCAL-ROBUST-PCA: Yr then Z), else by the
   * entry's row and column in its part (local-DP PCA: y_ic of the d×t sketch).
   */
  static long reportHash(LocalReport r) {
    OptionalInt slot = r.slot();
    List<ReportPart> parts = r.parts();
    long h = 0;
    int index = 0;
    for (int p = 0; p < parts.size(); p++) {
      int cols = parts.get(p).cols();
      double[] v = r.values(p);
      for (int e = 0; e < v.length; e++, index++) {
        h += slot.isPresent()
            ? IngestStats.updateHash(slot.getAsInt(), index, v[e])
            : IngestStats.updateHash(e / cols, e % cols, v[e]);
      }
    }
    return IngestStats.mix(h);
  }
}
