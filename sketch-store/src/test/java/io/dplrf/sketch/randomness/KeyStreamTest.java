package io.dplrf.sketch.randomness;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.stats.ChiSquare;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class KeyStreamTest {
  private static final long SEED = 20240601L;

  @Test
  void fill_atAnyOffset_equalsSequentialReader() {
    KeyStream ks = KeyStream.of(SecretKey.forTesting(SEED), "random-access");
    int words = 5000; // crosses the 8 KiB refill boundary of the reader
    byte[] sequential = new byte[8 * words];
    RandomBits bits = ks.bits();
    ByteBuffer bb = ByteBuffer.wrap(sequential);
    for (int i = 0; i < words; i++) {
      bb.putLong(bits.nextLong());
    }
    for (int offset : new int[] {0, 1, 7, 15, 16, 17, 8191, 8192, 8193, 12345}) {
      int len = Math.min(1000, sequential.length - offset);
      byte[] got = new byte[len + 3];
      ks.fill(offset, got, 3, len);
      assertArrayEquals(Arrays.copyOfRange(sequential, offset, offset + len),
          Arrays.copyOfRange(got, 3, 3 + len), "seed " + SEED + ", offset " + offset);
    }
  }

  @Test
  void differentLabels_giveDifferentStreams_sameLabelTheSame() {
    SecretKey key = SecretKey.forTesting(SEED);
    byte[] a = new byte[64];
    byte[] b = new byte[64];
    byte[] a2 = new byte[64];
    KeyStream.of(key, "phi").fill(0, a, 0, 64);
    KeyStream.of(key, "psi").fill(0, b, 0, 64);
    KeyStream.of(key, "phi").fill(0, a2, 0, 64);
    assertFalse(Arrays.equals(a, b));
    assertArrayEquals(a, a2);
    byte[] otherKey = new byte[64];
    KeyStream.of(SecretKey.forTesting(SEED + 1), "phi").fill(0, otherKey, 0, 64);
    assertFalse(Arrays.equals(a, otherKey));
  }

  /**
   * Known answer: rebuilds the construction from its specification with independent JDK
   * primitives — test key = SHA-256("dplrf/v1/test-key/" + seed), stream key =
   * HMAC-SHA256(master, "dplrf/v1/" + label), block b = AES-ECB(stream key, 16-byte big-endian b)
   * — so it checks the counter layout, not just self-consistency.
   */
  @Test
  void stream_matchesAesOfBigEndianCountersUnderHmacDerivedKey() throws Exception {
    byte[] master = MessageDigest.getInstance("SHA-256")
        .digest(("dplrf/v1/test-key/" + SEED).getBytes(StandardCharsets.UTF_8));
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(master, "HmacSHA256"));
    byte[] streamKey = mac.doFinal("dplrf/v1/kat".getBytes(StandardCharsets.UTF_8));
    Cipher ecb = Cipher.getInstance("AES/ECB/NoPadding");
    ecb.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(streamKey, "AES"));
    long firstBlock = (1L << 32) - 2; // counter crosses a 32-bit boundary inside the range
    int blocks = 4;
    byte[] expected = new byte[16 * blocks];
    for (int i = 0; i < blocks; i++) {
      byte[] counter = ByteBuffer.allocate(16).putLong(8, firstBlock + i).array();
      System.arraycopy(ecb.doFinal(counter), 0, expected, 16 * i, 16);
    }
    byte[] got = new byte[expected.length];
    KeyStream.of(SecretKey.forTesting(SEED), "kat").fill(16 * firstBlock, got, 0, got.length);
    assertArrayEquals(expected, got);
  }

  /** Golden bytes: regenerating sketching matrices across versions depends on this never changing. */
  @Test
  void stream_goldenBytes_areStable() {
    byte[] got = new byte[16];
    KeyStream.of(SecretKey.forTesting(1), "golden").fill(0, got, 0, 16);
    assertEquals(GOLDEN_HEX, HexFormat.of().formatHex(got));
  }

  /** Cross-checked with Python hmac/hashlib and `openssl enc -aes-256-ctr`. */
  static final String GOLDEN_HEX = "d3a41f9a5b861acf13f8c12e213ce22c";

  @Test
  void reservedFingerprintLabel_isRejected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> KeyStream.of(SecretKey.forTesting(SEED), "fingerprint"));
    assertTrue(e.getMessage().startsWith("label must be"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> KeyStream.of(SecretKey.forTesting(1), ""));
  }

  @Test
  void negativeOffset_isRejected() {
    KeyStream ks = KeyStream.of(SecretKey.forTesting(SEED), "x");
    assertThrows(IllegalArgumentException.class, () -> ks.fill(-1, new byte[1], 0, 1));
  }

  /**
   * nextLongBelow(7) and nextBoolean are uniform: chi-square on 70,000 draws; falsely rejects with
   * probability 1e-6 per check.
   */
  @Test
  void nextLongBelowAndNextBoolean_areUniform_chiSquareFalseAlarm1e6() {
    String label = "uniform";
    RandomBits bits = KeyStream.of(SecretKey.forTesting(SEED), label).bits();
    long[] counts = new long[7];
    int n = 70_000;
    for (int i = 0; i < n; i++) {
      counts[(int) bits.nextLongBelow(7)]++;
    }
    double[] expected = new double[7];
    Arrays.fill(expected, n / 7.0);
    double p = ChiSquare.upperTail(ChiSquare.statistic(counts, expected), 6);
    assertTrue(p > 1e-6, "p=" + p + " seed " + SEED + " label " + label);

    long[] coin = new long[2];
    for (int i = 0; i < n; i++) {
      coin[bits.nextBoolean() ? 1 : 0]++;
    }
    double pc = ChiSquare.upperTail(ChiSquare.statistic(coin, new double[] {n / 2.0, n / 2.0}), 1);
    assertTrue(pc > 1e-6, "p=" + pc + " seed " + SEED + " label " + label);
  }

  @Test
  void nextLongBelow_largeBound_staysInRange() {
    RandomBits bits = KeyStream.of(SecretKey.forTesting(SEED), "range").bits();
    long bound = (1L << 62) + 12345;
    for (int i = 0; i < 10_000; i++) {
      long v = bits.nextLongBelow(bound);
      assertTrue(v >= 0 && v < bound, "v=" + v);
    }
    double d = bits.nextDouble53();
    assertTrue(d >= 0 && d < 1);
    assertThrows(IllegalArgumentException.class, () -> bits.nextLongBelow(0));
  }
}
