package io.dplrf.sketch.randomness;

import io.dplrf.sketch.files.StateFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The deployment's 32-byte master secret. Every keyed stream ({@link KeyStream}) is derived from it
 * with HMAC-SHA256, so this is the only secret to protect and back up: lose it and the sketching
 * matrices can no longer be regenerated; leak it and the sketching matrices (and any noise drawn
 * from keyed streams) become public.
 *
 * <p>The bytes never leave this package: {@link #toString()} shows only the public {@link
 * #fingerprint()}. Immutable and thread-safe.
 */
public final class SecretKey {
  static final int LENGTH = 32;
  private static final String FINGERPRINT_LABEL = "dplrf/v1/fingerprint";
  private static final Set<PosixFilePermission> OWNER_ONLY =
      EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

  private final byte[] bytes;
  private final boolean testKey;

  private SecretKey(byte[] bytes, boolean testKey) {
    this.bytes = bytes;
    this.testKey = testKey;
  }

  /**
   * Loads the key from {@code file}, creating it first if absent.
   *
   * <p>Creation: 32 bytes from {@link SecureRandom} are written to a temporary file in the same
   * directory, created owner-only (rw-------) where the file system supports POSIX permissions,
   * forced to disk, then published under {@code file} without ever replacing an existing key (hard
   * link where supported, else an atomic move); if another process won the race, its key is loaded
   * instead. Loading: the file must hold exactly 32 bytes and, on POSIX file systems, grant nothing
   * to group or others.
   *
   * @throws IOException if the file cannot be read or written, has the wrong length, or is
   *     readable by group or others
   */
  public static SecretKey loadOrCreate(Path file) throws IOException {
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      try {
        create(file);
      } catch (FileAlreadyExistsException raced) {
        // Another process created the key first: fall through and use theirs.
      }
    }
    return load(file);
  }

  /**
   * A deterministic key for tests: SHA-256("dplrf/v1/test-key/" + seed). {@link #isTestKey()} is
   * true, so code that labels output as private can refuse it.
   */
  public static SecretKey forTesting(long seed) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(("dplrf/v1/test-key/" + seed).getBytes(StandardCharsets.UTF_8));
      return new SecretKey(digest, true);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }

  /**
   * A fresh key of 32 bytes from {@link SecureRandom}, held in memory only (never written
   * anywhere): the seed of a one-off stream of private randomness, such as the local noise of a
   * local-DP client, whose randomness must be the user's own and need never be regenerated.
   * Its {@link KeyStream}s are a CSPRNG (AES-256-CTR) seeded by the platform's SecureRandom.
   */
  public static SecretKey ephemeral() {
    byte[] b = new byte[LENGTH];
    new SecureRandom().nextBytes(b);
    return new SecretKey(b, false);
  }

  /** True for keys made by {@link #forTesting}; such keys give no privacy. */
  public boolean isTestKey() {
    return testKey;
  }

  /**
   * A public, non-secret identifier of this key: the first 8 bytes of HMAC-SHA256(key,
   * "dplrf/v1/fingerprint") as 16 lower-case hex characters. Safe to log and to store in
   * snapshots, to check that a snapshot is read with the key that wrote it.
   */
  public String fingerprint() {
    byte[] mac = hmac(FINGERPRINT_LABEL);
    return HexFormat.of().formatHex(mac, 0, 8);
  }

  @Override
  public String toString() {
    return "SecretKey[fingerprint=" + fingerprint() + (testKey ? ", TEST KEY" : "") + "]";
  }

  /** HMAC-SHA256(key, message as UTF-8): the key-derivation function of this package. */
  byte[] hmac(String message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(bytes, "HmacSHA256"));
      return mac.doFinal(message.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required of every Java platform", e);
    }
  }

  private static boolean supportsPosix(Path dir) throws IOException {
    return Files.getFileStore(dir).supportsFileAttributeView(PosixFileAttributeView.class);
  }

  private static void create(Path file) throws IOException {
    // The default key (~/.config/dplrf/secret.key) lives in a directory a fresh machine lacks;
    // directories created for it are owner-only too.
    Path dir = StateFiles.createDirectories(file.toAbsolutePath().getParent());
    boolean posix = supportsPosix(dir);
    FileAttribute<?>[] attrs =
        posix
            ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
            : new FileAttribute<?>[0];
    byte[] key = new byte[LENGTH];
    new SecureRandom().nextBytes(key);
    Path tmp = Files.createTempFile(dir, ".dplrf-key-", ".tmp", attrs);
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(key);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      publish(tmp, file);
      forceDirectory(dir);
    } finally {
      java.util.Arrays.fill(key, (byte) 0);
      Files.deleteIfExists(tmp);
    }
  }

  /** Makes {@code tmp} visible as {@code file}, never replacing an existing key. */
  private static void publish(Path tmp, Path file) throws IOException {
    try {
      Files.createLink(file, tmp); // atomic, fails if file exists
    } catch (UnsupportedOperationException | FileAlreadyExistsException e) {
      if (e instanceof FileAlreadyExistsException) {
        throw (FileAlreadyExistsException) e;
      }
      if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        throw new FileAlreadyExistsException(file.toString());
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    }
  }

  private static void forceDirectory(Path dir) {
    // Makes the new directory entry durable on Linux; not possible on every platform.
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException | UnsupportedOperationException ignored) {
      // best effort
    }
  }

  private static SecretKey load(Path file) throws IOException {
    if (supportsPosix(file.toAbsolutePath().getParent())) {
      Set<PosixFilePermission> perms;
      try {
        perms = Files.getPosixFilePermissions(file);
      } catch (NoSuchFileException e) {
        throw new IOException("secret key file " + file + " does not exist", e);
      }
      Set<PosixFilePermission> extra = EnumSet.copyOf(perms);
      extra.removeAll(EnumSet.of(
          PosixFilePermission.OWNER_READ,
          PosixFilePermission.OWNER_WRITE,
          PosixFilePermission.OWNER_EXECUTE));
      if (!extra.isEmpty()) {
        throw new IOException(
            "secret key file " + file + " has permissions "
                + PosixFilePermissions.toString(perms)
                + ", which give group or others access; refusing to use it. Fix: chmod 600 "
                + file
                + " (and consider the key compromised if others could read it)");
      }
    }
    byte[] key = Files.readAllBytes(file);
    if (key.length != LENGTH) {
      int n = key.length;
      java.util.Arrays.fill(key, (byte) 0);
      throw new IOException(
          "secret key file " + file + " must hold exactly " + LENGTH + " bytes but holds " + n
              + "; it is not a dplrf key (or is damaged)");
    }
    return new SecretKey(key, false);
  }
}
