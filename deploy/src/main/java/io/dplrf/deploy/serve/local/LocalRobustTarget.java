package io.dplrf.deploy.serve.local;

import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.client.LocalRobustReport;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.ingest.RecordDecoder;
import io.dplrf.sketch.lra.LaplaceSketchNoise;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.SketchSizes;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Mode local's aggregate for {@code local-mechanism = local-robust} ({@link LocalAggregate}): the
 * exact sums Yr = Σ Yr_i (t×d) and Z = Σ Z_i (v×v) of the LOCAL-ROBUST-PCA reports (paper 001,
 * Appendix C, Algorithm 3 line 9; docs/privacy/local-pca.md §4), at most one per user slot, plus
 * the sums as of the last closed epoch, which are released. No noise, no key: each report is
 * already ε-DP for its user; the release is post-processing.
 *
 * <p><b>Exact.</b> Each part's values lie on its own power-of-two Laplace grid γℤ within 2⁶²·γ
 * (checked by ingest's decoder), so each part is a {@link GridSum}: 128-bit integer grid units,
 * independent of arrival order and stored bit for bit. The release is a deterministic function
 * of the set of counted reports, and a restart reproduces it.
 *
 * <p><b>One report per slot.</b> A bit per slot i ∈ [0, m) says whether slot i is in the sum;
 * {@link #addRobustReport} refuses (returns false, changes nothing) a report for a slot already
 * counted, so ingest dead-letters it as {@code DUPLICATE_SLOT}: repeated reports of one user never
 * compose in a release. The bits are part of the snapshot, so a replay after a crash makes the
 * same decisions for the records it re-reads.
 *
 * <p>Snapshot layout ({@link #writeState}, inside the ingest snapshot; big-endian):
 * <pre>
 *  magic "DPLRLRB1" (8 bytes), version int32 = 1, protocol id (UTF), m, d, t, v int32,
 *  epochs T int32, epochsClosed int32, reports int64, reportsAtClose int64,
 *  slot bits ⌈m/64⌉ × int64 (bit i of word i/64 = slot i counted),
 *  Yr live then closed: t·d × (hi int64, lo int64);  Z live then closed: v·v × (hi, lo)
 * </pre>
 *
 * <p>Thread-safety: {@link #addRobustReport} from the ingest thread; all methods synchronized.
 */
public final class LocalRobustTarget implements LocalAggregate {
  private static final byte[] MAGIC = "DPLRLRB1".getBytes(StandardCharsets.US_ASCII);
  private static final int VERSION = 1;

  private final LocalRobustProtocol protocol;
  private final int epochs;
  private final GridSum yr;
  private final GridSum z;
  private final long[] slots;
  private long reports;
  private long reportsAtClose;
  private int epochsClosed;

  /** An empty aggregate for {@code protocol}, releasing after each of {@code epochs} epochs. */
  public LocalRobustTarget(LocalRobustProtocol protocol, int epochs) {
    this.protocol = Objects.requireNonNull(protocol, "protocol");
    if (epochs < 1) {
      throw new IllegalArgumentException("epochs must be >= 1. Provided value: " + epochs);
    }
    this.epochs = epochs;
    SketchSizes sz = protocol.sizes();
    this.yr = new GridSum(sz.t() * sz.n(), protocol.plan().yr().grid().gamma());
    this.z = new GridSum(sz.v() * sz.v(), protocol.plan().z().grid().gamma());
    this.slots = new long[(sz.m() + 63) / 64];
  }

  public LocalRobustProtocol protocol() {
    return protocol;
  }

  @Override
  public String protocolId() {
    return protocol.id();
  }

  @Override
  public RecordDecoder decoder() {
    return RecordDecoder.localRobustReports(protocol, this::addRobustReport);
  }

  @Override
  public Map<String, Object> protocolJson(String topic) {
    return LocalRobustParts.protocolJson(protocol, topic);
  }

  @Override
  public ServedRelease release(int epoch, int k, Instant at) {
    return LocalRobustParts.release(this, epoch, k, at);
  }

  @Override
  public String banner(ServiceConfig config, String bootstrap, int httpPort, int operatorPort) {
    return LocalRobustParts.banner(config, protocol, bootstrap, httpPort, operatorPort);
  }

  @Override
  public String neighbouring() {
    return LocalRobustParts.neighbouring(protocol.clip());
  }

  @Override
  public void ingestStats(Map<String, Object> m) {
    m.put("mechanism", "local-robust");
    m.put("slots", protocol.users()); // m, public; reportsApplied = slots counted
  }

  /** The sink of the decoder: sums one checked report, false if its slot is counted already. */
  public synchronized boolean addRobustReport(LocalRobustReport report) {
    SketchSizes sz = protocol.sizes();
    if (!report.protocolId().equals(protocol.id()) || report.t() != sz.t()
        || report.d() != sz.n() || report.v() != sz.v()) {
      throw new IllegalArgumentException("report of protocol " + report.protocolId()
          + ", this aggregate's is " + protocol.id());
    }
    int i = report.slot();
    if (i < 0 || i >= sz.m()) {
      throw new IllegalArgumentException("slot " + i + " outside [0, " + sz.m() + ")");
    }
    if (counted(i)) {
      return false;
    }
    yr.add(report.yr());
    z.add(report.z());
    slots[i >>> 6] |= 1L << (i & 63);
    reports++;
    return true;
  }

  /** True if slot {@code i} has a report in the sum. */
  public synchronized boolean counted(int i) {
    return (slots[i >>> 6] & (1L << (i & 63))) != 0;
  }

  @Override
  public synchronized void closeEpoch() {
    if (epochsClosed >= epochs) {
      throw new IllegalStateException("all " + epochs + " epochs are closed");
    }
    yr.close();
    z.close();
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

  /** Reports (= slots) summed so far (exact, operator-only: not released). */
  public synchronized long reports() {
    return reports;
  }

  /** Reports in the released sums, i.e. up to the last epoch close (exact, operator-only). */
  public synchronized long reportsAtClose() {
    return reportsAtClose;
  }

  /**
   * The sums as of the last closed epoch as ROBUST-PCA's bundle (Yr, Z, the public S and Tᵀ),
   * in the units of the reports (rounded from exact), for {@code RobustRelease.basis}; as {@code
   * LocalRobustAggregate.sketches()}, noise per part that of {@link #reportsAtClose} reports.
   */
  public synchronized RobustSketches closedSketches() {
    SketchSizes sz = protocol.sizes();
    RobustMatrices mats = protocol.matrices();
    List<NoiseScale> noise = new ArrayList<>();
    for (LaplaceSketchNoise part : List.of(protocol.plan().yr(), protocol.plan().z())) {
      NoiseScale one = part.scale(part == protocol.plan().yr() ? yr.size() : z.size());
      noise.add(new NoiseScale(one.sketch(), one.sigma() * Math.sqrt(reportsAtClose),
          one.sensitivity(), one.entries()));
    }
    return new RobustSketches(sz.m(), sz.n(), protocol.p(),
        new Dense(sz.t(), sz.n(), yr.closedValues()), null,
        new Dense(sz.v(), sz.v(), z.closedValues()), mats.s(), mats.tTransposed(), noise);
  }

  @Override
  public synchronized void writeState(OutputStream out) throws IOException {
    DataOutputStream d = new DataOutputStream(out);
    SketchSizes sz = protocol.sizes();
    d.write(MAGIC);
    d.writeInt(VERSION);
    d.writeUTF(protocol.id());
    for (int x : new int[] {sz.m(), sz.n(), sz.t(), sz.v(), epochs, epochsClosed}) {
      d.writeInt(x);
    }
    d.writeLong(reports);
    d.writeLong(reportsAtClose);
    for (long w : slots) {
      d.writeLong(w);
    }
    yr.write(d);
    z.write(d);
    d.flush();
  }

  /** Restores; refuses a state of another protocol, shape or T (a new run needs a new state-dir). */
  @Override
  public synchronized void readState(InputStream in) throws IOException {
    DataInputStream d = new DataInputStream(in);
    byte[] magic = d.readNBytes(MAGIC.length);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new IOException("the snapshot holds no local-robust aggregate (magic "
          + new String(magic, StandardCharsets.US_ASCII) + "); a state directory of another "
          + "mode or local-mechanism cannot be continued: use a new state directory");
    }
    int version = d.readInt();
    if (version != VERSION) {
      throw new IOException("local-robust aggregate version " + version + ", this build reads 1");
    }
    String id = d.readUTF();
    int[] shape = new int[5];
    for (int e = 0; e < shape.length; e++) {
      shape[e] = d.readInt();
    }
    SketchSizes sz = protocol.sizes();
    int[] mine = {sz.m(), sz.n(), sz.t(), sz.v(), epochs};
    if (!id.equals(protocol.id()) || !Arrays.equals(shape, mine)) {
      throw new IOException("the state directory holds reports of protocol " + id + " (m, d, t,"
          + " v, T = " + Arrays.toString(shape) + "), configured " + protocol.id() + " ("
          + Arrays.toString(mine) + "): reports of two protocols cannot be summed; use a new"
          + " state directory");
    }
    epochsClosed = d.readInt();
    reports = d.readLong();
    reportsAtClose = d.readLong();
    for (int w = 0; w < slots.length; w++) {
      slots[w] = d.readLong();
    }
    yr.read(d);
    z.read(d);
  }

  @Override
  public long sizeInBytes() {
    return yr.sizeInBytes() + z.sizeInBytes() + 8L * slots.length;
  }
}
