package io.dplrf.client;

import io.dplrf.client.LocalReportCodec.MalformedReportException;
import io.dplrf.client.LocalReportCodec.Problem;
import io.dplrf.sketch.noise.GridGaussian;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;

/**
 * The common 16-byte header of the local report formats and their grid-checked values: magic
 * (4), version (2), reserved 0 (2), the 8-byte protocol id; everything big-endian. Used by
 * {@link LocalReportCodec} ("DPLP") and {@link LocalRobustReportCodec} ("DPLR"). Stateless.
 */
final class ReportWire {
  static final int PREFIX = 16;
  /** The version of the "DPLP" format (the "DPLR" format has its own). */
  static final short VERSION = 1;

  private ReportWire() {}

  /** A buffer of {@code length} bytes with the header (format {@code version}) written. */
  static ByteBuffer start(int length, int magic, short version, String protocolId) {
    ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.BIG_ENDIAN);
    b.putInt(magic).putShort(version).putShort((short) 0);
    b.put(HexFormat.of().parseHex(protocolId));
    return b;
  }

  /**
   * Checks length ≥ {@code header}, magic, version ({@code version} only; {@code note}, if not
   * null, explains a refused older version) and protocol id; returns the buffer positioned after
   * the 16-byte prefix.
   */
  static ByteBuffer open(byte[] bytes, int header, int magic, short expectedVersion, String note,
      String what, String expectedId) {
    if (bytes.length < header) {
      throw new MalformedReportException(Problem.LENGTH,
          what + " too short: " + bytes.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
    int m = b.getInt();
    if (m != magic) {
      throw new MalformedReportException(Problem.NOT_A_REPORT, "not a " + what + ": magic 0x"
          + Integer.toHexString(m) + ", expected 0x" + Integer.toHexString(magic));
    }
    short version = b.getShort();
    if (version != expectedVersion) {
      throw new MalformedReportException(Problem.NOT_A_REPORT, what + " version " + version
          + ", this reader knows " + expectedVersion
          + (note != null && version < expectedVersion ? " (" + note + ")" : ""));
    }
    b.getShort();
    byte[] id = new byte[8];
    b.get(id);
    String protocolId = HexFormat.of().formatHex(id);
    if (!protocolId.equals(expectedId)) {
      throw new MalformedReportException(Problem.FOREIGN_PROTOCOL, what + " of protocol "
          + protocolId + ", expected " + expectedId + " (another protocol's parameters)");
    }
    return b;
  }

  /** Checks that the whole message is {@code expected} bytes long. */
  static void checkLength(byte[] bytes, long expected, String what) {
    if (bytes.length != expected) {
      throw new MalformedReportException(Problem.LENGTH,
          what + " has " + bytes.length + " bytes, expected " + expected);
    }
  }

  /**
   * Reads {@code count} float64 values, each finite and on the grid γℤ (both GridGaussian and
   * GridLaplace round to the same power-of-two grids); {@code first} numbers them in messages.
   */
  static double[] values(ByteBuffer b, int count, double gamma, int first, String what) {
    double[] v = new double[count];
    for (int e = 0; e < count; e++) {
      double x = b.getDouble();
      if (!Double.isFinite(x) || GridGaussian.roundToGrid(x, gamma) != x) {
        throw new MalformedReportException(Problem.VALUE, what + " value " + (first + e) + " ("
            + x + ") is not finite or not on the noise grid");
      }
      v[e] = x;
    }
    return v;
  }
}
