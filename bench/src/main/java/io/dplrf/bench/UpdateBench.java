package io.dplrf.bench;

import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.lra.Priv2Matrices;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.lra.Priv2Sketch;
import io.dplrf.sketch.lra.Priv2Sketches;
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
 * the flush that applies the last buffered ones ({@link NoisyLinearSketch#applyBufferedUpdates}),
 * i.e. the banded buffer and its two threads — beside the baseline of applying each update as it
 * comes (its s entries of Y's row i and s of Zᵀ's row j, {@link SparseSignMatrix#addColumn},
 * without {@code update}'s index and finiteness checks), with the sketch's own embeddings, on the
 * same updates in the same run, alternating, a fresh sketch per round.
 *
 * <p>Both paths must compute the same sketch: after the timing, each round compares the sketch's
 * (noiseless) release with the baseline's Y and Z, bit for bit — the banded buffer applies the
 * updates that touch an entry in their arrival order, so even the rounding agrees. It compares
 * {@link #digest}s of every entry at its position, so that the baseline's arrays are dropped
 * before the sketch is made; the release copies Y and Z (the sketch's size again, briefly).
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

  /**
   * One round: both paths' wall and process-CPU seconds, and whether the banded sketch's Y and Z
   * equal the baseline's bit for bit.
   */
  public record Round(double baselineSeconds, double baselineCpu, double bandedSeconds,
      double bandedCpu, boolean sameSums) {
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
    // The sketch's embeddings: Priv2Matrices derives sparse ones from these labels under its
    // instance ("bench"); were that to change, the comparison below would report different sums.
    SparseSignMatrix phiT = SparseSignMatrix.of(key, "bench/phi-sparse", t, n, s);
    SparseSignMatrix sT = SparseSignMatrix.of(key, "bench/S-sparse", v, m, s);
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
      long yDigest = digest(y);
      long zDigest = digestTransposed(zT, v, n); // Z is v × n
      y = null;
      zT = null;

      Priv2Sketch sketch = Priv2Sketch.createWithoutNoise(plan, mats, key, "bench/acc");
      w0 = System.nanoTime();
      c0 = OS.getProcessCpuTime();
      for (long u = 0; u < updates; u++) {
        int b = (int) (u % block);
        sketch.update(is[b], js[b], ds[b]);
      }
      sketch.applyBufferedUpdates();
      double bandedWall = (System.nanoTime() - w0) / 1e9;
      double bandedCpu = (OS.getProcessCpuTime() - c0) / 1e9;
      Priv2Sketches released = sketch.release(); // noiseless: Y and Z as accumulated
      boolean same = digest(released.y().data()) == yDigest
          && digest(released.z().data()) == zDigest;
      released = null;
      sketch = null;
      Round res = new Round(baseWall, baseCpu, bandedWall, bandedCpu, same);
      results.add(res);
      out.printf("round %d: one at a time %,.0f updates/s (%.2f s, CPU %.2f s); banded %,.0f "
              + "updates/s (%.2f s, CPU %.2f s); %.2fx; %s%n", round,
          updates / res.baselineSeconds(), res.baselineSeconds(), res.baselineCpu(),
          updates / res.bandedSeconds(), res.bandedSeconds(), res.bandedCpu(), res.speedUp(),
          same ? "same Y and Z, bit for bit" : "Y or Z DIFFERS from one at a time's");
      out.flush();
    }
    double[] speedUps = results.stream().mapToDouble(Round::speedUp).sorted().toArray();
    out.printf("median speed-up of %d rounds: %.2fx (banded over one at a time, wall)%n", rounds,
        speedUps[speedUps.length / 2]);
    out.flush();
    return results;
  }

  /**
   * A digest of a sketch array as released: the sum over its entries of a 64-bit mix of (position,
   * value bits). Equal arrays give equal digests; for a mix that behaves as a random function,
   * arrays that differ give equal ones with probability 2^-64.
   */
  static long digest(double[] a) {
    long sum = 0;
    for (int k = 0; k < a.length; k++) {
      sum += entry(k, a[k]);
    }
    return sum;
  }

  /**
   * {@link #digest} of the rows × cols array whose transpose is {@code aT} (cols × rows, row
   * major), without transposing it: aT's entry k = j·rows + i is entry (i, j), at position
   * i·cols + j.
   */
  static long digestTransposed(double[] aT, int rows, int cols) {
    long sum = 0;
    for (int k = 0; k < aT.length; k++) {
      sum += entry((long) (k % rows) * cols + k / rows, aT[k]);
    }
    return sum;
  }

  private static long entry(long position, double value) {
    return mix(mix(position) + Double.doubleToRawLongBits(value));
  }

  /** SplitMix64's finalizer (Steele, Lea, Flood, OOPSLA 2014): a bijection on 64-bit words. */
  private static long mix(long x) {
    long z = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
