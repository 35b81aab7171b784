package io.dplrf.sketch.randomness;

import io.dplrf.sketch.params.Preconditions;
import java.security.GeneralSecurityException;
import java.util.Objects;
import javax.crypto.Cipher;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * One labelled pseudo-random stream: the AES-256-CTR keystream under the key
 * HMAC-SHA256(master, "dplrf/v1/" + label), counter blocks numbered from 0 (the 16-byte IV is the
 * big-endian block number). Byte {@code b} of the stream is byte {@code b % 16} of
 * AES(k, block {@code b / 16}).
 *
 * <p>Why this construction: HMAC-SHA256 is a PRF, so distinct labels give independent AES keys and
 * there is no nonce to manage or reuse; AES in counter mode is a PRF on block numbers, so any byte
 * range can be regenerated in isolation (random access) and the stream is indistinguishable from
 * uniform to anyone without the master key (for fewer than 2^64 blocks per label).
 *
 * <p>Thread-safe. Sequential readers own a CTR {@link Cipher}; random access
 * ({@link #blocks}) encrypts the counter blocks directly with a per-thread AES-ECB cipher whose key
 * schedule is computed once — CTR keystream block b is exactly AES_k(b) — because creating and
 * keying a CTR cipher per request costs ~15 µs, several times the generation of a sketch column.
 */
public final class KeyStream {
  /** Reserved: HMAC(master, "dplrf/v1/fingerprint") is published by {@link SecretKey#fingerprint}. */
  private static final String RESERVED_LABEL = "fingerprint";

  static final int BLOCK = 16;
  private static final byte[] ZEROS = new byte[8192];

  private final SecretKeySpec aesKey;
  private final String label;
  private final ThreadLocal<Cipher> ecb;

  private KeyStream(SecretKeySpec aesKey, String label) {
    this.aesKey = aesKey;
    this.label = label;
    this.ecb = ThreadLocal.withInitial(this::newEcb);
  }

  private Cipher newEcb() {
    try {
      Cipher c = Cipher.getInstance("AES/ECB/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, aesKey);
      return c;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/ECB/NoPadding is required of every Java platform", e);
    }
  }

  /**
   * Writes keystream blocks [firstBlock, firstBlock + count) to {@code dst[off .. off + 16·count)}:
   * the big-endian counters, encrypted in place by AES-ECB (identical to the CTR keystream).
   */
  void blocks(long firstBlock, byte[] dst, int off, int count) {
    for (int b = 0; b < count; b++) {
      int o = off + b * BLOCK;
      long counter = firstBlock + b;
      for (int i = 0; i < 8; i++) {
        dst[o + i] = 0;
        dst[o + 15 - i] = (byte) (counter >>> (8 * i));
      }
    }
    try {
      int written = ecb.get().update(dst, off, count * BLOCK, dst, off);
      if (written != count * BLOCK) {
        throw new IllegalStateException("ECB returned " + written + " of " + count * BLOCK + " bytes");
      }
    } catch (ShortBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The stream named {@code label} under {@code key}.
   *
   * @param label non-empty; {@code "fingerprint"} is reserved because its derived key is the
   *     public fingerprint
   */
  public static KeyStream of(SecretKey key, String label) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(label, "label");
    Preconditions.check(!label.isEmpty(), "label", "non-empty", "\"\"");
    Preconditions.check(
        !label.equals(RESERVED_LABEL), "label", "other than the reserved \"fingerprint\"", label);
    return new KeyStream(new SecretKeySpec(key.hmac("dplrf/v1/" + label), "AES"), label);
  }

  /**
   * The <b>public</b> stream named {@code label} under a {@link PublicSeed}: the same construction
   * with the AES key HMAC-SHA256(seed, "dplrf/v1/public/" + label). Anyone holding the seed
   * regenerates it, so it may feed public sketching matrices but never privacy noise.
   *
   * @param label non-empty
   */
  public static KeyStream ofPublic(PublicSeed seed, String label) {
    Objects.requireNonNull(seed, "seed");
    Objects.requireNonNull(label, "label");
    Preconditions.check(!label.isEmpty(), "label", "non-empty", "\"\"");
    return new KeyStream(new SecretKeySpec(seed.streamKey(label), "AES"), "public/" + label);
  }

  /**
   * Writes stream bytes [byteOffset, byteOffset + len) to {@code dst[off .. off + len)}.
   *
   * @param byteOffset {@code >= 0}
   */
  public void fill(long byteOffset, byte[] dst, int off, int len) {
    Preconditions.check(byteOffset >= 0, "byteOffset", ">= 0", byteOffset);
    Objects.checkFromIndexSize(off, len, dst.length);
    Cipher c = cipherAtBlock(byteOffset / BLOCK);
    int skip = (int) (byteOffset % BLOCK);
    if (skip > 0) {
      generate(c, new byte[skip], 0, skip);
    }
    generate(c, dst, off, len);
  }

  /**
   * A sequential reader of this stream from byte 0 (buffered, refilled 8 KiB at a time). Every
   * call starts again at byte 0: two readers of one label return the same bits, so independent
   * draws need distinct labels. Not thread-safe.
   */
  public RandomBits bits() {
    return new StreamBits(cipherAtBlock(0));
  }

  @Override
  public String toString() {
    return "KeyStream[" + label + "]";
  }

  /** A cipher positioned at the start of block {@code block}. */
  Cipher cipherAtBlock(long block) {
    byte[] iv = new byte[BLOCK];
    for (int i = 0; i < 8; i++) {
      iv[15 - i] = (byte) (block >>> (8 * i));
    }
    try {
      Cipher c = Cipher.getInstance("AES/CTR/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, aesKey, new IvParameterSpec(iv));
      return c;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/CTR/NoPadding is required of every Java platform", e);
    }
  }

  /** Writes the next {@code len} keystream bytes of {@code c} (the encryption of zeros). */
  static void generate(Cipher c, byte[] dst, int off, int len) {
    try {
      while (len > 0) {
        int n = Math.min(len, ZEROS.length);
        int written = c.update(ZEROS, 0, n, dst, off);
        if (written != n) {
          throw new IllegalStateException("CTR mode returned " + written + " of " + n + " bytes");
        }
        off += n;
        len -= n;
      }
    } catch (ShortBufferException e) {
      throw new IllegalStateException(e);
    }
  }
}
