package io.dplrf.client;

import io.dplrf.client.LocalReportCodec.MalformedReportException;
import io.dplrf.client.LocalReportCodec.Problem;
import io.dplrf.sketch.lra.RobustPlan;
import io.dplrf.sketch.params.SketchSizes;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The wire format of a {@link LocalRobustReport} (one Kafka record value, one file):
 *
 * <pre>
 *   offset       size     field
 *   0            4        magic "DPLR" (0x44 0x50 0x4C 0x52)
 *   4            2        version, 2
 *   6            2        reserved, 0
 *   8            8        protocol id: the 8 bytes whose hex is {@link LocalRobustProtocol#id()}
 *   16           4        t  (int32)
 *   20           4        d  (int32)
 *   24           4        v  (int32)
 *   28           4        slot i (int32), 0 ≤ i &lt; m                        (new in version 2)
 *   32           8·t·d    Yr_i, row-major, float64
 *   32 + 8·t·d   8·v·v    Z_i, row-major, float64
 * </pre>
 *
 * All integers and floats big-endian; the same 16-byte prefix as {@link LocalReportCodec}
 * ("DPLP"), whose format is unchanged. Refusals are {@link MalformedReportException}s with the
 * same {@link Problem}s, plus {@link Problem#SLOT}. Stateless, thread-safe.
 *
 * <p><b>Version 1</b> (the same without the slot, bytes 28.. holding Yr_i) is refused with a
 * reason saying so: a report without its slot cannot be counted once per slot by a streaming
 * server (docs/local-service.md), and no version-1 report was ever sent to one.
 */
public final class LocalRobustReportCodec {
  static final int MAGIC = 0x44504C52; // "DPLR"
  static final short VERSION = 2;
  static final int HEADER = ReportWire.PREFIX + 16;
  private static final String WHAT = "local-robust report";

  private LocalRobustReportCodec() {}

  public static byte[] encode(LocalRobustReport r) {
    Objects.requireNonNull(r, "report");
    double[] yr = r.yrUnsafe();
    double[] z = r.zUnsafe();
    ByteBuffer b = ReportWire.start(HEADER + 8 * (yr.length + z.length), MAGIC, VERSION,
        r.protocolId());
    b.putInt(r.t()).putInt(r.d()).putInt(r.v()).putInt(r.slot());
    for (double x : yr) {
      b.putDouble(x);
    }
    for (double x : z) {
      b.putDouble(x);
    }
    return b.array();
  }

  /**
   * A report for {@code protocol}, checked: magic, version, protocol id, shape, slot in [0, m),
   * length, and every value finite and on its part's Laplace grid γℤ.
   *
   * @throws MalformedReportException naming the first thing that is wrong
   */
  public static LocalRobustReport decode(byte[] bytes, LocalRobustProtocol protocol) {
    Objects.requireNonNull(bytes, "bytes");
    Objects.requireNonNull(protocol, "protocol");
    ByteBuffer b = ReportWire.open(bytes, HEADER, MAGIC, VERSION,
        "version 1 carries no user slot; re-encode with a current client", WHAT, protocol.id());
    int t = b.getInt();
    int d = b.getInt();
    int v = b.getInt();
    int slot = b.getInt();
    SketchSizes sz = protocol.sizes();
    if (t != sz.t() || d != sz.n() || v != sz.v()) {
      throw new MalformedReportException(Problem.SHAPE, WHAT + " has t=" + t + ", d=" + d
          + ", v=" + v + "; the protocol's are t=" + sz.t() + ", d=" + sz.n() + ", v=" + sz.v());
    }
    if (slot < 0 || slot >= sz.m()) {
      throw new MalformedReportException(Problem.SLOT, WHAT + " has user slot " + slot
          + "; the protocol's slots are 0.." + (sz.m() - 1));
    }
    ReportWire.checkLength(bytes, HEADER + 8L * ((long) t * d + (long) v * v), WHAT);
    RobustPlan plan = protocol.plan();
    double[] yr = ReportWire.values(b, t * d, plan.yr().grid().gamma(), 0, WHAT);
    double[] z = ReportWire.values(b, v * v, plan.z().grid().gamma(), t * d, WHAT);
    return new LocalRobustReport(protocol.id(), slot, t, d, v, yr, z);
  }
}
