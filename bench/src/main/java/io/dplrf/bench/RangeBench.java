package io.dplrf.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.dplrf.sketch.lra.ReleasedSketches;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.tree.ContinualSketch;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.tree.TreeConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * {@code dplrf bench range}: the time and heap of a range release (the nodes of its dyadic
 * decomposition, those not kept in memory read back from their files, released and summed) beside
 * the prefix release of the same tree (its nodes all kept in memory), in the same run, at the service's sizes
 * ({@code priv2-sparse}, node files as {@code dplrf serve} keeps them).
 *
 * <p>Heap is measured as the most heap in use just after any collection during the release (GC
 * notifications): what the release held live at those moments, a lower bound of its peak, and
 * unlike the heap in use at a sample, free of garbage not yet collected. Run it under the heap the
 * service gets (the launcher's {@code -Xms4g -Xmx4g}, or {@code DPLRF_JAVA_OPTS}): a release that
 * needs more fails with OutOfMemoryError, which is reported, not thrown.
 *
 * <p>Uses a fixed test key ({@code --seed}) and {@link SplittableRandom} updates: nothing here is
 * private.
 */
public final class RangeBench {
  private final SketchSizes sizes;
  private final int epochs;
  private final long updatesPerEpoch;
  private final int from;
  private final int to;
  private final long seed;

  public RangeBench(SketchSizes sizes, int epochs, long updatesPerEpoch, int from, int to,
      long seed) {
    if (from < 1 || from > to || to > epochs || updatesPerEpoch < 0) {
      throw new IllegalArgumentException("need 1 <= from <= to <= epochs and updates >= 0."
          + " Provided values: from " + from + ", to " + to + ", epochs " + epochs + ", updates "
          + updatesPerEpoch);
    }
    this.sizes = sizes;
    this.epochs = epochs;
    this.updatesPerEpoch = updatesPerEpoch;
    this.from = from;
    this.to = to;
    this.seed = seed;
  }

  /** One release: its seconds, the heap in use after GC before it, and the most during it. */
  public record Result(String what, double seconds, long heapBefore, long heapPeakAfterGc,
      boolean outOfMemory) {}

  public List<Result> run(PrintStream out) throws IOException {
    Path dir = Files.createTempDirectory("dplrf-range-bench");
    List<Result> results = new ArrayList<>();
    try {
      TreeConfig config = new TreeConfig(Mechanism.PRIV2_SPARSE, sizes,
          new PrivacyParams(1, 1e-6), 1, epochs, true);
      ContinualSketch tree = ContinualSketch.create(config, SecretKey.forTesting(seed),
          "bench/range", dir.resolve("nodes"));
      SplittableRandom rnd = new SplittableRandom(seed);
      long t0 = System.nanoTime();
      for (int e = 1; e <= to; e++) {
        for (long u = 0; u < updatesPerEpoch; u++) {
          tree.update(rnd.nextInt(sizes.m()), rnd.nextInt(sizes.n()), rnd.nextDouble(-1, 1));
        }
        tree.closeEpoch();
      }
      out.printf("== range release: %d x %d, k = %d, priv2-sparse (t = %d, v = %d), T = %d, %d"
          + " epochs of %d updates closed in %.1f s; %.1f MiB of sketches in memory, max heap"
          + " %.0f MiB%n", sizes.m(), sizes.n(), sizes.k(), sizes.t(), sizes.v(), epochs, to,
          updatesPerEpoch, (System.nanoTime() - t0) / 1e9, mib(tree.sizeInBytes()),
          mib(Runtime.getRuntime().maxMemory()));
      results.add(measure("range [" + from + ", " + to + "]",
          () -> tree.releaseRange(from, to), out));
      results.add(measure("prefix [1, " + to + "] (its nodes kept)",
          () -> tree.releasePrefix(to), out));
    } finally {
      IngestBench.deleteTree(dir);
    }
    return results;
  }

  /** Times one release and its heap; an OutOfMemoryError is reported in the result, not thrown. */
  static Result measure(String what, Supplier<ReleasedSketches> release, PrintStream out) {
    System.gc();
    long before = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    AtomicLong peak = new AtomicLong(before);
    NotificationListener listener = (Notification n, Object handback) -> {
      if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
        long used = 0;
        for (MemoryUsage u : GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData())
            .getGcInfo().getMemoryUsageAfterGc().values()) {
          used += u.getUsed();
        }
        peak.accumulateAndGet(used, Math::max);
      }
    };
    List<NotificationEmitter> emitters = new ArrayList<>();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter e) {
        e.addNotificationListener(listener, null, null);
        emitters.add(e);
      }
    }
    long t0 = System.nanoTime();
    boolean oom = false;
    try {
      release.get();
    } catch (OutOfMemoryError e) {
      oom = true;
    } finally {
      for (NotificationEmitter e : emitters) {
        try {
          e.removeNotificationListener(listener);
        } catch (javax.management.ListenerNotFoundException ignored) {
          // added above
        }
      }
    }
    double s = (System.nanoTime() - t0) / 1e9;
    Result r = new Result(what, s, before, peak.get(), oom);
    out.printf("%-40s %s in %.1f s; heap in use after GC: %.0f MiB before, at most %.0f MiB"
        + " during (+%.0f MiB)%n", what, oom ? "OutOfMemoryError" : "released", s, mib(before),
        mib(r.heapPeakAfterGc()), mib(r.heapPeakAfterGc() - before));
    return r;
  }

  private static double mib(long bytes) {
    return bytes / (1024.0 * 1024);
  }
}
