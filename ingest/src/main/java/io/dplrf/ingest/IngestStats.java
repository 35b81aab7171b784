package io.dplrf.ingest;

import java.util.Arrays;

/**
 * Exact ingest counters and an order-independent checksum of the applied updates, for the
 * operator endpoint {@code /admin/ingest} (not public: exact counts are not private). They are
 * part of the snapshot, so after any crash and restart they equal those of one uninterrupted run
 * over the same stream.
 *
 * <ul>
 *   <li>{@code recordsConsumed}: every record read, well-formed or not;
 *   <li>{@code updatesConsumed}: updates in well-formed records (a dead-lettered record's updates
 *       are not counted: its bytes may not even be updates);
 *   <li>{@code updatesApplied}: passed to the target, possibly clipped;
 *   <li>{@code updatesClipped}: applied with a smaller |Δ| than consumed (clamped to C, or to the
 *       unit's remaining budget);
 *   <li>{@code updatesDropped}: not applied because the unit's budget was spent; consumed =
 *       applied + dropped;
 *   <li>{@code deadLettered(reason)}: records sent to the dead-letter topic.
 * </ul>
 *
 * <p>The checksum is the sum modulo 2<sup>64</sup> of {@link #updateHash} over the applied
 * updates (with the applied, bounded Δ): independent of order, so any other program can compute
 * it from the stream it produced (and the bounds).
 *
 * <p>Thread-safety: none. The ingest loop owns the live instance and publishes copies ({@link
 * IngestLoop#stats()}) that nobody mutates: the mutators are package-private.
 */
public final class IngestStats {
  private static final int REASONS = DeadLetterReason.values().length;

  long recordsConsumed;
  long updatesConsumed;
  long updatesApplied;
  long updatesClipped;
  long updatesDropped;
  final long[] deadLettered = new long[REASONS];
  long checksum;

  public IngestStats() {}

  /** An independent copy. */
  public IngestStats copy() {
    IngestStats c = new IngestStats();
    c.recordsConsumed = recordsConsumed;
    c.updatesConsumed = updatesConsumed;
    c.updatesApplied = updatesApplied;
    c.updatesClipped = updatesClipped;
    c.updatesDropped = updatesDropped;
    System.arraycopy(deadLettered, 0, c.deadLettered, 0, REASONS);
    c.checksum = checksum;
    return c;
  }

  /**
   * The 64-bit hash of one applied update, summed (mod 2<sup>64</sup>) into the checksum:
   * {@code mix(mix((i << 32) | (j & 0xffffffff)) ^ bits(Δ + 0.0))}, where {@code bits} is {@link
   * Double#doubleToLongBits} ({@code + 0.0} turns -0.0 into 0.0) and {@code mix} is the
   * SplitMix64 finalizer (Steele, Lea, Flood 2014: Stafford's variant 13).
   */
  public static long updateHash(int i, int j, double delta) {
    long h = mix(((long) i << 32) | (j & 0xFFFF_FFFFL));
    return mix(h ^ Double.doubleToLongBits(delta + 0.0));
  }

  /** The SplitMix64 finalizer: a bijection of 64-bit words with full avalanche. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  void recordConsumed() {
    recordsConsumed++;
  }

  void countDeadLetter(DeadLetterReason reason) {
    deadLettered[reason.ordinal()]++;
  }

  void applied(int i, int j, double delta, boolean clipped) {
    updatesConsumed++;
    updatesApplied++;
    if (clipped) {
      updatesClipped++;
    }
    checksum += updateHash(i, j, delta);
  }

  /**
   * Rows mode: one row applied (counted as one update: consumed, applied, and clipped if its
   * norm was reduced to C). Its checksum term is {@link #rowHash} of the applied, clipped row.
   */
  void appliedRow(int[] index, double[] x, int n, boolean clipped) {
    updatesConsumed++;
    updatesApplied++;
    if (clipped) {
      updatesClipped++;
    }
    checksum += rowHash(index, x, n);
  }

  /**
   * The 64-bit hash of one applied row: {@code mix(Σ_k updateHash(-1, j_k, x_k))} (sum mod
   * 2<sup>64</sup>), independent of the order of its non-zeros; the outer {@code mix} keeps
   * non-zeros of different rows from trading places unnoticed.
   */
  public static long rowHash(int[] index, double[] x, int n) {
    long h = 0;
    for (int k = 0; k < n; k++) {
      h += updateHash(-1, index[k], x[k]);
    }
    return mix(h);
  }

  /**
   * Local mode: one report applied (counted as one update consumed and applied; reports are never
   * clipped by the server). Its checksum term is {@code reportHash}, computed by the decoder.
   */
  void appliedReport(long reportHash) {
    updatesConsumed++;
    updatesApplied++;
    checksum += reportHash;
  }

  void dropped() {
    updatesConsumed++;
    updatesDropped++;
  }

  public long recordsConsumed() {
    return recordsConsumed;
  }

  public long updatesConsumed() {
    return updatesConsumed;
  }

  public long updatesApplied() {
    return updatesApplied;
  }

  public long updatesClipped() {
    return updatesClipped;
  }

  public long updatesDropped() {
    return updatesDropped;
  }

  public long deadLettered(DeadLetterReason reason) {
    return deadLettered[reason.ordinal()];
  }

  /** Records sent to the dead-letter topic, all reasons. */
  public long deadLetteredTotal() {
    long s = 0;
    for (long c : deadLettered) {
      s += c;
    }
    return s;
  }

  /** Order-independent checksum of the applied updates (see {@link #updateHash}). */
  public long checksum() {
    return checksum;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IngestStats s
        && recordsConsumed == s.recordsConsumed
        && updatesConsumed == s.updatesConsumed
        && updatesApplied == s.updatesApplied
        && updatesClipped == s.updatesClipped
        && updatesDropped == s.updatesDropped
        && Arrays.equals(deadLettered, s.deadLettered)
        && checksum == s.checksum;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(checksum) * 31 + Long.hashCode(updatesApplied);
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("IngestStats{records=").append(recordsConsumed)
        .append(", updatesConsumed=").append(updatesConsumed)
        .append(", applied=").append(updatesApplied)
        .append(", clipped=").append(updatesClipped)
        .append(", dropped=").append(updatesDropped);
    for (DeadLetterReason r : DeadLetterReason.values()) {
      b.append(", deadLettered.").append(r.name().toLowerCase(java.util.Locale.ROOT)).append('=')
          .append(deadLettered[r.ordinal()]);
    }
    return b.append(", checksum=").append(String.format("%016x", checksum)).append('}').toString();
  }
}
