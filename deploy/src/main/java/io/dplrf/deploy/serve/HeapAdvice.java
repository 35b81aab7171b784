package io.dplrf.deploy.serve;

import io.dplrf.sketch.lra.Priv2Sketch;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.tree.StreamMechanism;
import io.dplrf.sketch.tree.TreeConfig;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Start-up advice on the heap a Priv2 tree (node files, pipelined closes) may need by its last
 * epochs, so that an operator learns it at start rather than from an OutOfMemoryError weeks
 * later: the prefix nodes kept in memory grow with the epoch count. An estimate from the sizes,
 * not a bound (docs/operations.md §7).
 */
final class HeapAdvice {
  /** Warn when the estimate passes this share of the maximum heap (G1 needs room to move). */
  static final double SHARE = 0.9;

  private HeapAdvice() {}

  /**
   * Bytes of sketches at the peak: each of B = 8·(m·t + n·v) bytes (Y and Zᵀ,
   * {@link Priv2Sketch#stateBytes}), at most
   * ⌊log₂(T+1)⌋ prefix nodes kept (the decomposition of [1, e] has popcount(e) nodes), plus six:
   * the accumulator and its spare (pipelined close), a parent made at a close, and a release's
   * sum, noisy copy and node read from its file; plus the {@code priv2-sparse} update buffer.
   * Empty for other mechanisms (their nodes differ).
   */
  static OptionalLong peakBytes(TreeConfig c) {
    if (c.mechanism() != StreamMechanism.PRIV2 && c.mechanism() != StreamMechanism.PRIV2_SPARSE) {
      return OptionalLong.empty();
    }
    long node = Priv2Sketch.stateBytes(c.sizes());
    long buffer = c.mechanism() == StreamMechanism.PRIV2_SPARSE
        ? Priv2Sketch.updateBufferBytes(c.sizes()) : 0;
    return OptionalLong.of((kept(c.epochs()) + 6L) * node + buffer);
  }

  /** The warning to log, if {@link #peakBytes} passes {@link #SHARE} of {@code maxHeap}. */
  static Optional<String> warning(TreeConfig c, long maxHeap) {
    OptionalLong peak = peakBytes(c);
    if (peak.isEmpty() || peak.getAsLong() <= SHARE * maxHeap) {
      return Optional.empty();
    }
    SketchSizes s = c.sizes();
    long node = Priv2Sketch.stateBytes(s);
    int kept = kept(c.epochs());
    long gib = 1L << 30;
    long advised = (long) Math.ceil(peak.getAsLong() / SHARE / gib);
    return Optional.of(String.format(Locale.ROOT, "dplrf: WARNING with %d x %d, t = %d, v = %d and"
        + " epochs = %d the sketches may need about %.1f GiB of heap by the last epochs (up to %d"
        + " prefix nodes of %.0f MiB kept in memory, the accumulator and its spare, a close's new"
        + " node, a release's working set), more than %.0f%% of this JVM's %.1f GiB: set"
        + " DPLRF_JAVA_OPTS=\"-Xms%dg -Xmx%dg\" or use fewer epochs or smaller sketches"
        + " (docs/operations.md §7)", s.m(), s.n(), s.t(), s.v(), c.epochs(),
        peak.getAsLong() / (double) gib, kept, node / (1024.0 * 1024), SHARE * 100,
        maxHeap / (double) gib, advised, advised));
  }

  /** ⌊log₂(T+1)⌋: the most prefix nodes kept, popcount(e) for e ≤ T. */
  private static int kept(int epochs) {
    return 31 - Integer.numberOfLeadingZeros(epochs + 1);
  }
}
