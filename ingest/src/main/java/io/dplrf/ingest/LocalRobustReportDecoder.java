package io.dplrf.ingest;

import io.dplrf.client.LocalReportCodec;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.client.LocalRobustReport;
import io.dplrf.client.LocalRobustReportCodec;
import java.util.Objects;

/**
 * Local mode with the local-robust mechanism ({@link ContributionBounds.Unit#LOCAL_REPORT}, {@link
 * IngestConfig#localRobustProtocol}): one record value is one LOCAL-ROBUST-PCA report (paper 001,
 * Appendix C, Algorithm 3) in the {@link LocalRobustReportCodec} wire format (version 2: with the
 * user's slot), made by a user's {@code LocalRobustRandomizer} under the service's published
 * protocol. The decoder checks it whole and hands it to its sink (the aggregate),
 * which sums it unless its slot was already counted; the server never clips, scales or noises a
 * report (each is ε-DP for its user's row by itself: docs/privacy/local-pca.md §4).
 *
 * <p><b>Validation</b> (nothing applied on failure), as {@link LocalReportDecoder}: null or wrong
 * length ({@link DeadLetterReason#BAD_LENGTH}), wrong magic or version, version 1 included
 * ({@link DeadLetterReason#NOT_A_REPORT}), another protocol id ({@link
 * DeadLetterReason#FOREIGN_PROTOCOL}), another t, d or v ({@link DeadLetterReason#WRONG_SHAPE}),
 * a slot outside [0, m) ({@link DeadLetterReason#INDEX_OUT_OF_RANGE}), a value NaN, infinite, off
 * its part's Laplace grid γℤ or beyond 2⁶²·γ ({@link DeadLetterReason#BAD_VALUE}; the bound keeps
 * the target's 128-bit grid sums exact, and an honest entry is far below it: γ ≈ b·2⁻³⁰ for the
 * Laplace scale b). Then the target's own check: a slot already counted ({@link
 * DeadLetterReason#DUPLICATE_SLOT}). Which slots are counted depends on the slots alone (public),
 * never on a report's values.
 *
 * <p><b>Positions</b> for epochs cut by count: one per record. Keys are ignored (the slot already
 * names the user to the server, as in Algorithm 3; a key would add nothing).
 *
 * <p>Work per report O(t·d + v²); allocates the decoded report. Not thread-safe.
 */
final class LocalRobustReportDecoder implements RecordDecoder {
  private final LocalRobustProtocol protocol;
  private final double yrLimit;
  private final double zLimit;

  private final java.util.function.Predicate<LocalRobustReport> sink;

  LocalRobustReportDecoder(LocalRobustProtocol protocol,
      java.util.function.Predicate<LocalRobustReport> sink) {
    this.protocol = Objects.requireNonNull(protocol, "protocol");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.yrLimit = Math.scalb(protocol.plan().yr().grid().gamma(), 62);
    this.zLimit = Math.scalb(protocol.plan().z().grid().gamma(), 62);
  }

  @Override
  public long positions(byte[] value) {
    return 1;
  }

  @Override
  public void apply(byte[] key, byte[] value, IngestStats stats)
      throws MalformedRecordException {
    LocalRobustReport report = decode(value);
    if (!sink.test(report)) {
      throw new MalformedRecordException(DeadLetterReason.DUPLICATE_SLOT, "user slot "
          + report.slot() + " already has a report in the sum: one report per slot is counted");
    }
    stats.appliedReport(reportHash(report));
  }

  /**
   * The checked report.
   *
   * @throws MalformedRecordException naming the reason and the first thing that is wrong
   */
  LocalRobustReport decode(byte[] value) throws MalformedRecordException {
    if (value == null) {
      throw new MalformedRecordException(DeadLetterReason.BAD_LENGTH, "null value: no report");
    }
    LocalRobustReport report;
    try {
      report = LocalRobustReportCodec.decode(value, protocol);
    } catch (LocalReportCodec.MalformedReportException e) {
      throw new MalformedRecordException(LocalReportDecoder.reason(e.problem()), e.getMessage());
    }
    double[] yr = report.yr();
    checkBound(yr, yrLimit, 0);
    checkBound(report.z(), zLimit, yr.length);
    return report;
  }

  private static void checkBound(double[] v, double limit, int first)
      throws MalformedRecordException {
    for (int e = 0; e < v.length; e++) {
      if (!(Math.abs(v[e]) <= limit)) {
        throw new MalformedRecordException(DeadLetterReason.BAD_VALUE, "local-robust report value "
            + (first + e) + " (" + v[e] + ") exceeds 2^62 grid steps (" + limit + ")");
      }
    }
  }

  /**
   * The checksum term of one applied report: {@code mix(Σ_e updateHash(slot, e, value_e))} over
   * its t·d + v² values (Yr then Z, sum mod 2⁶⁴), as {@link LocalReportDecoder#reportHash}.
   */
  static long reportHash(LocalRobustReport r) {
    long h = 0;
    double[] yr = r.yr();
    for (int e = 0; e < yr.length; e++) {
      h += IngestStats.updateHash(r.slot(), e, yr[e]);
    }
    double[] z = r.z();
    for (int e = 0; e < z.length; e++) {
      h += IngestStats.updateHash(r.slot(), yr.length + e, z[e]);
    }
    return IngestStats.mix(h);
  }
}
