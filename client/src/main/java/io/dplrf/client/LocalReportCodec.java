package io.dplrf.client;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The wire format of a {@link LocalReport} (one Kafka record value, one HTTP body, one file):
 *
 * <pre>
 *   offset  size     field
 *   0       4        magic "DPLP" (0x44 0x50 0x4C 0x50)
 *   4       2        version, 1
 *   6       2        reserved, 0
 *   8       8        protocol id: the 8 bytes whose hex is {@link LocalPcaProtocol#id()}
 *   16      4        d  (int32)
 *   20      4        t  (int32)
 *   24      8·d·t    the noisy sketch, row-major, float64
 * </pre>
 *
 * All integers and floats big-endian. A report of d = t = 64 is 32,792 bytes. Stateless,
 * thread-safe.
 */
public final class LocalReportCodec {
  static final int MAGIC = 0x44504C50; // "DPLP"
  static final short VERSION = ReportWire.VERSION;
  static final int HEADER = ReportWire.PREFIX + 8;
  private static final String WHAT = "local report";

  private LocalReportCodec() {}

  /** What is wrong with bytes that {@link #decode} refuses; servers map it to a dead-letter reason. */
  public enum Problem {
    /** Shorter than the 24-byte header, or not 24 + 8·d·t bytes. */
    LENGTH,
    /** Wrong magic or version: not a local report of this format. */
    NOT_A_REPORT,
    /** Made under another protocol (other seed, d, t, C, ε or δ; for local-robust m, k, v, p). */
    FOREIGN_PROTOCOL,
    /** The protocol's id but another shape (d×t; local-robust t, d, v). */
    SHAPE,
    /** A value that is NaN, infinite or not on the protocol's noise grid γℤ. */
    VALUE,
    /** Local-robust only: a user slot outside [0, m). */
    SLOT
  }

  /** {@link #decode}'s refusal, naming the {@link Problem} and the first thing that is wrong. */
  public static final class MalformedReportException extends IllegalArgumentException {
    private final Problem problem;

    MalformedReportException(Problem problem, String message) {
      super(message);
      this.problem = problem;
    }

    public Problem problem() {
      return problem;
    }
  }

  public static byte[] encode(LocalReport r) {
    Objects.requireNonNull(r, "report");
    double[] v = r.valuesUnsafe();
    ByteBuffer b = ReportWire.start(HEADER + 8 * v.length, MAGIC, VERSION, r.protocolId());
    b.putInt(r.rows()).putInt(r.cols());
    for (double x : v) {
      b.putDouble(x);
    }
    return b.array();
  }

  /**
   * A report for {@code protocol}, checked: magic, version, protocol id, shape, length, and every
   * value finite and on the protocol's noise grid γℤ (as every randomizer output is).
   *
   * @throws MalformedReportException naming the first thing that is wrong
   */
  public static LocalReport decode(byte[] bytes, LocalPcaProtocol protocol) {
    Objects.requireNonNull(bytes, "bytes");
    Objects.requireNonNull(protocol, "protocol");
    ByteBuffer b = ReportWire.open(bytes, HEADER, MAGIC, VERSION, null, WHAT, protocol.id());
    int d = b.getInt();
    int t = b.getInt();
    if (d != protocol.dimension() || t != protocol.sketchCols()) {
      throw new MalformedReportException(Problem.SHAPE,
          "local report is " + d + "x" + t + ", the protocol's is "
          + protocol.dimension() + "x" + protocol.sketchCols());
    }
    ReportWire.checkLength(bytes, HEADER + 8L * d * t, WHAT);
    double[] v = ReportWire.values(b, d * t, protocol.noise().grid().gamma(), 0, WHAT);
    return new LocalReport(protocol.id(), d, t, v);
  }
}
