package io.dplrf.client;

import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The one message a user sends under a {@link LocalProtocol}: the noisy parts of the query of
 * the user's clipped row ({@link LocalProtocol#parts()}: Y = round(x xᵀΦ) + N for local-DP PCA;
 * Yr_i and Z_i for LOCAL-ROBUST-PCA), and the user's slot when the protocol has slots (public:
 * which public columns she used, not data). It is private with respect to the row by itself
 * ((ε, δ)-DP or ε-DP, as its protocol says), so it may be sent, stored and published.
 *
 * <p>The constructor is package-private: in this library a report is made only by {@link
 * LocalRandomizer#report} (which clips, sketches and adds the calibrated noise) or decoded from
 * bytes by {@link LocalReportCodec#decode} (which checks the protocol, shape, slot and that every
 * value lies on its part's grid within {@link ReportPart#exactBound()}). The server's {@link
 * LocalAggregate} accepts nothing else — no {@code double[]} rows — so server code cannot be
 * handed an unnoised row by mistake. (A remote client could of course send bytes without noise;
 * that only gives up its own privacy, never another user's.)
 *
 * <p>Immutable and thread-safe.
 */
public final class LocalReport {
  private final LocalProtocol protocol;
  private final int slot;
  private final double[][] parts;

  /**
   * A report of {@code protocol}; {@code slot} is {@link LocalProtocol#NO_SLOT} when the protocol
   * has none; {@code parts} (not copied) have the protocol's shapes.
   */
  LocalReport(LocalProtocol protocol, int slot, double[][] parts) {
    this.protocol = Objects.requireNonNull(protocol, "protocol");
    List<ReportPart> shapes = protocol.parts();
    if (parts.length != shapes.size()) {
      throw new IllegalArgumentException("a report of " + protocol.mechanism() + " has "
          + shapes.size() + " parts, got " + parts.length);
    }
    for (int p = 0; p < parts.length; p++) {
      if (parts[p].length != shapes.get(p).size()) {
        ReportPart s = shapes.get(p);
        throw new IllegalArgumentException("part " + s.name() + " (" + s.rows() + "x" + s.cols()
            + ") needs " + s.size() + " values, got " + parts[p].length);
      }
    }
    if (protocol.hasSlots() ? slot < 0 || slot >= protocol.slots() : slot != LocalProtocol.NO_SLOT) {
      throw new IllegalArgumentException("slot " + slot + " for a protocol with "
          + protocol.slots() + " slots");
    }
    this.slot = slot;
    this.parts = parts;
  }

  /** The protocol the report was made (or decoded) under. */
  public LocalProtocol protocol() {
    return protocol;
  }

  /** {@link LocalProtocol#id()} of the protocol the report was made under. */
  public String protocolId() {
    return protocol.id();
  }

  /** The user's slot i, 0 ≤ i &lt; m, if the protocol has slots; empty otherwise. */
  public OptionalInt slot() {
    return slot == LocalProtocol.NO_SLOT ? OptionalInt.empty() : OptionalInt.of(slot);
  }

  /** The shapes and grids of the parts ({@link LocalProtocol#parts()}). */
  public List<ReportPart> parts() {
    return protocol.parts();
  }

  /** Part {@code part}, row-major (a copy). */
  public double[] values(int part) {
    return parts[part].clone();
  }

  /** The slot, or {@link LocalProtocol#NO_SLOT}. */
  int slotOrNone() {
    return slot;
  }

  /** The backing array of part {@code part}, for the aggregate and the codec. */
  double[] valuesUnsafe(int part) {
    return parts[part];
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("LocalReport[").append(protocol.mechanism())
        .append(", protocol=").append(protocol.id());
    if (slot != LocalProtocol.NO_SLOT) {
      b.append(", slot=").append(slot);
    }
    for (ReportPart p : protocol.parts()) {
      b.append(", ").append(p.name()).append(' ').append(p.rows()).append('x').append(p.cols());
    }
    return b.append(']').toString();
  }
}
