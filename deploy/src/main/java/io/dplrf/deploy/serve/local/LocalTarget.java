package io.dplrf.deploy.serve.local;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalReport;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.ingest.RecordDecoder;
import io.dplrf.sketch.matrix.Dense;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * Local mode's {@link io.dplrf.ingest.IngestTarget} ({@link LocalAggregate}): the exact sum Y = Σ_i report_i of the local-DP reports
 * (d×t, docs/privacy/local-pca.md), plus the sum as of the last closed epoch, which is what is
 * released. It takes {@link LocalReport}s only (no rows, no updates) and adds no noise: each
 * report is already (ε, δ)-DP for its user, and the release is post-processing of the sum.
 *
 * <p><b>Exact.</b> Every report value is on the protocol's noise grid γℤ with |value| ≤ 2⁶²·γ
 * (checked by ingest's decoder), so value/γ is an exact {@code long}; the sum is kept in grid
 * units as 128-bit two's-complement integers (hi, lo; {@link GridSum}), which cannot overflow
 * before 2⁶⁵ reports.
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
public final class LocalTarget implements LocalAggregate {
  private static final byte[] MAGIC = "DPLRLOC1".getBytes(StandardCharsets.US_ASCII);
  private static final int VERSION = 1;

  private final LocalPcaProtocol protocol;
  private final int epochs;
  private final GridSum sum;
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
    this.sum = new GridSum(protocol.dimension() * protocol.sketchCols(),
        protocol.noise().grid().gamma());
  }

  public LocalPcaProtocol protocol() {
    return protocol;
  }

  @Override
  public String protocolId() {
    return protocol.id();
  }

  @Override
  public RecordDecoder decoder() {
    return RecordDecoder.localReports(protocol, this::addReport);
  }

  @Override
  public Map<String, Object> protocolJson(String topic) {
    return LocalPcaParts.protocolJson(protocol, topic);
  }

  @Override
  public ServedRelease release(int epoch, int k, Instant at) {
    return LocalPcaParts.release(this, epoch, k, at);
  }

  @Override
  public String banner(ServiceConfig config, String bootstrap, int httpPort, int operatorPort) {
    return LocalPcaParts.banner(config, protocol, bootstrap, httpPort, operatorPort);
  }

  @Override
  public String neighbouring() {
    return LocalPcaParts.neighbouring(protocol.clip());
  }

  @Override
  public void ingestStats(Map<String, Object> m) {
    m.put("mechanism", "local");
  }

  /** The sink of the decoder: sums one checked report. */
  public synchronized void addReport(LocalReport report) {
    if (!report.protocolId().equals(protocol.id())) {
      throw new IllegalArgumentException("report of protocol " + report.protocolId()
          + ", this aggregate's is " + protocol.id());
    }
    sum.add(report.values());
    reports++;
  }

  @Override
  public synchronized void closeEpoch() {
    if (epochsClosed >= epochs) {
      throw new IllegalStateException("all " + epochs + " epochs are closed");
    }
    sum.close();
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
    return new Dense(protocol.dimension(), protocol.sketchCols(), sum.closedValues());
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
    sum.write(d);
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
    sum.read(d);
  }

  /** Bytes of the four sum arrays. */
  @Override
  public long sizeInBytes() {
    return sum.sizeInBytes();
  }
}
