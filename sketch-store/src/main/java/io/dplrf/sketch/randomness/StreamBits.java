package io.dplrf.sketch.randomness;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import javax.crypto.Cipher;

/** Sequential, buffered {@link RandomBits} over one AES-CTR cipher. Not thread-safe. */
final class StreamBits implements RandomBits {
  private static final int BUFFER = 8192;
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private final Cipher cipher;
  private final byte[] buf = new byte[BUFFER];
  private int pos = BUFFER;
  private long bitCache;
  private int bitsLeft;

  StreamBits(Cipher cipher) {
    this.cipher = cipher;
  }

  @Override
  public long nextLong() {
    if (pos == BUFFER) {
      KeyStream.generate(cipher, buf, 0, BUFFER);
      pos = 0;
    }
    long v = (long) LONGS.get(buf, pos);
    pos += 8;
    return v;
  }

  /** One bit of a cached 64-bit word: 64 booleans per {@link #nextLong()}. */
  @Override
  public boolean nextBoolean() {
    if (bitsLeft == 0) {
      bitCache = nextLong();
      bitsLeft = 64;
    }
    boolean b = bitCache < 0;
    bitCache <<= 1;
    bitsLeft--;
    return b;
  }
}
