package io.dplrf.deploy.serve;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalReport;
import io.dplrf.ingest.IngestTarget;
import io.dplrf.sketch.matrix.Dense;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Local mode's {@link IngestTarget}: the exact sum Y = Σ_i report_i of the local-DP reports
 * (d×t, docs/privacy/local-pca.md), plus the sum as of the last closed epoch, which is what is
 * released. It takes {@link LocalReport}s only (no rows, no updates) and adds no noise: each
 * report is already (ε, δ)-DP for its user, and the release is post-processing of the sum.
 *
 * <p><b>Exact.</b> Every report value is on the protocol's noise grid γℤ with |value| ≤ 2⁶²·γ
 * (checked by ingest's decoder), so value/γ is an exact {@code long}; the sum is kept in grid
 * units as 128-bit two's-complement integers (hi, lo), which cannot overflow before 2⁶⁵ reports.
 * So the sum is independent of the order of the reports and identical after any restart — the
 * snapshot stores it bit for bit — and converted to doubles only for the SVD.
 *
 * <p>Snapshot layout ({@link #writeState}, inside the ingest snapshot; big-endian):
 * <pre>
 *  magic "DPLRLOC1" (8 bytes), version int32 = 1, protocol id (UTF), d int32, t int32,
 *  epochs T int32, epochsClosed int32, reports int64, reportsAtClose int64,
 *  live sum   d·t × (hi int64, lo int64), row-major
 *  closed sum d·t × (hi int64, lo int64)
 * </pre>
 *
 * <p>Thread-safety: {@link #addReport} from the ingest thread; the rest synchronized on this.
 */
public final class LocalTarget implements IngestTarget {
  private static final byte[] MAGIC = "DPLRLOC1".getBytes(StandardCharsets.US_ASCII);
  private static final int VERSION = 1;

  private final LocalPcaProtocol protocol;
  private final int epochs;
  private final double gamma;
  private final long[] hi;
  private final long[] lo;
  private final long[] closedHi;
  private final long[] closedLo;
  private long reports;
  private long reportsAtClose;
  private int epochsClosed;

  /** An empty aggregate for {@code protocol}, releasing after each of {@code epochs} epochs. */
  public LocalTarget(LocalPcaProtocol protocol, int epochs) {
    this.protocol = Objects.requireNonNull(protocol, "protocol");
    if (epochs < 1) {
      throw new IllegalArgumentException("epochs must be >= 1. Provided value: " + epochs);
    }
    this.epochs = epochs;
    this.gamma = protocol.noise().grid().gamma();
    int n = protocol.dimension() * protocol.sketchCols();
    hi = new long[n];
    lo = new long[n];
    closedHi = new long[n];
    closedLo = new long[n];
  }

  public LocalPcaProtocol protocol() {
    return protocol;
  }

  @Override
  public void update(int i, int j, double delta) {
    throw new UnsupportedOperationException("local mode sums reports, not updates");
  }

  @Override
  public void addRow(int[] index, double[] x, int n) {
    throw new UnsupportedOperationException("local mode never sees a row");
  }

  @Override
  public synchronized void addReport(LocalReport report) {
    if (!report.protocolId().equals(protocol.id())) {
      throw new IllegalArgumentException("report of protocol " + report.protocolId()
          + ", this aggregate's is " + protocol.id());
    }
    double[] v = report.values();
    for (int e = 0; e < v.length; e++) {
      long k = (long) (v[e] / gamma); // exact: v on γℤ, |v/γ| ≤ 2^62, γ a power of two
      long s = lo[e] + k;
      // 128-bit add of sign-extended k: carry out of the unsigned low word, plus k's sign word.
      hi[e] += (k >> 63) + (Long.compareUnsigned(s, lo[e]) < 0 ? 1 : 0);
      lo[e] = s;
    }
    reports++;
  }

  @Override
  public synchronized void closeEpoch() {
    if (epochsClosed >= epochs) {
      throw new IllegalStateException("all " + epochs + " epochs are closed");
    }
    System.arraycopy(hi, 0, closedHi, 0, hi.length);
    System.arraycopy(lo, 0, closedLo, 0, lo.length);
    reportsAtClose = reports;
    epochsClosed++;
  }

  @Override
  public synchronized boolean exhausted() {
    return epochsClosed >= epochs;
  }

  @Override
  public synchronized int epochsClosed() {
    return epochsClosed;
  }

  /** Reports summed so far (exact, operator-only: not released). */
  public synchronized long reports() {
    return reports;
  }

  /** Reports in the released sum, i.e. up to the last epoch close (exact, operator-only). */
  public synchronized long reportsAtClose() {
    return reportsAtClose;
  }

  /** Y as of the last closed epoch, d×t, in the units of the reports (rounded from exact). */
  public synchronized Dense closedSum() {
    double[] y = new double[hi.length];
    for (int e = 0; e < y.length; e++) {
      y[e] = toDouble(closedHi[e], closedLo[e]) * gamma; // γ a power of two: exact scaling
    }
    return new Dense(protocol.dimension(), protocol.sketchCols(), y);
  }

  /** The 128-bit integer hi·2⁶⁴ + lo (lo unsigned), rounded to a double. */
  static double toDouble(long hi, long lo) {
    if (hi == (lo >> 63)) {
      return (double) lo; // fits in 64 bits
    }
    // Two roundings (each ≤ 2^-53 relative); the release is an SVD, far coarser than that.
    double low = (double) (lo >>> 1) * 2.0 + (lo & 1);
    return Math.scalb((double) hi, 64) + low;
  }

  @Override
  public synchronized void writeState(OutputStream out) throws IOException {
    DataOutputStream d = new DataOutputStream(out);
    d.write(MAGIC);
    d.writeInt(VERSION);
    d.writeUTF(protocol.id());
    d.writeInt(protocol.dimension());
    d.writeInt(protocol.sketchCols());
    d.writeInt(epochs);
    d.writeInt(epochsClosed);
    d.writeLong(reports);
    d.writeLong(reportsAtClose);
    for (long[][] pair : new long[][][] {{hi, lo}, {closedHi, closedLo}}) {
      for (int e = 0; e < hi.length; e++) {
        d.writeLong(pair[0][e]);
        d.writeLong(pair[1][e]);
      }
    }
    d.flush();
  }

  /** Restores; refuses a state of another protocol, shape or T (a new run needs a new state-dir). */
  @Override
  public synchronized void readState(InputStream in) throws IOException {
    DataInputStream d = new DataInputStream(in);
    byte[] magic = d.readNBytes(MAGIC.length);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new IOException("the snapshot holds no local-mode aggregate (magic "
          + new String(magic, StandardCharsets.US_ASCII) + ")");
    }
    int version = d.readInt();
    if (version != VERSION) {
      throw new IOException("local aggregate version " + version + ", this build reads 1");
    }
    String id = d.readUTF();
    int dd = d.readInt();
    int t = d.readInt();
    int tEpochs = d.readInt();
    if (!id.equals(protocol.id()) || dd != protocol.dimension() || t != protocol.sketchCols()
        || tEpochs != epochs) {
      throw new IOException("the state directory holds reports of protocol " + id + " (d = " + dd
          + ", t = " + t + ", T = " + tEpochs + "), configured " + protocol.id() + " (d = "
          + protocol.dimension() + ", t = " + protocol.sketchCols() + ", T = " + epochs
          + "): reports of two protocols cannot be summed; use a new state directory");
    }
    epochsClosed = d.readInt();
    reports = d.readLong();
    reportsAtClose = d.readLong();
    for (long[][] pair : new long[][][] {{hi, lo}, {closedHi, closedLo}}) {
      for (int e = 0; e < hi.length; e++) {
        pair[0][e] = d.readLong();
        pair[1][e] = d.readLong();
      }
    }
  }

  /** Bytes of the four sum arrays. */
  public long sizeInBytes() {
    return 4L * 8 * hi.length;
  }
}
