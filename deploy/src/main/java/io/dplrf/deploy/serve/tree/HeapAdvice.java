package io.dplrf.deploy.serve.tree;

import io.dplrf.sketch.lra.Priv2Sketch;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.continual.BltConfig;
import io.dplrf.sketch.tree.TreeConfig;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The heap a continual stream may need, estimated at start from its sizes (an estimate, not a
 * bound; docs/operations.md §7).
 *
 * <ul>
 *   <li>A Priv2 tree (node files, pipelined closes): the prefix nodes kept in memory grow with the
 *       epoch count. Where the estimate passes the heap, the service keeps fewer of them in memory
 *       ({@link #nodesInMemory}) and says so at start ({@link #advice}), rather than run out of
 *       memory weeks later.
 *   <li>A BLT stream: its 2d + 1 state sketches are all read and written at every close, so none
 *       can move to disk; its peak is the same at the first epoch as at the last. Where it passes
 *       the heap the service refuses to start ({@link #bltRefusal}) instead of failing on its
 *       first allocation.
 * </ul>
 */
final class HeapAdvice {
  /** The share of the maximum heap the estimate may take (G1 needs room to move). */
  static final double SHARE = 0.9;
  /**
   * Heap left for the rest of the service: the Kafka clients' buffers (a fetch response of up to
   * 50 MiB, the dead-letter producer's 32 MiB), the embedded broker when there is one, HTTP.
   */
  static final long RESERVE = 256L << 20;

  private HeapAdvice() {}

  /**
   * Bytes of sketches at the peak: each of B = 8·(m·t + n·v) bytes (Y and Zᵀ,
   * {@link Priv2Sketch#stateBytes}), at most
   * ⌊log₂(T+1)⌋ prefix nodes kept (the decomposition of [1, e] has popcount(e) nodes), plus six:
   * the accumulator and its spare (pipelined close), the leaf a close makes (its parents are made
   * from it in place; counted all the same, on the safe side), and a release's sum, noisy copy
   * and node read from its file; plus the {@code priv2-sparse} update buffer. Empty for other
   * mechanisms (their nodes differ).
   */
  static OptionalLong peakBytes(TreeConfig c) {
    if (c.mechanism() != Mechanism.PRIV2 && c.mechanism() != Mechanism.PRIV2_SPARSE) {
      return OptionalLong.empty();
    }
    long node = Priv2Sketch.stateBytes(c.sizes());
    long buffer = c.mechanism() == Mechanism.PRIV2_SPARSE
        ? Priv2Sketch.updateBufferBytes(c.sizes()) : 0;
    return OptionalLong.of((kept(c.epochs()) + 6L) * node + buffer);
  }

  /**
   * How many prefix nodes to keep in memory ({@code ContinualSketch#keepInMemoryAtMost}) when
   * {@link #peakBytes} passes the sketches' share of {@code maxHeap} ({@link #budget}): as many as
   * fit beside the six other sketches, the buffer and one more sketch, a left sibling a close
   * reads back from its file (possibly 0); empty when all of them fit, or for other mechanisms.
   */
  static OptionalInt nodesInMemory(TreeConfig c, long maxHeap) {
    OptionalLong peak = peakBytes(c);
    if (peak.isEmpty() || peak.getAsLong() <= budget(maxHeap)) {
      return OptionalInt.empty();
    }
    long node = Priv2Sketch.stateBytes(c.sizes());
    long others = peak.getAsLong() - (kept(c.epochs()) - 1) * node;
    return OptionalInt.of((int) Math.max(0, Math.floor((budget(maxHeap) - others) / node)));
  }

  /**
   * What to log at start when {@link #peakBytes} passes the sketches' share of {@code maxHeap}: how
   * many prefix nodes are kept in memory ({@link #nodesInMemory}) and the heap that would keep
   * them all; a WARNING if even none kept leaves too little.
   */
  static Optional<String> advice(TreeConfig c, long maxHeap) {
    OptionalInt inMemory = nodesInMemory(c, maxHeap);
    if (inMemory.isEmpty()) {
      return Optional.empty();
    }
    SketchSizes s = c.sizes();
    long node = Priv2Sketch.stateBytes(s);
    long peak = peakBytes(c).getAsLong();
    int kept = kept(c.epochs());
    long gib = 1L << 30;
    long advised = (long) Math.ceil((peak + RESERVE) / SHARE / gib);
    String sizes = String.format(Locale.ROOT, "with %d x %d, t = %d, v = %d and epochs = %d the"
        + " sketches would need about %.1f GiB of heap by the last epochs (up to %d prefix nodes"
        + " of %.0f MiB kept in memory, the accumulator and its spare, a close's new node, a"
        + " release's working set), more than the %.1f GiB this JVM's %.1f GiB leaves them (%.0f%%,"
        + " less %d MiB for Kafka and the rest)", s.m(), s.n(), s.t(), s.v(), c.epochs(),
        peak / (double) gib, kept, node / (1024.0 * 1024), budget(maxHeap) / gib,
        maxHeap / (double) gib, SHARE * 100, RESERVE >> 20);
    long withNone = peak - (kept - 1) * node; // a left sibling read back at a close
    if (withNone > budget(maxHeap)) {
      return Optional.of(String.format(Locale.ROOT, "dplrf: WARNING %s, and %.1f GiB even with no"
          + " prefix node in memory: set DPLRF_JAVA_OPTS=\"-Xms%dg -Xmx%dg\" or use smaller"
          + " sketches (docs/operations.md §7)", sizes, withNone / (double) gib, advised,
          advised));
    }
    return Optional.of(String.format(Locale.ROOT, "dplrf: %s: at most %d prefix node(s) are kept"
        + " in memory, the others read from nodes/ when a release or an epoch close needs them"
        + " (one %.0f MiB file read each); DPLRF_JAVA_OPTS=\"-Xms%dg -Xmx%dg\" keeps them all"
        + " (docs/operations.md §7)", sizes, inMemory.getAsInt(), node / (1024.0 * 1024),
        advised, advised));
  }

  /**
   * Bytes of sketches a BLT stream with {@code buffers} buffers holds at its peak, constant over
   * the epochs: its 2d + 1 state sketches (encoder and decoder buffers, R_t), the accumulator and
   * its spare (pipelined close; a close encodes, noises and decodes in place), and a release's
   * working set, as the tree's: R_e and R_{s−1} read from their files and a copy post-processing
   * makes (three); plus the {@code priv2-sparse} update buffer.
   */
  static long peakBytes(BltConfig c, int buffers) {
    long sketch = Priv2Sketch.stateBytes(c.sizes());
    long buffer = c.mechanism() == Mechanism.PRIV2_SPARSE
        ? Priv2Sketch.updateBufferBytes(c.sizes()) : 0;
    return (2L * buffers + 6) * sketch + buffer;
  }

  /**
   * Why a BLT stream cannot start in {@code maxHeap}: its {@link #peakBytes} passes the sketches'
   * share ({@link #budget}); empty when it fits.
   */
  static Optional<String> bltRefusal(BltConfig c, int buffers, long maxHeap, long machine) {
    long peak = peakBytes(c, buffers);
    if (peak <= budget(maxHeap)) {
      return Optional.empty();
    }
    SketchSizes s = c.sizes();
    long gib = 1L << 30;
    long advised = (long) Math.ceil((peak + RESERVE) / SHARE / gib);
    String needs = String.format(Locale.ROOT, "with %d x %d, t = %d, v = %d the continual"
        + " factorization (%d buffers) needs about %.1f GiB of heap for its sketches (%d of %.0f"
        + " MiB), more than the %.1f GiB this JVM's %.1f GiB leaves them", s.m(), s.n(), s.t(),
        s.v(), buffers, peak / (double) gib, 2 * buffers + 6,
        Priv2Sketch.stateBytes(s) / (1024.0 * 1024), budget(maxHeap) / gib,
        maxHeap / (double) gib);
    String instead = "use smaller sketches, or continual = tree (more noise; its nodes can wait"
        + " on disk) (docs/operations.md §7)";
    if (machine > 0 && advised * gib > machine * MACHINE_SHARE) {
      return Optional.of(String.format(Locale.ROOT, "%s, and a heap of %d GiB is more than %.0f%%"
          + " of this machine's %.1f GiB of memory: %s", needs, advised, MACHINE_SHARE * 100,
          machine / (double) gib, instead));
    }
    return Optional.of(String.format(Locale.ROOT, "%s: this machine's %.1f GiB can hold it; set"
        + " DPLRF_JAVA_OPTS=\"-Xms%dg -Xmx%dg\" (the launcher's default heap is half of the"
        + " machine's memory), or %s", needs, machine / (double) gib, advised, advised, instead));
  }

  /**
   * The share of the machine's memory a heap may take before the refusal says the machine is too
   * small: the page cache (the state files, the embedded broker's log) and the system need the
   * rest.
   */
  static final double MACHINE_SHARE = 0.8;

  /** The machine's physical memory (or the container's limit), in bytes; 0 if unknown. */
  static long machineMemory() {
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getTotalMemorySize();
    }
    return 0;
  }

  /**
   * Bytes of state files a BLT stream keeps by epoch T: every prefix release R_t (ranges are
   * differences of two) and the buffers of the last two closes (4d), each a sketch of {@link
   * Priv2Sketch#stateBytes} (the files' headers add a few hundred bytes).
   */
  static long diskBytes(BltConfig c, int buffers) {
    return (c.epochs() + 4L * buffers) * Priv2Sketch.stateBytes(c.sizes());
  }

  /**
   * Bytes of node files a Priv2 tree keeps by epoch T: its 2T − popcount(T) closed nodes; empty
   * for other mechanisms (their nodes differ).
   */
  static OptionalLong diskBytes(TreeConfig c) {
    if (c.mechanism() != Mechanism.PRIV2 && c.mechanism() != Mechanism.PRIV2_SPARSE) {
      return OptionalLong.empty();
    }
    long nodes = 2L * c.epochs() - Integer.bitCount(c.epochs());
    return OptionalLong.of(nodes * Priv2Sketch.stateBytes(c.sizes()));
  }

  /**
   * The start's line on the memory and disk a stream will need: its peak of sketches in the
   * heap, and the state files it keeps by epoch T beside the space free in the state directory.
   */
  static String footprint(long peakBytes, long heap, OptionalLong disk, long free, String dir) {
    long gib = 1L << 30;
    String memory = String.format(Locale.ROOT, "dplrf: sketches take about %.1f GiB of heap at"
        + " their peak (this JVM has %.1f GiB)", peakBytes / (double) gib, heap / (double) gib);
    if (disk.isEmpty()) {
      return memory;
    }
    return memory + String.format(Locale.ROOT, "; state files reach about %.1f GiB in %s by epoch"
        + " T (%.1f GiB free there now)%s", disk.getAsLong() / (double) gib, dir,
        free / (double) gib, disk.getAsLong() > free ? ": WARNING, more than is free" : "");
  }

  /** The heap the sketches may take: {@link #SHARE} of the maximum, less {@link #RESERVE}. */
  private static double budget(long maxHeap) {
    return SHARE * maxHeap - RESERVE;
  }

  /** ⌊log₂(T+1)⌋: the most prefix nodes kept, popcount(e) for e ≤ T. */
  private static int kept(int epochs) {
    return 31 - Integer.numberOfLeadingZeros(epochs + 1);
  }
}
