package io.dplrf.client;

import io.dplrf.sketch.lra.LaplaceSketchNoise;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.SketchSizes;
import java.util.List;
import java.util.Objects;

/**
 * The server side of LOCAL-ROBUST-PCA (paper 001, Algorithm 3 lines 8–9), and all of it that
 * touches reports: Yr = Σ_i Yr_i = ΦA + Σ N1_i and Z = Σ_i Z_i = SAT + Σ N2_i, exactly the
 * central ROBUST-PCA sketches of the matrix of all rows, with the noise of m reports. It accepts
 * {@link LocalRobustReport}s only and checks that each belongs to its protocol. Summing is
 * post-processing of ε-DP reports. {@link #sketches()} hands the sums to ROBUST-PCA's release
 * ({@code release.RobustRelease.basis}). Thread-safe.
 */
public final class LocalRobustAggregate {
  private final LocalRobustProtocol protocol;
  private final double[] yr;
  private final double[] z;
  private long reports;

  public LocalRobustAggregate(LocalRobustProtocol protocol) {
    this.protocol = Objects.requireNonNull(protocol, "protocol");
    SketchSizes sz = protocol.sizes();
    this.yr = new double[sz.t() * sz.n()];
    this.z = new double[sz.v() * sz.v()];
  }

  public LocalRobustProtocol protocol() {
    return protocol;
  }

  /**
   * Adds one report.
   *
   * @throws IllegalArgumentException if the report was made under another protocol
   */
  public synchronized void add(LocalRobustReport report) {
    Objects.requireNonNull(report, "report");
    SketchSizes sz = protocol.sizes();
    if (!report.protocolId().equals(protocol.id()) || report.t() != sz.t()
        || report.d() != sz.n() || report.v() != sz.v()) {
      throw new IllegalArgumentException("report of protocol " + report.protocolId()
          + " does not belong to protocol " + protocol.id());
    }
    add(yr, report.yrUnsafe());
    add(z, report.zUnsafe());
    reports++;
  }

  private static void add(double[] sum, double[] x) {
    for (int e = 0; e < x.length; e++) {
      sum[e] += x[e];
    }
  }

  /** The number of reports summed (public in the local model; not written to release files). */
  public synchronized long reports() {
    return reports;
  }

  /**
   * The summed sketches as ROBUST-PCA's released bundle (copies): Yr (t×d), Z (v×v), the public
   * S and Tᵀ, and per part the noise of the sum (σ = √(reports)·√2·b, the ℓ1 sensitivity of
   * one report).
   */
  public synchronized RobustSketches sketches() {
    SketchSizes sz = protocol.sizes();
    RobustMatrices mats = protocol.matrices();
    List<NoiseScale> noise = List.of(summed(protocol.plan().yr(), yr.length),
        summed(protocol.plan().z(), z.length));
    return new RobustSketches(sz.m(), sz.n(), protocol.p(), new Dense(sz.t(), sz.n(), yr.clone()),
        null, new Dense(sz.v(), sz.v(), z.clone()), mats.s(), mats.tTransposed(), noise);
  }

  private NoiseScale summed(LaplaceSketchNoise n, long entries) {
    NoiseScale one = n.scale(entries);
    return new NoiseScale(one.sketch(), one.sigma() * Math.sqrt(reports), one.sensitivity(),
        entries);
  }
}
