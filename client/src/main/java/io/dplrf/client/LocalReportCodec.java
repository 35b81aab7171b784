package io.dplrf.client;

import io.dplrf.sketch.noise.GridGaussian;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
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
  static final short VERSION = 1;
  static final int HEADER = 24;

  private LocalReportCodec() {}

  /** What is wrong with bytes that {@link #decode} refuses; servers map it to a dead-letter reason. */
  public enum Problem {
    /** Shorter than the 24-byte header, or not 24 + 8·d·t bytes. */
    LENGTH,
    /** Wrong magic or version: not a local report of this format. */
    NOT_A_REPORT,
    /** Made under another protocol (other seed, d, t, C, ε or δ). */
    FOREIGN_PROTOCOL,
    /** The protocol's id but another d×t. */
    SHAPE,
    /** A value that is NaN, infinite or not on the protocol's noise grid γℤ. */
    VALUE
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
    ByteBuffer b = ByteBuffer.allocate(HEADER + 8 * v.length).order(ByteOrder.BIG_ENDIAN);
    b.putInt(MAGIC).putShort(VERSION).putShort((short) 0);
    b.put(HexFormat.of().parseHex(r.protocolId()));
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
    if (bytes.length < HEADER) {
      throw new MalformedReportException(Problem.LENGTH,
          "local report too short: " + bytes.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
    int magic = b.getInt();
    if (magic != MAGIC) {
      throw new MalformedReportException(Problem.NOT_A_REPORT,
          "not a local report: magic 0x" + Integer.toHexString(magic) + ", expected 0x44504c50");
    }
    short version = b.getShort();
    if (version != VERSION) {
      throw new MalformedReportException(Problem.NOT_A_REPORT,
          "local report version " + version + ", this reader knows 1");
    }
    b.getShort();
    byte[] id = new byte[8];
    b.get(id);
    String protocolId = HexFormat.of().formatHex(id);
    if (!protocolId.equals(protocol.id())) {
      throw new MalformedReportException(Problem.FOREIGN_PROTOCOL,
          "local report of protocol " + protocolId
          + ", expected " + protocol.id() + " (other seed, d, t, C, epsilon or delta)");
    }
    int d = b.getInt();
    int t = b.getInt();
    if (d != protocol.dimension() || t != protocol.sketchCols()) {
      throw new MalformedReportException(Problem.SHAPE,
          "local report is " + d + "x" + t + ", the protocol's is "
          + protocol.dimension() + "x" + protocol.sketchCols());
    }
    long expected = HEADER + 8L * d * t;
    if (bytes.length != expected) {
      throw new MalformedReportException(Problem.LENGTH,
          "local report has " + bytes.length + " bytes, expected " + expected);
    }
    double gamma = protocol.noise().grid().gamma();
    double[] v = new double[d * t];
    for (int e = 0; e < v.length; e++) {
      double x = b.getDouble();
      if (!Double.isFinite(x) || GridGaussian.roundToGrid(x, gamma) != x) {
        throw new MalformedReportException(Problem.VALUE,
            "local report value " + e + " (" + x
            + ") is not finite or not on the noise grid");
      }
      v[e] = x;
    }
    return new LocalReport(protocolId, d, t, v);
  }
}
