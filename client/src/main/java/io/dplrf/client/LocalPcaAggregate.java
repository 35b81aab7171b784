package io.dplrf.client;

import io.dplrf.sketch.matrix.Dense;
import java.util.Objects;

/**
 * The server side of local-DP PCA, and all of it that touches reports: their sum
 * Y = Σ_i report_i = AᵀAΦ + Σ_i N_i (d×t). It accepts {@link LocalReport}s only — there is no
 * way to add a row — and checks that each belongs to its protocol. Summing is post-processing of
 * (ε, δ)-DP reports, so Y and anything computed from it (the rank-k basis, in the release
 * module) are private for every user.
 *
 * <p>{@link #reports()} is the number of reports summed. In the local model the server sees
 * every report arrive, and the protection is against replacing a user's row, which leaves the
 * count unchanged; dplrf still does not write it to release files (it is printed for the
 * operator). Thread-safe.
 */
public final class LocalPcaAggregate {
  private final LocalPcaProtocol protocol;
  private final double[] sum;
  private long reports;

  public LocalPcaAggregate(LocalPcaProtocol protocol) {
    this.protocol = Objects.requireNonNull(protocol, "protocol");
    this.sum = new double[protocol.dimension() * protocol.sketchCols()];
  }

  public LocalPcaProtocol protocol() {
    return protocol;
  }

  /**
   * Adds one report.
   *
   * @throws IllegalArgumentException if the report was made under another protocol
   */
  public synchronized void add(LocalReport report) {
    Objects.requireNonNull(report, "report");
    if (!report.protocolId().equals(protocol.id())
        || report.rows() != protocol.dimension() || report.cols() != protocol.sketchCols()) {
      throw new IllegalArgumentException("report of protocol " + report.protocolId() + " ("
          + report.rows() + "x" + report.cols() + ") does not belong to protocol " + protocol.id());
    }
    double[] v = report.valuesUnsafe();
    for (int e = 0; e < v.length; e++) {
      sum[e] += v[e];
    }
    reports++;
  }

  /** The number of reports summed (see the class comment). */
  public synchronized long reports() {
    return reports;
  }

  /** Y = the sum of the reports, d×t (a copy): the input of the release's SVD. */
  public synchronized Dense sum() {
    return new Dense(protocol.dimension(), protocol.sketchCols(), sum.clone());
  }
}
