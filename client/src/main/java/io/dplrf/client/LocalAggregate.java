package io.dplrf.client;

import io.dplrf.sketch.matrix.Dense;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * The server side of a {@link LocalProtocol}, and all of it that touches reports: the sum of the
 * reports, part by part (local-DP PCA: Y = Σ_i report_i = AᵀAΦ + Σ_i N_i; LOCAL-ROBUST-PCA,
 * Algorithm 3 line 9: Yr = ΦA + Σ N1_i and Z = SAT + Σ N2_i, the central ROBUST-PCA sketches with
 * the noise of every report). It accepts {@link LocalReport}s of its protocol only — there is no
 * way to add a row. Summing is post-processing of private reports, so the sums and anything
 * computed from them (the rank-k basis, in the release module) are private for every user.
 *
 * <p><b>Exact.</b> Every value of a report lies on its part's power-of-two grid γℤ (the
 * randomizer makes them so and the codec checks it), so value/γ is an exact integer; each part is
 * summed in grid units as 128-bit integers ({@link GridSum}). Decoded reports are within 2⁶²·γ
 * ({@link ReportPart#exactBound()}), so 2⁶⁵ of them cannot overflow; a report whose addition
 * would overflow is refused, never wrapped. The sums are independent of the order of the reports
 * and converted to doubles only when read.
 *
 * <p><b>One report per slot</b> when the protocol has slots: a bit per slot i ∈ [0, m) says
 * whether slot i is in the sums, and {@link #add} refuses (returns false, changes nothing) a
 * report for a slot already counted, so repeated reports of one user never compose in the sums.
 * The decision depends on the slots alone (public), never on a report's values.
 *
 * <p><b>Epochs.</b> A streaming server releases after every epoch from the sums at its close:
 * {@link #closeEpoch} copies the live sums aside, {@link #closedSum} and {@link #reportsAtClose}
 * return them. {@link #writeState} writes everything (counts, slot bits, live and closed sums)
 * bit for bit, so a restored aggregate continues exactly. Layout (big-endian), the body of the
 * service's local snapshot:
 *
 * <pre>
 *  reports int64, reportsAtClose int64,
 *  slot bits ⌈m/64⌉ × int64 (bit i of word i/64 = slot i counted; none without slots),
 *  per part, in order: live sum then closed sum, each size × (hi int64, lo int64), row-major
 * </pre>
 *
 * <p>{@link #reports()} is the number of reports summed. In the local model the server sees every
 * report arrive, and the protection is against replacing a user's row, which leaves the count
 * unchanged; dplrf still does not write it to release files (it is for the operator).
 *
 * <p>Thread-safe.
 */
public final class LocalAggregate {
  private final LocalProtocol protocol;
  private final GridSum[] sums;
  private final long[] slots;
  private long reports;
  private long reportsAtClose;

  /** An empty aggregate of {@code protocol}'s reports. */
  public LocalAggregate(LocalProtocol protocol) {
    this.protocol = Objects.requireNonNull(protocol, "protocol");
    List<ReportPart> parts = protocol.parts();
    this.sums = new GridSum[parts.size()];
    for (int p = 0; p < sums.length; p++) {
      sums[p] = new GridSum(parts.get(p).size(), parts.get(p).gamma());
    }
    this.slots = new long[(protocol.slots() + 63) / 64];
  }

  public LocalProtocol protocol() {
    return protocol;
  }

  /**
   * Adds one report, unless its protocol has slots and its slot is counted already.
   *
   * @return false if the report's slot already has a report in the sums (nothing changed)
   * @throws IllegalArgumentException if the report was made under another protocol (nothing
   *     changed)
   * @throws ArithmeticException if a sum would leave 128 bits ({@link GridSum}; nothing changed)
   */
  public synchronized boolean add(LocalReport report) {
    Objects.requireNonNull(report, "report");
    if (!report.protocolId().equals(protocol.id())) {
      throw new IllegalArgumentException("report of protocol " + report.protocolId()
          + " does not belong to protocol " + protocol.id());
    }
    int slot = report.slotOrNone();
    if (slot != LocalProtocol.NO_SLOT && counted(slot)) {
      return false;
    }
    for (int p = 0; p < sums.length; p++) {
      if (!sums[p].fits(report.valuesUnsafe(p))) {
        throw new ArithmeticException("part " + protocol.parts().get(p).name()
            + " of the report would take the exact sum beyond 128 bits");
      }
    }
    if (slot != LocalProtocol.NO_SLOT) {
      slots[slot >>> 6] |= 1L << (slot & 63);
    }
    for (int p = 0; p < sums.length; p++) {
      sums[p].add(report.valuesUnsafe(p));
    }
    reports++;
    return true;
  }

  /** True if slot {@code i} has a report in the sums (always false without slots). */
  public synchronized boolean counted(int i) {
    if (i < 0 || i >= protocol.slots()) {
      return false;
    }
    return (slots[i >>> 6] & (1L << (i & 63))) != 0;
  }

  /** The number of reports summed (exact; see the class comment). */
  public synchronized long reports() {
    return reports;
  }

  /** Part {@code part} of the live sum, in the units of the reports (rounded from exact). */
  public synchronized Dense sum(int part) {
    ReportPart p = protocol.parts().get(part);
    return new Dense(p.rows(), p.cols(), sums[part].values());
  }

  /** Copies the live sums and count aside: {@link #closedSum} and {@link #reportsAtClose}. */
  public synchronized void closeEpoch() {
    for (GridSum s : sums) {
      s.close();
    }
    reportsAtClose = reports;
  }

  /** Part {@code part} of the sum at the last {@link #closeEpoch} (zero before the first). */
  public synchronized Dense closedSum(int part) {
    ReportPart p = protocol.parts().get(part);
    return new Dense(p.rows(), p.cols(), sums[part].closedValues());
  }

  /** Reports in the closed sums. */
  public synchronized long reportsAtClose() {
    return reportsAtClose;
  }

  /** Writes counts, slot bits and sums (class comment); a server's snapshot only. */
  public synchronized void writeState(DataOutput out) throws IOException {
    out.writeLong(reports);
    out.writeLong(reportsAtClose);
    for (long w : slots) {
      out.writeLong(w);
    }
    for (GridSum s : sums) {
      s.write(out);
    }
  }

  /** Replaces everything with what {@link #writeState} wrote for this protocol. */
  public synchronized void readState(DataInput in) throws IOException {
    reports = in.readLong();
    reportsAtClose = in.readLong();
    for (int w = 0; w < slots.length; w++) {
      slots[w] = in.readLong();
    }
    for (GridSum s : sums) {
      s.read(in);
    }
  }

  /** Bytes of the sums (live and closed, 128 bits an entry) and of the slot bits. */
  public long sizeInBytes() {
    long n = 8L * slots.length;
    for (GridSum s : sums) {
      n += s.sizeInBytes();
    }
    return n;
  }
}
