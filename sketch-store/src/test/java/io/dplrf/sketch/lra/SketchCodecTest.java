package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SketchCodecTest {
  static final SecretKey KEY = SecretKey.forTesting(21);
  static final SketchSizes SIZES = new SketchSizes(12, 9, 2, 4, 8);
  static final PrivacyParams PRIVACY = new PrivacyParams(1, 1e-6);

  /** The fixed content of the golden snapshots: a few updates, some buffered at write time. */
  static void feed(NoisyLinearSketch s) {
    for (int i = 0; i < 12; i++) {
      s.update(i, (3 * i) % 9, 1.5 * i - 4);
      s.update(i, (5 * i + 1) % 9, -0.25 * i);
    }
  }

  static Priv1Sketch priv1() {
    Priv1Sketch s = Priv1Sketch.create(Priv1Plan.calibrate(PRIVACY, 2, SIZES),
        Priv1Matrices.generate(KEY, "golden/p1", SIZES, false), KEY, "golden/p1/node");
    feed(s);
    return s;
  }

  static Priv2Sketch priv2() {
    Priv2Sketch s = Priv2Sketch.create(Priv2Plan.calibrate(PRIVACY, 2, SIZES),
        Priv2Matrices.generate(KEY, "golden/p2", SIZES, false), KEY, "golden/p2/node");
    feed(s);
    return s;
  }

  private static byte[] bytes(NoisyLinearSketch s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SketchCodec.write(s, out);
    return out.toByteArray();
  }

  private static NoisyLinearSketch read(byte[] b) throws IOException {
    return SketchCodec.read(new ByteArrayInputStream(b), KEY, false);
  }

  @Test
  void roundTrip_priv1_releasesTheSameNoisyView_andKeepsCounting() throws IOException {
    Priv1Sketch original = priv1();
    Priv1Sketch restored = (Priv1Sketch) read(bytes(original));
    assertEquals(original.updateCount(), restored.updateCount());
    assertEquals(original.plan(), restored.plan());
    Priv1Sketches a = original.release();
    Priv1Sketches b = restored.release();
    assertArrayEquals(a.yc().data(), b.yc().data());
    assertArrayEquals(a.yr().data(), b.yr().data());
    assertArrayEquals(a.z().data(), b.z().data());
    original.update(3, 4, 2.0);
    restored.update(3, 4, 2.0);
    assertArrayEquals(original.release().z().data(), restored.release().z().data());
  }

  @Test
  void roundTrip_priv2_andDense() throws IOException {
    Priv2Sketch p2 = priv2();
    Priv2Sketch r2 = (Priv2Sketch) read(bytes(p2));
    assertEquals(p2.plan(), r2.plan());
    assertArrayEquals(p2.release().z().data(), r2.release().z().data());
    DenseInputPerturbation d = DenseInputPerturbation.create(
        DensePlan.calibrate(PRIVACY, 1, 12, 9), KEY, "golden/dense");
    feed(d);
    DenseInputPerturbation rd = (DenseInputPerturbation) read(bytes(d));
    assertArrayEquals(d.release().noisyA().data(), rd.release().noisyA().data());
  }

  /**
   * Read with the instance's matrices shared, a Priv2 sketch is the same sketch; matrices of
   * another instance are not used (the sketch regenerates its own).
   */
  @Test
  void roundTrip_priv2_withSharedMatrices() throws IOException {
    Priv2Sketch p2 = priv2();
    byte[] b = bytes(p2);
    Priv2Sketch shared = (Priv2Sketch) SketchCodec.read(new ByteArrayInputStream(b), KEY,
        Priv2Matrices.generate(KEY, "golden/p2", SIZES, true));
    Priv2Sketch foreign = (Priv2Sketch) SketchCodec.read(new ByteArrayInputStream(b), KEY,
        Priv2Matrices.generate(KEY, "another", SIZES, false));
    for (Priv2Sketch r : new Priv2Sketch[] {shared, foreign}) {
      assertEquals(p2.plan(), r.plan());
      assertArrayEquals(p2.release().y().data(), r.release().y().data());
      assertArrayEquals(p2.release().z().data(), r.release().z().data());
      assertArrayEquals(p2.release().s().column(3), r.release().s().column(3), "the sketch's S");
    }
  }

  @Test
  void corruptTruncatedOrForeignSnapshots_areRefusedWithAClearMessage() throws IOException {
    byte[] good = bytes(priv2());
    byte[] flipped = good.clone();
    flipped[good.length / 2] ^= 1;
    IOException e = assertThrows(IOException.class, () -> read(flipped));
    assertTrue(e.getMessage().contains("checksum") || e.getMessage().contains("corrupt"), e.getMessage());
    byte[] cut = java.util.Arrays.copyOf(good, good.length - 10);
    assertTrue(assertThrows(IOException.class, () -> read(cut)).getMessage().contains("truncated"));
    byte[] junk = "not a snapshot at all".getBytes();
    assertTrue(assertThrows(IOException.class, () -> read(junk)).getMessage().contains("magic"));
    IOException foreign = assertThrows(IOException.class,
        () -> SketchCodec.read(new ByteArrayInputStream(good), SecretKey.forTesting(22), false));
    assertTrue(foreign.getMessage().contains("key"), foreign.getMessage());
  }

  /**
   * Golden files of format version 1 (written once by GoldenSnapshots.main, committed): old
   * snapshots must stay readable and must release exactly what the same sketch releases today.
   */
  @Test
  void goldenVersion1Snapshots_stayReadableAndReleaseTheSameView() throws IOException {
    try (InputStream in = getClass().getResourceAsStream("/golden/priv1-v1.sketch")) {
      Priv1Sketch g = (Priv1Sketch) SketchCodec.read(in, KEY, false);
      assertEquals(NoiseDerivation.ONE_STREAM, g.noiseDerivation(), "version 1: a stream a part");
      assertArrayEquals(oneStream(priv1()).release().z().data(), g.release().z().data());
      assertArrayEquals(oneStream(priv1()).release().yr().data(), g.release().yr().data());
    }
    try (InputStream in = getClass().getResourceAsStream("/golden/priv2-v1.sketch")) {
      Priv2Sketch g = (Priv2Sketch) SketchCodec.read(in, KEY, false);
      assertArrayEquals(oneStream(priv2()).release().y().data(), g.release().y().data());
    }
  }

  /**
   * Versions 2 (chunks read by CKS) and 3 (chunks read by the blocked sampler) likewise, against
   * the same sketches made today with that derivation.
   */
  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void goldenChunkedSnapshots_stayReadableAndReleaseTheSameView(int version) throws IOException {
    NoiseDerivation d = version == 2 ? NoiseDerivation.CHUNKED_CKS : NoiseDerivation.CURRENT;
    try (InputStream in = getClass().getResourceAsStream("/golden/priv1-v" + version + ".sketch")) {
      Priv1Sketch g = (Priv1Sketch) SketchCodec.read(in, KEY, false);
      assertEquals(d, g.noiseDerivation());
      assertArrayEquals(derived(priv1(), d).release().z().data(), g.release().z().data());
      assertArrayEquals(derived(priv1(), d).release().yr().data(), g.release().yr().data());
    }
    try (InputStream in = getClass().getResourceAsStream("/golden/priv2-v" + version + ".sketch")) {
      Priv2Sketch g = (Priv2Sketch) SketchCodec.read(in, KEY, false);
      assertEquals(d, g.noiseDerivation());
      assertArrayEquals(derived(priv2(), d).release().y().data(), g.release().y().data());
      assertArrayEquals(derived(priv2(), d).release().z().data(), g.release().z().data());
    }
  }

  /** A sketch of a build before chunked noise: one stream per part. */
  private static <S extends NoisyLinearSketch> S oneStream(S s) {
    return derived(s, NoiseDerivation.ONE_STREAM);
  }

  private static <S extends NoisyLinearSketch> S derived(S s, NoiseDerivation d) {
    s.deriveNoise(d);
    return s;
  }

  /**
   * A node's noise is a fixed function of the key, its label and the part: after an upgrade, a
   * node must release exactly what it released before, or its two noisy views would average the
   * noise away. Pinned by hashes of the golden nodes' releases, one golden node per format version
   * (1: one stream per part; 2: chunked noise), each hash taken from the code that wrote that
   * version. A change of derivation (a faster sampler, other chunks) must fail here, and must then
   * be recorded per node (a SketchCodec version) so that nodes already written keep theirs.
   */
  @Test
  void goldenNodes_releaseTheNoiseTheyReleasedBefore() throws IOException {
    try (InputStream in = getClass().getResourceAsStream("/golden/priv1-v1.sketch")) {
      Priv1Sketches r = ((Priv1Sketch) SketchCodec.read(in, KEY, false)).release();
      assertEquals(-1569066835, java.util.Arrays.hashCode(r.yc().data()));
      assertEquals(1601230827, java.util.Arrays.hashCode(r.yr().data()));
      assertEquals(372614390, java.util.Arrays.hashCode(r.z().data()));
    }
    try (InputStream in = getClass().getResourceAsStream("/golden/priv2-v1.sketch")) {
      Priv2Sketches r = ((Priv2Sketch) SketchCodec.read(in, KEY, false)).release();
      assertEquals(-1764569280, java.util.Arrays.hashCode(r.y().data()));
      assertEquals(-860194862, java.util.Arrays.hashCode(r.z().data()));
    }
    try (InputStream in = getClass().getResourceAsStream("/golden/priv1-v2.sketch")) {
      Priv1Sketches r = ((Priv1Sketch) SketchCodec.read(in, KEY, false)).release();
      assertEquals(-1569066835, java.util.Arrays.hashCode(r.yc().data())); // padding only
      assertEquals(108227467, java.util.Arrays.hashCode(r.yr().data()));
      assertEquals(2095526192, java.util.Arrays.hashCode(r.z().data()));
    }
    try (InputStream in = getClass().getResourceAsStream("/golden/priv2-v2.sketch")) {
      Priv2Sketches r = ((Priv2Sketch) SketchCodec.read(in, KEY, false)).release();
      assertEquals(-1606433511, java.util.Arrays.hashCode(r.y().data()));
      assertEquals(-1257797836, java.util.Arrays.hashCode(r.z().data()));
    }
  }
}
