package io.dplrf.bench;

import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.noise.GaussianSampler;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code dplrf bench noise}: the exact discrete Gaussian noise a release draws for each node
 * entry, with the blocked sampler of new streams beside CKS Algorithm 3 (the baseline, which
 * sketches of formats 1 and 2 keep), on one thread, alternating, in the same run. Each draws
 * the same number of entries as a node does: chunks of {@link NoisyLinearSketch#NOISE_CHUNK}
 * entries, each from its own keyed stream (a test key: nothing here is private). The grid scale s
 * is always in [2^30, 2^31), so the cost does not depend on σ; the printed variances (σ_eff²
 * units) show both draw the same law. Beside them, the floor both pay: reading the same number of
 * 64-bit words from the AES-CTR key streams, chunked alike.
 */
public final class NoiseBench {
  private final double sigma;
  private final long samples;
  private final long seed;

  public NoiseBench(double sigma, long samples, long seed) {
    if (samples < 1 || samples > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("samples must be in [1, 2^31 - 1], got " + samples);
    }
    this.sigma = sigma;
    this.samples = samples;
    this.seed = seed;
  }

  /**
   * One round: nanoseconds per sample and the sample variance in σ_eff² units (the mean is 0) of
   * each sampler, and nanoseconds per 64-bit word of the key streams alone.
   */
  public record Round(double cksNanos, double cksVariance, double blockedNanos,
      double blockedVariance, double wordNanos) {
    public double speedUp() {
      return cksNanos / blockedNanos;
    }
  }

  public List<Round> run(int rounds, PrintStream out) {
    if (rounds < 1) {
      throw new IllegalArgumentException("rounds must be >= 1, got " + rounds);
    }
    GridGaussian grid = GridGaussian.atLeast(sigma);
    out.printf("== exact noise, one thread: %,d samples per sampler and round, %s%n", samples,
        grid);
    SecretKey key = SecretKey.forTesting(seed);
    double[] dst = new double[(int) samples];
    List<Round> results = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      double[] cks = draw(GaussianSampler.CKS, grid, key, "bench/noise/" + round + "/cks", dst);
      double[] blocked =
          draw(GaussianSampler.BLOCKED, grid, key, "bench/noise/" + round + "/blocked", dst);
      double words = words(key, "bench/noise/" + round + "/words", dst.length);
      Round r = new Round(cks[0], cks[1], blocked[0], blocked[1], words);
      results.add(r);
      out.printf("round %d: CKS %.1f ns/sample (variance %.4f); blocked %.1f ns/sample "
              + "(variance %.4f); %.2fx; key stream alone %.2f ns per 64-bit word%n", round,
          r.cksNanos(), r.cksVariance(), r.blockedNanos(), r.blockedVariance(), r.speedUp(),
          r.wordNanos());
      out.flush();
    }
    double[] speedUps = results.stream().mapToDouble(Round::speedUp).sorted().toArray();
    out.printf("median speed-up of %d rounds: %.2fx (blocked over CKS)%n", rounds,
        speedUps[speedUps.length / 2]);
    out.flush();
    return results;
  }

  /** Keeps the words read by {@link #words} live, so that the JIT cannot drop the reads. */
  private static volatile long wordSink;

  /** ns per 64-bit word of reading {@code count} words from chunked key streams, as a draw does. */
  private static double words(SecretKey key, String label, int count) {
    int chunk = NoisyLinearSketch.NOISE_CHUNK;
    long x = 0;
    long t0 = System.nanoTime();
    for (int c = 0, off = 0; off < count; c++, off += chunk) {
      RandomBits bits = KeyStream.of(key, label + "/chunk/" + c).bits();
      for (int i = 0, len = Math.min(chunk, count - off); i < len; i++) {
        x ^= bits.nextLong();
      }
    }
    double nanos = (double) (System.nanoTime() - t0) / count;
    wordSink = x;
    return nanos;
  }

  /** {ns per sample, sample variance / σ_eff²} of one node-like draw into dst. */
  private double[] draw(GaussianSampler sampler, GridGaussian grid, SecretKey key, String label,
      double[] dst) {
    java.util.Arrays.fill(dst, 0);
    int chunk = NoisyLinearSketch.NOISE_CHUNK;
    long t0 = System.nanoTime();
    for (int c = 0, off = 0; off < dst.length; c++, off += chunk) {
      grid.addTo(sampler, KeyStream.of(key, label + "/chunk/" + c).bits(), dst, off,
          Math.min(chunk, dst.length - off));
    }
    double nanos = (double) (System.nanoTime() - t0) / dst.length;
    double sumSq = 0;
    for (double x : dst) {
      sumSq += x * x;
    }
    double s = grid.effectiveSigma();
    return new double[] {nanos, sumSq / dst.length / (s * s)};
  }
}
