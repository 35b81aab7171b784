package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Priv2SketchTest {
  private static final long SEED = 9;
  private final SecretKey key = SecretKey.forTesting(SEED);
  private final SketchSizes sizes = new SketchSizes(40, 60, 2, 8, 16);
  private final Priv2Plan plan = Priv2Plan.calibrate(new PrivacyParams(1, 1e-6), 1, sizes);

  private Priv2Sketch fed(String node, boolean cache) {
    Priv2Sketch s = Priv2Sketch.create(plan, Priv2Matrices.generate(key, "p2", sizes, cache), key, node);
    for (int i = 0; i < sizes.m(); i++) {
      for (int j = 0; j < sizes.n(); j += 3) {
        s.update(i, j, (i - j) * 0.25);
      }
    }
    return s;
  }

  /** Gaussian embeddings (sparsity 0) and the sparse sign embeddings of priv2-sparse. */
  @ParameterizedTest(name = "sparsity {0}")
  @ValueSource(ints = {0, 4})
  void release_equalsExactSketchPlusExactlyTheNodesNoise(int sparsity) {
    Priv2Plan plan = sparsity == 0 ? this.plan
        : Priv2Plan.calibrateSparse(new PrivacyParams(1, 1e-6), 1, sizes, sparsity, 1);
    Priv2Matrices mats = Priv2Matrices.generate(key, "p2", sizes, false, sparsity);
    Priv2Sketch fed = Priv2Sketch.create(plan, mats, key, "n1");
    for (int i = 0; i < sizes.m(); i++) {
      for (int j = 0; j < sizes.n(); j += 3) {
        fed.update(i, j, (i - j) * 0.25);
      }
    }
    Priv2Sketches withData = fed.release();
    Priv2Sketches noiseOnly = Priv2Sketch.create(plan, mats, key, "n1").release();
    Dense phiT = mats.phiT.toDense(); // t × n
    Dense s = mats.s.toDense(); // v × m
    double gy = plan.yNoise().grid().gamma();
    double gz = plan.zNoise().grid().gamma();
    for (int i = 0; i < sizes.m(); i++) {
      for (int a = 0; a < sizes.t(); a++) {
        double exact = 0;
        for (int j = 0; j < sizes.n(); j += 3) {
          exact += (i - j) * 0.25 * phiT.get(a, j);
        }
        assertEquals(exact, withData.y().get(i, a) - noiseOnly.y().get(i, a), 2 * gy + 1e-12);
      }
    }
    for (int b = 0; b < sizes.v(); b++) {
      for (int j = 0; j < sizes.n(); j++) {
        double exact = 0;
        if (j % 3 == 0) {
          for (int i = 0; i < sizes.m(); i++) {
            exact += s.get(b, i) * (i - j) * 0.25;
          }
        }
        assertEquals(exact, withData.z().get(b, j) - noiseOnly.z().get(b, j), 2 * gz + 1e-12);
      }
    }
  }

  @Test
  void cachedAndRegeneratedSketchingColumns_giveTheSameRelease() {
    Priv2Sketches a = fed("n2", false).release();
    Priv2Sketches b = fed("n2", true).release();
    assertArrayEquals(a.y().data(), b.y().data());
    assertArrayEquals(a.z().data(), b.z().data());
  }

  /**
   * Z of an empty node is pure noise: over N = v·n = 960 entries, N·s²/σ² ~ χ²_N, whose 1e-7
   * quantiles are ≈ 0.78·N and 1.24·N, so [0.75, 1.27] falsely rejects with probability < 2e-7.
   * Missing (0) or halved (0.25) noise fails.
   */
  @Test
  void emptyNode_releasesNoiseAtTheCalibratedScale_failsIfMissingOrHalved() {
    Priv2Sketches r =
        Priv2Sketch.create(plan, Priv2Matrices.generate(key, "p2", sizes, false), key, "n3").release();
    double ss = 0;
    for (double x : r.z().data()) {
      ss += x * x;
    }
    double ratio = ss / r.z().data().length / Math.pow(plan.zNoise().sigma(), 2);
    assertTrue(ratio > 0.75 && ratio < 1.27, "Z variance/sigma^2 = " + ratio + " (seed " + SEED + ")");
    assertEquals(plan.zNoise().sigma(), r.noise().get(1).sigma());
  }

  /**
   * A noiseless sketch hands out its live arrays (buffered updates applied), the same values its
   * release copies; a noisy one refuses, since its data may leave only with its noise.
   */
  @Test
  void noiselessState_isTheLiveDataOfANoiselessSketchOnly() {
    Priv2Matrices mats = Priv2Matrices.generate(key, "p2", sizes, false);
    Priv2Sketch s = Priv2Sketch.createWithoutNoise(plan, mats, key, "state");
    s.update(1, 2, 1.5);
    double[][] st = s.noiselessState();
    assertEquals(2, st.length);
    Priv2Sketches r = s.release();
    org.junit.jupiter.api.Assertions.assertArrayEquals(r.y().data(), st[0]);
    st[0][0] += 1;
    assertEquals(r.y().data()[0] + 1, s.release().y().data()[0], "live, not a copy");
    Priv2Sketch noisy = Priv2Sketch.create(plan, mats, key, "noisy");
    noisy.update(1, 2, 1.5);
    org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
        noisy::noiselessState);
  }

  @Test
  void noiselessSketch_isExactAndSaysSo() {
    Priv2Sketch s = Priv2Sketch.createWithoutNoise(plan, Priv2Matrices.generate(key, "p2", sizes, false), key, "n4");
    assertTrue(s.isNoiseless());
    Priv2Sketches r = s.release();
    for (double x : r.y().data()) {
      assertEquals(0.0, x);
    }
    assertEquals(0.0, r.noise().get(0).sigma());
  }
}
