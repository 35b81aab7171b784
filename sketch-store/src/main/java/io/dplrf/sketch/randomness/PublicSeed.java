package io.dplrf.sketch.randomness;

import io.dplrf.sketch.params.Preconditions;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A 32-byte <b>public</b> seed: the shared randomness of a protocol whose sketching matrices every
 * participant must be able to regenerate, such as the public sketching matrices of local-DP PCA
 * (a server publishes the seed, each client derives the same matrices from it). Unlike
 * {@link SecretKey} it is meant to be printed, published and written to release files: nothing
 * derived from it is secret, and it must never be used for privacy noise.
 *
 * <p>Streams derive exactly as from a secret key ({@link KeyStream}: AES-256-CTR under
 * HMAC-SHA256(seed, label)), but under the separate label namespace {@code "dplrf/v1/public/"},
 * so a seed that happened to equal a key's bytes would still give unrelated streams. The same
 * seed and label give the same stream on every platform (pure Java cryptography, fixed byte
 * order). Immutable and thread-safe.
 */
public final class PublicSeed {
  static final int LENGTH = 32;
  private static final String NAMESPACE = "dplrf/v1/public/";

  private final byte[] bytes;

  private PublicSeed(byte[] bytes) {
    this.bytes = bytes;
  }

  /** A fresh seed from {@link SecureRandom}: unpredictable before it is published. */
  public static PublicSeed random() {
    byte[] b = new byte[LENGTH];
    new SecureRandom().nextBytes(b);
    return new PublicSeed(b);
  }

  /**
   * The seed written as 64 hexadecimal digits (either case), as {@link #toString()} prints it.
   *
   * @throws IllegalArgumentException for anything else
   */
  public static PublicSeed parse(String hex) {
    Objects.requireNonNull(hex, "seed");
    String h = hex.trim();
    Preconditions.check(h.length() == 2 * LENGTH && h.chars().allMatch(
        c -> Character.digit(c, 16) >= 0), "seed", "64 hexadecimal digits", hex);
    return new PublicSeed(HexFormat.of().parseHex(h.toLowerCase(java.util.Locale.ROOT)));
  }

  /** The seed as 64 lower-case hexadecimal digits. */
  @Override
  public String toString() {
    return HexFormat.of().formatHex(bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PublicSeed s && java.util.Arrays.equals(s.bytes, bytes);
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(bytes);
  }

  /** HMAC-SHA256(seed, "dplrf/v1/public/" + label): the AES key of the stream {@code label}. */
  byte[] streamKey(String label) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(bytes, "HmacSHA256"));
      return mac.doFinal((NAMESPACE + label).getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required of every Java platform", e);
    }
  }
}
