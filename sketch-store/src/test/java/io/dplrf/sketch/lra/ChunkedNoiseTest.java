package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.noise.GaussianSampler;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * The chunked noise derivation (NoisyLinearSketch, "Noise derivation"): what each entry's noise
 * is, that chunks and parts never share a stream, that the law is the calibrated one, and that
 * the threads drawing it do not change it. A dense input perturbation of an all-zero 300×300
 * matrix releases exactly its noise (0 rounds to 0), in two chunks: 65,536 + 24,464 entries.
 */
class ChunkedNoiseTest {
  private static final SecretKey KEY = SecretKey.forTesting(77);
  private static final int M = 300;
  private static final int N = 300;
  private static final DensePlan PLAN = DensePlan.calibrate(new PrivacyParams(1, 1e-6), 1, M, N);

  private static double[] noiseOf(DenseInputPerturbation s) {
    return s.release().noisyA().data();
  }

  @Test
  void chunkC_isTheGridGaussianStreamOfItsOwnLabel_inEntryOrder() {
    DenseInputPerturbation s = DenseInputPerturbation.create(PLAN, KEY, "chunks/node");
    double[] noise = noiseOf(s);
    int chunk = NoisyLinearSketch.NOISE_CHUNK;
    double[] expected = new double[M * N];
    GridGaussian g = PLAN.noise().grid();
    g.addTo(GaussianSampler.BLOCKED, KeyStream.of(KEY, "chunks/node/N/chunk/0").bits(), expected,
        0, chunk);
    g.addTo(GaussianSampler.BLOCKED, KeyStream.of(KEY, "chunks/node/N/chunk/1").bits(), expected,
        chunk, M * N - chunk);
    assertArrayEquals(expected, noise);
  }

  @Test
  void chunksAndNodes_neverShareAStream() {
    double[] a = noiseOf(DenseInputPerturbation.create(PLAN, KEY, "chunks/a"));
    double[] b = noiseOf(DenseInputPerturbation.create(PLAN, KEY, "chunks/b"));
    int chunk = NoisyLinearSketch.NOISE_CHUNK;
    int len = M * N - chunk;
    // The second chunk is not the first one again, nor another node's.
    assertFalse(Arrays.equals(a, 0, len, a, chunk, chunk + len));
    assertFalse(Arrays.equals(a, b));
    // And not correlated with it: |r| < 5/√len for independent samples (5 standard errors).
    assertTrue(Math.abs(correlation(a, 0, a, chunk, len)) < 5 / Math.sqrt(len));
    assertTrue(Math.abs(correlation(a, 0, b, 0, M * N)) < 5 / Math.sqrt(M * N));
  }

  /**
   * Mean 0 and variance σ_eff² over the 90,000 entries, within 5 standard errors: σ/√N for the
   * mean, σ²√(2/N) for the variance (the Gaussian's fourth moment; the discrete Gaussian at s ≥
   * 2³⁰ grid steps has the same up to 2⁻³⁰). Halved noise (variance σ²/4) or missing noise fails.
   */
  @Test
  void noise_hasTheCalibratedLaw() {
    double[] x = noiseOf(DenseInputPerturbation.create(PLAN, KEY, "chunks/law"));
    double sigma = PLAN.noise().grid().effectiveSigma();
    double mean = Arrays.stream(x).average().orElseThrow();
    double var = Arrays.stream(x).map(v -> (v - mean) * (v - mean)).sum() / (x.length - 1);
    assertTrue(Math.abs(mean) < 5 * sigma / Math.sqrt(x.length), "mean " + mean);
    assertEquals(1, var / (sigma * sigma), 5 * Math.sqrt(2.0 / x.length), "variance / sigma^2");
  }

  @Test
  void theDerivationOfASketch_isFixedOnceItHasDrawnNoise() {
    DenseInputPerturbation s = DenseInputPerturbation.create(PLAN, KEY, "chunks/fixed");
    double[] first = noiseOf(s);
    assertThrows(IllegalStateException.class, () -> s.deriveNoise(NoiseDerivation.ONE_STREAM));
    assertArrayEquals(first, noiseOf(s));
  }

  @Test
  void oneStreamPerPart_isTheVersion1Derivation() {
    DenseInputPerturbation s = DenseInputPerturbation.create(PLAN, KEY, "chunks/old");
    s.deriveNoise(NoiseDerivation.ONE_STREAM);
    double[] expected = new double[M * N];
    PLAN.noise().grid().addTo(KeyStream.of(KEY, "chunks/old/N").bits(), expected, 0, M * N);
    assertArrayEquals(expected, noiseOf(s));
  }

  @Test
  void workers_runEveryTaskOnce_whateverTheThreadCount() {
    for (int threads : new int[] {1, 2, 3, 16}) {
      AtomicIntegerArray runs = new AtomicIntegerArray(37);
      NoiseWorkers.run(37, threads, runs::incrementAndGet);
      for (int i = 0; i < 37; i++) {
        assertEquals(1, runs.get(i), "task " + i + " with " + threads + " threads");
      }
    }
    NoiseWorkers.run(0, 4, i -> {
      throw new AssertionError("no task to run");
    });
  }

  @Test
  void workers_rethrowAFailure_afterEveryTaskHasEnded() {
    AtomicIntegerArray runs = new AtomicIntegerArray(20);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> NoiseWorkers.run(20, 3, i -> {
          runs.incrementAndGet(i);
          if (i % 7 == 3) {
            throw new IllegalStateException("task " + i);
          }
        }));
    assertTrue(e.getMessage().startsWith("task "), e.getMessage());
    assertEquals(2, e.getSuppressed().length); // tasks 3, 10 and 17 failed
    for (int i = 0; i < 20; i++) {
      assertEquals(1, runs.get(i));
    }
  }

  private static double correlation(double[] a, int offA, double[] b, int offB, int len) {
    double ma = 0;
    double mb = 0;
    for (int i = 0; i < len; i++) {
      ma += a[offA + i];
      mb += b[offB + i];
    }
    ma /= len;
    mb /= len;
    double sab = 0;
    double saa = 0;
    double sbb = 0;
    for (int i = 0; i < len; i++) {
      double x = a[offA + i] - ma;
      double y = b[offB + i] - mb;
      sab += x * y;
      saa += x * x;
      sbb += y * y;
    }
    return sab / Math.sqrt(saa * sbb);
  }
}
