package io.dplrf.client;

import io.dplrf.sketch.noise.GridGaussian;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The wire formats of {@link LocalReport}s (one Kafka record value, one HTTP body, one file), one
 * per protocol. Both share a 16-byte prefix, then the shape, the slot if the protocol has slots,
 * and every part's values in order:
 *
 * <pre>
 *   offset  size   field
 *   0       4      magic: "DPLP" (0x44 0x50 0x4C 0x50) for LocalPcaProtocol,
 *                         "DPLR" (0x44 0x50 0x4C 0x52) for LocalRobustProtocol
 *   4       2      version: DPLP 1, DPLR 2
 *   6       2      reserved, 0
 *   8       8      protocol id: the 8 bytes whose hex is LocalProtocol.id()
 *   16      4·s    the shape, int32 each: DPLP d, t (s = 2); DPLR t, d, v (s = 3)
 *   16+4s   4      DPLR only: the user slot i (int32), 0 ≤ i &lt; m
 *   H       8·n    the parts' values, row-major float64, part after part:
 *                  DPLP Y (d×t), H = 24; DPLR Yr_i (t×d) then Z_i (v×v), H = 32
 * </pre>
 *
 * All integers and floats big-endian. A DPLP report of d = t = 64 is 32,792 bytes; a DPLR
 * report of d = t = 8, v = 16 is 2,592 bytes. Stateless, thread-safe.
 *
 * <p><b>DPLR version 1</b> (the same without the slot, bytes 28.. holding Yr_i) is refused with a
 * reason saying so: a report without its slot cannot be counted once per slot by a streaming
 * server (docs/local-service.md).
 */
public final class LocalReportCodec {
  static final int PREFIX = 16;

  /** The format of {@link LocalPcaProtocol}'s reports. */
  static final Format DPLP = new Format(0x44504C50, (short) 1, "local report",
      List.of("d", "t"), parts -> new int[] {parts.get(0).rows(), parts.get(0).cols()}, null);

  /** The format of {@link LocalRobustProtocol}'s reports (version 2: with the user slot). */
  static final Format DPLR = new Format(0x44504C52, (short) 2, "local-robust report",
      List.of("t", "d", "v"),
      parts -> new int[] {parts.get(0).rows(), parts.get(0).cols(), parts.get(1).rows()},
      "version 1 carries no user slot; re-encode with a current client");

  /**
   * One format of the table above: its magic and version, the name of a report in messages, the
   * shape fields and how the protocol's parts give them, and why an older version is refused
   * (null if there is none).
   */
  static final class Format {
    final int magic;
    final short version;
    final String what;
    final List<String> shapeNames;
    final Function<List<ReportPart>, int[]> shape;
    final String olderVersionNote;

    Format(int magic, short version, String what, List<String> shapeNames,
        Function<List<ReportPart>, int[]> shape, String olderVersionNote) {
      this.magic = magic;
      this.version = version;
      this.what = what;
      this.shapeNames = shapeNames;
      this.shape = shape;
      this.olderVersionNote = olderVersionNote;
    }

    /** Bytes before the values: prefix, shape, slot. */
    int header(LocalProtocol p) {
      return PREFIX + 4 * shapeNames.size() + (p.hasSlots() ? 4 : 0);
    }
  }

  private LocalReportCodec() {}

  /** What is wrong with bytes that {@link #decode} refuses; servers map it to a dead-letter reason. */
  public enum Problem {
    /** Shorter than the header, or not header + 8·(values) bytes. */
    LENGTH,
    /** Wrong magic or version: not a report of this protocol's format. */
    NOT_A_REPORT,
    /** Made under another protocol (other seed, d, t, C, ε or δ; for local-robust m, k, v, p). */
    FOREIGN_PROTOCOL,
    /** The protocol's id but another shape (d×t; local-robust t, d, v). */
    SHAPE,
    /** A value NaN, infinite, off its part's noise grid γℤ, or beyond 2⁶²·γ. */
    VALUE,
    /** A user slot outside [0, m) (protocols with slots only). */
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

  /** The length in bytes of every report of {@code protocol}. */
  public static int length(LocalProtocol protocol) {
    long n = protocol.wireFormat().header(protocol);
    for (ReportPart p : protocol.parts()) {
      n += 8L * p.size();
    }
    return Math.toIntExact(n);
  }

  public static byte[] encode(LocalReport r) {
    Objects.requireNonNull(r, "report");
    LocalProtocol protocol = r.protocol();
    Format f = protocol.wireFormat();
    ByteBuffer b = ByteBuffer.allocate(length(protocol)).order(ByteOrder.BIG_ENDIAN);
    b.putInt(f.magic).putShort(f.version).putShort((short) 0);
    b.put(HexFormat.of().parseHex(protocol.id()));
    for (int x : f.shape.apply(protocol.parts())) {
      b.putInt(x);
    }
    if (protocol.hasSlots()) {
      b.putInt(r.slotOrNone());
    }
    for (int p = 0; p < protocol.parts().size(); p++) {
      for (double x : r.valuesUnsafe(p)) {
        b.putDouble(x);
      }
    }
    return b.array();
  }

  /**
   * A report for {@code protocol}, checked in this order: length of the header, magic, version,
   * protocol id, shape, slot in [0, m) (protocols with slots), total length, and every value
   * finite, on its part's noise grid γℤ (as every randomizer output is) and within 2⁶²·γ
   * ({@link ReportPart#exactBound()}).
   *
   * @throws MalformedReportException naming the first thing that is wrong
   */
  public static LocalReport decode(byte[] bytes, LocalProtocol protocol) {
    Objects.requireNonNull(bytes, "bytes");
    Objects.requireNonNull(protocol, "protocol");
    Format f = protocol.wireFormat();
    String what = f.what;
    int header = f.header(protocol);
    if (bytes.length < header) {
      throw new MalformedReportException(Problem.LENGTH,
          what + " too short: " + bytes.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
    int magic = b.getInt();
    if (magic != f.magic) {
      throw new MalformedReportException(Problem.NOT_A_REPORT, "not a " + what + ": magic 0x"
          + Integer.toHexString(magic) + ", expected 0x" + Integer.toHexString(f.magic));
    }
    short version = b.getShort();
    if (version != f.version) {
      throw new MalformedReportException(Problem.NOT_A_REPORT, what + " version " + version
          + ", this reader knows " + f.version
          + (f.olderVersionNote != null && version < f.version ? " (" + f.olderVersionNote + ")"
              : ""));
    }
    b.getShort();
    byte[] idBytes = new byte[8];
    b.get(idBytes);
    String id = HexFormat.of().formatHex(idBytes);
    if (!id.equals(protocol.id())) {
      throw new MalformedReportException(Problem.FOREIGN_PROTOCOL, what + " of protocol " + id
          + ", expected " + protocol.id() + " (another protocol's parameters)");
    }
    List<ReportPart> parts = protocol.parts();
    int[] expected = f.shape.apply(parts);
    int[] shape = new int[expected.length];
    for (int e = 0; e < shape.length; e++) {
      shape[e] = b.getInt();
    }
    if (!Arrays.equals(shape, expected)) {
      throw new MalformedReportException(Problem.SHAPE, what + " has " + named(f, shape)
          + "; the protocol's are " + named(f, expected));
    }
    int slot = LocalProtocol.NO_SLOT;
    if (protocol.hasSlots()) {
      slot = b.getInt();
      if (slot < 0 || slot >= protocol.slots()) {
        throw new MalformedReportException(Problem.SLOT, what + " has user slot " + slot
            + "; the protocol's slots are 0.." + (protocol.slots() - 1));
      }
    }
    if (bytes.length != length(protocol)) {
      throw new MalformedReportException(Problem.LENGTH,
          what + " has " + bytes.length + " bytes, expected " + length(protocol));
    }
    double[][] values = new double[parts.size()][];
    int first = 0;
    for (int p = 0; p < values.length; p++) {
      values[p] = values(b, parts.get(p), first, what);
      first += values[p].length;
    }
    return new LocalReport(protocol, slot, values);
  }

  private static String named(Format f, int[] shape) {
    StringBuilder s = new StringBuilder();
    for (int e = 0; e < shape.length; e++) {
      s.append(e == 0 ? "" : ", ").append(f.shapeNames.get(e)).append('=').append(shape[e]);
    }
    return s.toString();
  }

  /**
   * Reads the values of one part, each finite, on the grid γℤ and within 2⁶²·γ; {@code first}
   * numbers them in messages (across the parts).
   */
  private static double[] values(ByteBuffer b, ReportPart part, int first, String what) {
    double gamma = part.gamma();
    double bound = part.exactBound();
    double[] v = new double[part.size()];
    for (int e = 0; e < v.length; e++) {
      double x = b.getDouble();
      // GridGaussian and GridLaplace round to the same power-of-two grids.
      if (!Double.isFinite(x) || GridGaussian.roundToGrid(x, gamma) != x) {
        throw new MalformedReportException(Problem.VALUE, what + " value " + (first + e) + " ("
            + x + ") is not finite or not on the noise grid");
      }
      if (!(Math.abs(x) <= bound)) {
        throw new MalformedReportException(Problem.VALUE, what + " value " + (first + e) + " ("
            + x + ") exceeds 2^62 grid steps (" + bound + ")");
      }
      v[e] = x;
    }
    return v;
  }
}
