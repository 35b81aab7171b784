package io.dplrf.deploy.serve.local;

import io.dplrf.client.LocalAggregate;
import io.dplrf.client.LocalProtocol;
import io.dplrf.client.LocalReport;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.ingest.IngestTarget;
import io.dplrf.ingest.RecordDecoder;
import io.dplrf.sketch.matrix.Dense;
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
import java.util.Objects;
import java.util.function.Function;

/**
 * Local mode's {@link IngestTarget}, for either local protocol: the exact sums of the reports,
 * part by part, at most one report per user slot where the protocol has slots ({@link
 * LocalAggregate}), plus the sums as of the last closed epoch, which are released by the
 * protocol's post-processing ({@link ServedProtocol#release}). It takes {@link LocalReport}s only
 * (no rows, no updates) and adds no noise: each report is already private for its user, and the
 * release is post-processing of the sums.
 *
 * <p><b>Exact.</b> The sums are 128-bit integers in grid units (docs/local-service.md), so they
 * are independent of the order of the reports and identical after any restart — the snapshot
 * stores them bit for bit — and the release is a deterministic function of the set of counted
 * reports. A report whose slot is counted already is refused ({@link #addReport} returns false,
 * nothing changes), so ingest dead-letters it as {@code DUPLICATE_SLOT}; the slot bits are in the
 * snapshot, so a replay after a crash makes the same decisions for the records it re-reads.
 *
 * <p>Snapshot layout ({@link #writeState}, inside the ingest snapshot; big-endian). The two
 * protocols differ only in the tag: magic and dimensions ({@link StateTag}).
 * <pre>
 *  magic (8 bytes): "DPLRLOC1" local-DP PCA,  "DPLRLRB1" LOCAL-ROBUST-PCA
 *  version int32 = 1, protocol id (UTF)
 *  dimensions int32 each: DPLRLOC1 d, t;  DPLRLRB1 m, d, t, v
 *  epochs T int32, epochsClosed int32
 *  the aggregate ({@link LocalAggregate#writeState}): reports int64, reportsAtClose int64,
 *    slot bits ⌈m/64⌉ × int64 (DPLRLRB1 only),
 *    per part live then closed sum, each entry (hi int64, lo int64), row-major:
 *    DPLRLOC1 Y (d·t);  DPLRLRB1 Yr (t·d), then Z (v·v)
 * </pre>
 *
 * <p>Thread-safety: {@link #addReport} from the ingest thread, {@link #release} from the release
 * thread; all synchronized on this.
 */
public final class LocalTarget implements IngestTarget {
  private static final int VERSION = 1;

  /**
   * A snapshot's tag: its 8-byte magic, what the state is called in refusals, and the
   * dimensions of the protocol it records, by name.
   */
  record StateTag(String magic, String what, List<String> names,
      Function<LocalProtocol, int[]> dimensions) {}

  /** Local-DP PCA: d, t. */
  static final StateTag DPLRLOC1 = new StateTag("DPLRLOC1", "local-mode", List.of("d", "t"),
      p -> new int[] {p.dimension(), p.parts().get(0).cols()});

  /** LOCAL-ROBUST-PCA: m, d, t, v. */
  static final StateTag DPLRLRB1 = new StateTag("DPLRLRB1", "local-robust",
      List.of("m", "d", "t", "v"), p -> new int[] {p.slots(), p.dimension(),
          p.parts().get(0).rows(), p.parts().get(1).rows()});

  private final ServedProtocol served;
  private final LocalAggregate sums;
  private final int epochs;
  private int epochsClosed;

  /** An empty aggregate for {@code protocol}, releasing after each of {@code epochs} epochs. */
  public LocalTarget(LocalProtocol protocol, int epochs) {
    this(ServedProtocol.of(protocol), epochs);
  }

  LocalTarget(ServedProtocol served, int epochs) {
    this.served = Objects.requireNonNull(served, "served");
    if (epochs < 1) {
      throw new IllegalArgumentException("epochs must be >= 1. Provided value: " + epochs);
    }
    this.epochs = epochs;
    this.sums = new LocalAggregate(served.protocol());
  }

  public LocalProtocol protocol() {
    return served.protocol();
  }

  ServedProtocol served() {
    return served;
  }

  /** The decoder of this protocol's reports into this target. */
  public RecordDecoder decoder() {
    return RecordDecoder.localReports(served.protocol(), this::addReport);
  }

  /** The sink of the decoder: sums one checked report; false if its slot is counted already. */
  public synchronized boolean addReport(LocalReport report) {
    return sums.add(report);
  }

  /** True if slot {@code i} has a report in the sums. */
  public synchronized boolean counted(int i) {
    return sums.counted(i);
  }

  @Override
  public synchronized void closeEpoch() {
    if (epochsClosed >= epochs) {
      throw new IllegalStateException("all " + epochs + " epochs are closed");
    }
    sums.closeEpoch();
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

  /** Reports (with slots: slots) summed so far (exact, operator-only: not released). */
  public synchronized long reports() {
    return sums.reports();
  }

  /** Reports in the released sums, i.e. up to the last epoch close (exact, operator-only). */
  public synchronized long reportsAtClose() {
    return sums.reportsAtClose();
  }

  /** Part {@code part} of the sums as of the last closed epoch (rounded from exact). */
  public synchronized Dense closedSum(int part) {
    return sums.closedSum(part);
  }

  /** The release after {@code epoch}, computed from the sums at the last close. */
  public ServedRelease release(int epoch, int k, Instant at) {
    List<Dense> closed = new ArrayList<>();
    long reports;
    synchronized (this) { // the parts and the count of one close, not of two
      for (int part = 0; part < served.protocol().parts().size(); part++) {
        closed.add(sums.closedSum(part));
      }
      reports = sums.reportsAtClose();
    }
    return served.release(closed, reports, epoch, k, at);
  }

  @Override
  public synchronized void writeState(OutputStream out) throws IOException {
    DataOutputStream d = new DataOutputStream(out);
    StateTag tag = served.stateTag();
    LocalProtocol p = served.protocol();
    d.write(tag.magic().getBytes(StandardCharsets.US_ASCII));
    d.writeInt(VERSION);
    d.writeUTF(p.id());
    for (int x : tag.dimensions().apply(p)) {
      d.writeInt(x);
    }
    d.writeInt(epochs);
    d.writeInt(epochsClosed);
    sums.writeState(d);
    d.flush();
  }

  /**
   * Restores; refuses a state of the other protocol, another protocol id, dimensions or T (a new
   * run needs a new state directory).
   */
  @Override
  public synchronized void readState(InputStream in) throws IOException {
    DataInputStream d = new DataInputStream(in);
    StateTag tag = served.stateTag();
    LocalProtocol p = served.protocol();
    byte[] magic = d.readNBytes(tag.magic().length());
    if (!Arrays.equals(magic, tag.magic().getBytes(StandardCharsets.US_ASCII))) {
      throw new IOException("the snapshot holds no " + tag.what() + " aggregate (magic "
          + new String(magic, StandardCharsets.US_ASCII) + "); a state directory of another "
          + "mode or local-mechanism cannot be continued: use a new state directory");
    }
    int version = d.readInt();
    if (version != VERSION) {
      throw new IOException(tag.what() + " aggregate version " + version + ", this build reads "
          + VERSION);
    }
    String id = d.readUTF();
    int[] mine = tag.dimensions().apply(p);
    int[] theirs = new int[mine.length];
    for (int e = 0; e < theirs.length; e++) {
      theirs[e] = d.readInt();
    }
    int theirEpochs = d.readInt();
    if (!id.equals(p.id()) || !Arrays.equals(theirs, mine) || theirEpochs != epochs) {
      throw new IOException("the state directory holds reports of protocol " + id + " ("
          + described(tag, theirs, theirEpochs) + "), configured " + p.id() + " ("
          + described(tag, mine, epochs) + "): reports of two protocols cannot be summed; use a"
          + " new state directory");
    }
    epochsClosed = d.readInt();
    sums.readState(d);
  }

  private static String described(StateTag tag, int[] dimensions, int epochs) {
    StringBuilder s = new StringBuilder();
    for (int e = 0; e < dimensions.length; e++) {
      s.append(tag.names().get(e)).append(" = ").append(dimensions[e]).append(", ");
    }
    return s.append("T = ").append(epochs).toString();
  }

  /** Bytes of the sums (live and closed) and the slot bits. */
  public long sizeInBytes() {
    return sums.sizeInBytes();
  }
}
