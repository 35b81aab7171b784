package io.dplrf.deploy.bench;

import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.lra.Priv2Matrices;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.lra.Priv2Sketch;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.randomness.SparseSignMatrix;
import io.dplrf.sketch.params.Mechanism;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code dplrf bench update}: the {@code priv2-sparse} accumulator's update path without Kafka —
 * {@link NoisyLinearSketch#update} of random updates into a noiseless sparse Priv2 sketch, then
 * the flush that applies the last buffered ones ({@link NoisyLinearSketch#intoNode}), i.e. the
 * banded buffer and its two threads — beside the baseline of applying each update as it comes
 * (its s entries of Y's row i and s of Zᵀ's row j, {@link SparseSignMatrix#addColumn}, without
 * {@code update}'s index and finiteness checks; embeddings of the same shape and distribution), on
 * the same updates in the same run, alternating, a fresh sketch per round.
 *
 * <p>The updates are a block of 2²² uniform (i, j, Δ), Δ uniform in [−1, 1), generated before
 * timing and cycled; nothing here is private ({@link SplittableRandom}). Process CPU counts all
 * threads (the flush's worker too).
 */
public final class UpdateBench {
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private static final int BLOCK = 1 << 22;

  private final SketchSizes sizes;
  private final long updates;
  private final long seed;

  public UpdateBench(SketchSizes sizes, long updates, long seed) {
    if (updates < 1) {
      throw new IllegalArgumentException("updates must be >= 1, got " + updates);
    }
    this.sizes = sizes;
    this.updates = updates;
    this.seed = seed;
  }

  /** One round: both paths' wall and process-CPU seconds. */
  public record Round(double baselineSeconds, double baselineCpu, double bandedSeconds,
      double bandedCpu) {
    public double speedUp() {
      return baselineSeconds / bandedSeconds;
    }
  }

  public List<Round> run(int rounds, PrintStream out) {
    if (rounds < 1) {
      throw new IllegalArgumentException("rounds must be >= 1, got " + rounds);
    }
    int m = sizes.m();
    int n = sizes.n();
    int t = sizes.t();
    int v = sizes.v();
    int s = Mechanism.SPARSITY;
    out.printf("== sketch updates (no Kafka): %d x %d, priv2-sparse (t = %d, v = %d, s = %d), "
        + "%,d random updates per path and round%n", m, n, t, v, s, updates);
    SecretKey key = SecretKey.forTesting(seed);
    Priv2Plan plan = Priv2Plan.calibrateSparse(new PrivacyParams(1, 1e-6), 1, sizes, s, 1);
    Priv2Matrices mats = Priv2Matrices.generate(key, "bench", sizes, false, s);
    SparseSignMatrix phiT = SparseSignMatrix.of(key, "bench/phi", t, n, s);
    SparseSignMatrix sT = SparseSignMatrix.of(key, "bench/S", v, m, s);
    int block = (int) Math.min(BLOCK, updates);
    int[] is = new int[block];
    int[] js = new int[block];
    double[] ds = new double[block];
    SplittableRandom r = new SplittableRandom(seed);
    for (int u = 0; u < block; u++) {
      is[u] = r.nextInt(m);
      js[u] = r.nextInt(n);
      ds[u] = r.nextDouble(-1, 1);
    }
    List<Round> results = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      double[] y = new double[Math.multiplyExact(m, t)];
      double[] zT = new double[Math.multiplyExact(n, v)];
      long w0 = System.nanoTime();
      long c0 = OS.getProcessCpuTime();
      for (long u = 0; u < updates; u++) {
        int b = (int) (u % block);
        phiT.addColumn(js[b], ds[b], y, is[b] * t);
        sT.addColumn(is[b], ds[b], zT, js[b] * v);
      }
      double baseWall = (System.nanoTime() - w0) / 1e9;
      double baseCpu = (OS.getProcessCpuTime() - c0) / 1e9;
      y = null;
      zT = null;

      Priv2Sketch sketch = Priv2Sketch.createWithoutNoise(plan, mats, key, "bench/acc");
      w0 = System.nanoTime();
      c0 = OS.getProcessCpuTime();
      for (long u = 0; u < updates; u++) {
        int b = (int) (u % block);
        sketch.update(is[b], js[b], ds[b]);
      }
      sketch.intoNode("bench/leaf"); // applies what is still buffered
      Round res = new Round(baseWall, baseCpu, (System.nanoTime() - w0) / 1e9,
          (OS.getProcessCpuTime() - c0) / 1e9);
      results.add(res);
      out.printf("round %d: one at a time %,.0f updates/s (%.2f s, CPU %.2f s); banded %,.0f "
              + "updates/s (%.2f s, CPU %.2f s); %.2fx%n", round, updates / res.baselineSeconds(),
          res.baselineSeconds(), res.baselineCpu(), updates / res.bandedSeconds(),
          res.bandedSeconds(), res.bandedCpu(), res.speedUp());
      out.flush();
    }
    double[] speedUps = results.stream().mapToDouble(Round::speedUp).sorted().toArray();
    out.printf("median speed-up of %d rounds: %.2fx (banded over one at a time, wall)%n", rounds,
        speedUps[speedUps.length / 2]);
    out.flush();
    return results;
  }
}
