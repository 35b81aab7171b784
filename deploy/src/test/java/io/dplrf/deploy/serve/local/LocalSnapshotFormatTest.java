package io.dplrf.deploy.serve.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalReportCodec;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The two snapshot formats of the local aggregate stay byte-compatible: a state written by this
 * build equals the committed golden file bit for bit, and the golden file reads back into a state
 * that writes the same bytes and holds the exact sums of the reports. The reports are built from
 * fixed grid steps (some near the 2⁶²·γ bound, so the 128-bit sums carry into their high words),
 * not randomized, so the files are reproducible. Regenerate only for a new format version:
 * -Ddplrf.writeGolden=DIR.
 */
class LocalSnapshotFormatTest {
  static final String PCA_GOLDEN = "local-state-DPLRLOC1.bin";
  static final String ROBUST_GOLDEN = "local-robust-state-DPLRLRB1.bin";
  static final PublicSeed SEED = PublicSeed.parse("5e".repeat(32));
  static final LocalPcaProtocol PCA =
      LocalPcaProtocol.of(SEED, 3, 2, 1.0, new PrivacyParams(1, 1e-6));
  static final LocalRobustProtocol ROBUST = LocalRobustProtocol.of(SEED, 70, 3, 1, null, null, 1,
      1.0, RobustMatrices.DEFAULT_STABLE_CLIP, new PrivacyParams(1, Double.MIN_VALUE));

  /**
   * Grid steps of report {@code r}, from a fixed seed: every third near ±2⁶² (multiples of 2¹⁰,
   * so that the double k·γ is exact), the others small.
   */
  static long[] steps(int n, long r) {
    SplittableRandom rnd = new SplittableRandom(1000 + r);
    long[] k = new long[n];
    for (int e = 0; e < n; e++) {
      k[e] = (e + r) % 3 == 0 ? (rnd.nextBoolean() ? 1 : -1) * ((1L << 62) - 1024 * rnd.nextLong(1000))
          : rnd.nextLong(-1_000_000, 1_000_000);
    }
    return k;
  }

  /** A "DPLP" version 1 report of {@link #PCA} with values γ·steps. */
  static byte[] pcaReport(long r) {
    int d = PCA.dimension();
    int t = PCA.sketchCols();
    double gamma = PCA.noise().grid().gamma();
    ByteBuffer b = ByteBuffer.allocate(24 + 8 * d * t);
    b.putInt(0x44504C50).putShort((short) 1).putShort((short) 0);
    b.put(HexFormat.of().parseHex(PCA.id())).putInt(d).putInt(t);
    for (long k : steps(d * t, r)) {
      b.putDouble(k * gamma);
    }
    return b.array();
  }

  /** A "DPLR" version 2 report of {@link #ROBUST} for {@code slot}, values γ·steps per part. */
  static byte[] robustReport(int slot) {
    int t = ROBUST.sizes().t();
    int d = ROBUST.sizes().n();
    int v = ROBUST.sizes().v();
    ByteBuffer b = ByteBuffer.allocate(32 + 8 * (t * d + v * v));
    b.putInt(0x44504C52).putShort((short) 2).putShort((short) 0);
    b.put(HexFormat.of().parseHex(ROBUST.id())).putInt(t).putInt(d).putInt(v).putInt(slot);
    for (long k : steps(t * d, slot)) {
      b.putDouble(k * ROBUST.plan().yr().grid().gamma());
    }
    for (long k : steps(v * v, slot + 100)) {
      b.putDouble(k * ROBUST.plan().z().grid().gamma());
    }
    return b.array();
  }

  /** 5 reports, an epoch close, 2 more: live and closed sums differ. */
  static LocalTarget pcaTarget() {
    LocalTarget t = new LocalTarget(PCA, 4);
    for (int r = 0; r < 7; r++) {
      if (r == 5) {
        t.closeEpoch();
      }
      assertTrue(t.addReport(LocalReportCodec.decode(pcaReport(r), PCA)));
    }
    return t;
  }

  /** Slots 0..4, an epoch close, slots 64 and 66 (bits in the second word). */
  static LocalTarget robustTarget() {
    LocalTarget t = new LocalTarget(ROBUST, 4);
    for (int slot : new int[] {0, 1, 2, 3, 4, -1, 64, 66}) {
      if (slot < 0) {
        t.closeEpoch();
      } else {
        assertTrue(t.addReport(LocalReportCodec.decode(robustReport(slot), ROBUST)));
      }
    }
    return t;
  }

  static byte[] state(io.dplrf.ingest.IngestTarget t) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    t.writeState(out);
    return out.toByteArray();
  }

  static byte[] golden(String name, byte[] now) throws IOException {
    String dir = System.getProperty("dplrf.writeGolden");
    if (dir != null) {
      Files.write(Path.of(dir, name), now);
    }
    try (InputStream in = LocalSnapshotFormatTest.class.getResourceAsStream(name)) {
      assertTrue(in != null, "missing golden file " + name);
      return in.readAllBytes();
    }
  }

  /**
   * Σ_r γ·steps(r) in exact arithmetic, rounded once. The target rounds a 128-bit sum beyond 64
   * bits twice (GridSum.toDouble), so the two agree to 2 ulps.
   */
  static double exactSum(double gamma, int e, long... reports) {
    java.math.BigInteger s = java.math.BigInteger.ZERO;
    for (long r : reports) {
      s = s.add(java.math.BigInteger.valueOf(steps(e + 1, r)[e]));
    }
    return s.doubleValue() * gamma;
  }

  @Test
  void pcaState_isTheGoldenDPLRLOC1Bytes_andReadsBackToTheSameBytesAndSums() throws IOException {
    byte[] now = state(pcaTarget());
    byte[] golden = golden(PCA_GOLDEN, now);
    assertEquals("DPLRLOC1", new String(golden, 0, 8, java.nio.charset.StandardCharsets.US_ASCII));
    assertArrayEquals(golden, now);
    LocalTarget back = new LocalTarget(PCA, 4);
    back.readState(new ByteArrayInputStream(golden));
    assertArrayEquals(golden, state(back));
    assertEquals(7, back.reports());
    assertEquals(5, back.reportsAtClose());
    double gamma = PCA.noise().grid().gamma();
    double[] closed = back.closedSum(0).data();
    for (int e = 0; e < closed.length; e++) {
      double exact = exactSum(gamma, e, 0, 1, 2, 3, 4);
      assertEquals(exact, closed[e], 2 * Math.ulp(exact), "entry " + e);
    }
  }

  @Test
  void robustState_isTheGoldenDPLRLRB1Bytes_andReadsBackToTheSameBytesSlotsAndSums()
      throws IOException {
    byte[] now = state(robustTarget());
    byte[] golden = golden(ROBUST_GOLDEN, now);
    assertEquals("DPLRLRB1", new String(golden, 0, 8, java.nio.charset.StandardCharsets.US_ASCII));
    assertArrayEquals(golden, now);
    LocalTarget back = new LocalTarget(ROBUST, 4);
    back.readState(new ByteArrayInputStream(golden));
    assertArrayEquals(golden, state(back));
    assertEquals(7, back.reports());
    assertEquals(5, back.reportsAtClose());
    assertTrue(back.counted(0) && back.counted(64) && back.counted(66) && !back.counted(65));
    double gamma = ROBUST.plan().yr().grid().gamma();
    double[] yr = back.closedSum(0).data();
    for (int e = 0; e < yr.length; e++) {
      double exact = exactSum(gamma, e, 0, 1, 2, 3, 4);
      assertEquals(exact, yr[e], 2 * Math.ulp(exact), "Yr entry " + e);
    }
  }
}
