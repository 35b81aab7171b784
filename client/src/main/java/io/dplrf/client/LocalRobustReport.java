package io.dplrf.client;

/**
 * The one message a user sends in LOCAL-ROBUST-PCA: the noisy sketches
 * Yr_i = round(Φ[:, i] xᵀ) + N1 (t×d) and Z_i = round(S[:, i] xᵀT) + N2 (v×v) of the user's
 * ℓ1-clipped row x ({@link LocalRobustProtocol}). It is ε-DP with respect to the row by itself,
 * so it may be sent, stored and published. It carries the user's slot i (public: which columns of
 * Φ and S she used, not data), so that a server can count each slot once.
 *
 * <p>As {@link LocalReport}: the constructor is package-private, a report is made only by
 * {@link LocalRobustRandomizer#report} or decoded by {@link LocalRobustReportCodec#decode}, and
 * {@link LocalRobustAggregate} accepts nothing else. Immutable and thread-safe.
 */
public final class LocalRobustReport {
  private final String protocolId;
  private final int slot;
  private final int t;
  private final int d;
  private final int v;
  private final double[] yr;
  private final double[] z;

  LocalRobustReport(String protocolId, int slot, int t, int d, int v, double[] yr, double[] z) {
    if (yr.length != t * d || z.length != v * v) {
      throw new IllegalArgumentException("a report of t=" + t + ", d=" + d + ", v=" + v + " needs "
          + t * d + " + " + v * v + " values, got " + yr.length + " + " + z.length);
    }
    this.protocolId = protocolId;
    this.slot = slot;
    this.t = t;
    this.d = d;
    this.v = v;
    this.yr = yr;
    this.z = z;
  }

  /** {@link LocalRobustProtocol#id()} of the protocol the report was made under. */
  public String protocolId() {
    return protocolId;
  }

  /** The user's slot i, 0 ≤ i &lt; m: the report was made with Φ[:, i] and S[:, i]. */
  public int slot() {
    return slot;
  }

  public int t() {
    return t;
  }

  public int d() {
    return d;
  }

  public int v() {
    return v;
  }

  /** Yr_i, row-major t×d (a copy). */
  public double[] yr() {
    return yr.clone();
  }

  /** Z_i, row-major v×v (a copy). */
  public double[] z() {
    return z.clone();
  }

  double[] yrUnsafe() {
    return yr;
  }

  double[] zUnsafe() {
    return z;
  }

  @Override
  public String toString() {
    return "LocalRobustReport[protocol=" + protocolId + ", slot=" + slot + ", t=" + t + ", d=" + d
        + ", v=" + v + "]";
  }
}
