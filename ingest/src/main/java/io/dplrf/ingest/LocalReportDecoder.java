package io.dplrf.ingest;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalReport;
import io.dplrf.client.LocalReportCodec;
import java.util.Objects;

/**
 * Local mode ({@link ContributionBounds.Unit#LOCAL_REPORT}): one record value is one local-DP
 * report in the {@link LocalReportCodec} wire format, made by a user's {@code LocalRandomizer}
 * under the service's published {@link LocalPcaProtocol}. The decoder checks it whole and hands
 * it to its sink (the aggregate), which sums it; the server never clips, scales or noises
 * a report (each one is already (ε, δ)-DP for its user's row: docs/privacy/local-pca.md §2).
 *
 * <p><b>Validation</b> (the codec's checks, mapped to dead-letter reasons; nothing applied on
 * failure): a null value or a length other than 24 + 8·d·t ({@link DeadLetterReason#BAD_LENGTH}),
 * wrong magic or version ({@link DeadLetterReason#NOT_A_REPORT}), another protocol id ({@link
 * DeadLetterReason#FOREIGN_PROTOCOL}), another d×t ({@link DeadLetterReason#WRONG_SHAPE}), a value
 * NaN, infinite or off the noise grid γℤ ({@link DeadLetterReason#BAD_VALUE}). One more check
 * is the server's own: every |value| ≤ 2⁶²·γ (also {@code BAD_VALUE}), so that value/γ is an
 * exact {@code long} and the target can sum up to 2⁶⁵ reports exactly in 128-bit integers. The
 * grid step is γ ≈ σ·2⁻³⁰ (sketch-store's PowerOfTwoGrid, K = 30), so an honest entry, C² plus
 * a few σ of noise, is about 2³⁰–2³⁶ grid steps: the bound is never reached by noise. A
 * dishonest client can still send large values below it: local DP protects each user's privacy,
 * not the accuracy of the sum.
 *
 * <p><b>Positions</b> for epochs cut by count: one per record, whatever its content. Keys are
 * ignored (a client should send none: a key would link reports to users).
 *
 * <p>Work per report O(d·t); allocates the decoded report. Not thread-safe.
 */
final class LocalReportDecoder implements RecordDecoder {
  private final LocalPcaProtocol protocol;
  private final double limit;

  private final java.util.function.Consumer<LocalReport> sink;

  LocalReportDecoder(LocalPcaProtocol protocol, java.util.function.Consumer<LocalReport> sink) {
    this.protocol = Objects.requireNonNull(protocol, "protocol");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.limit = Math.scalb(protocol.noise().grid().gamma(), 62);
  }

  @Override
  public long positions(byte[] value) {
    return 1;
  }

  @Override
  public void apply(byte[] key, byte[] value, IngestStats stats)
      throws MalformedRecordException {
    LocalReport report = decode(value);
    sink.accept(report);
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
    LocalReport report;
    try {
      report = LocalReportCodec.decode(value, protocol);
    } catch (LocalReportCodec.MalformedReportException e) {
      throw new MalformedRecordException(reason(e.problem()), e.getMessage());
    }
    int t = report.cols();
    for (int i = 0; i < report.rows(); i++) {
      for (int c = 0; c < t; c++) {
        double x = report.get(i, c);
        if (!(Math.abs(x) <= limit)) {
          throw new MalformedRecordException(DeadLetterReason.BAD_VALUE, "local report value "
              + (i * t + c) + " (" + x + ") exceeds 2^62 grid steps (" + limit + ")");
        }
      }
    }
    return report;
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
   * The checksum term of one applied report: {@code mix(Σ_e updateHash(i_e, c_e, y_e))} over its
   * d·t entries (sum mod 2⁶⁴), as {@link IngestStats#rowHash} for rows.
   */
  static long reportHash(LocalReport r) {
    long h = 0;
    for (int i = 0; i < r.rows(); i++) {
      for (int c = 0; c < r.cols(); c++) {
        h += IngestStats.updateHash(i, c, r.get(i, c));
      }
    }
    return IngestStats.mix(h);
  }
}
