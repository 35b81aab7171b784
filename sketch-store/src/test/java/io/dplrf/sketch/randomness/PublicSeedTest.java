package io.dplrf.sketch.randomness;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dplrf.sketch.matrix.SketchMatrix;
import org.junit.jupiter.api.Test;

class PublicSeedTest {
  private static final String HEX = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

  @Test
  void parse_roundTripsThroughToString_andAcceptsUpperCase() {
    PublicSeed s = PublicSeed.parse(HEX.toUpperCase());
    assertEquals(HEX, s.toString());
    assertEquals(s, PublicSeed.parse(HEX));
  }

  @Test
  void parse_refusesWrongLengthOrNonHex() {
    assertThrows(IllegalArgumentException.class, () -> PublicSeed.parse(HEX.substring(2)));
    assertThrows(IllegalArgumentException.class, () -> PublicSeed.parse(HEX.replace('a', 'g')));
  }

  @Test
  void random_seedsDiffer() {
    assertNotEquals(PublicSeed.random(), PublicSeed.random());
  }

  @Test
  void sameSeedAndLabel_regenerateTheSameMatrix_otherLabelsDoNot() {
    SketchMatrix a = GaussianMatrices.gaussian(PublicSeed.parse(HEX), "phi", 5, 4, 1);
    SketchMatrix b = GaussianMatrices.gaussian(PublicSeed.parse(HEX), "phi", 5, 4, 1);
    SketchMatrix c = GaussianMatrices.gaussian(PublicSeed.parse(HEX), "psi", 5, 4, 1);
    double[] x = new double[20];
    double[] y = new double[20];
    double[] z = new double[20];
    a.columns(0, 4, x);
    b.columns(0, 4, y);
    c.columns(0, 4, z);
    assertArrayEquals(x, y);
    assertNotEquals(x[0], z[0]);
  }

  /** The public namespace is separate: a secret key with the same bytes gives other streams. */
  @Test
  void publicStreams_differFromSecretKeyStreamsOfTheSameLabel() {
    byte[] p = new byte[16];
    byte[] s = new byte[16];
    KeyStream.ofPublic(PublicSeed.parse(HEX), "x").fill(0, p, 0, 16);
    KeyStream.of(SecretKey.forTesting(1), "x").fill(0, s, 0, 16);
    assertFalse(java.util.Arrays.equals(p, s));
  }

  @Test
  void ephemeralKeys_areFreshAndNotTestKeys() {
    SecretKey a = SecretKey.ephemeral();
    assertFalse(a.isTestKey());
    assertNotEquals(a.fingerprint(), SecretKey.ephemeral().fingerprint());
  }
}
