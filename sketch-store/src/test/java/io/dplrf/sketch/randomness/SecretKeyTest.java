package io.dplrf.sketch.randomness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretKeyTest {
  @TempDir Path dir;

  private boolean posix() throws IOException {
    return Files.getFileStore(dir).supportsFileAttributeView(PosixFileAttributeView.class);
  }

  @Test
  void loadOrCreate_absentFile_createsOwnerOnly32ByteKey() throws IOException {
    Path file = dir.resolve("master.key");
    SecretKey key = SecretKey.loadOrCreate(file);
    assertEquals(32, Files.size(file));
    assertFalse(key.isTestKey());
    if (posix()) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }
    try (var files = Files.list(dir)) {
      assertEquals(1, files.count(), "temporary file left behind");
    }
  }

  @Test
  void loadOrCreate_inAbsentDirectories_createsThemOwnerOnly() throws IOException {
    // As on a fresh machine for the default ~/.config/dplrf/secret.key.
    Path file = dir.resolve("home/.config/dplrf/secret.key");
    SecretKey.loadOrCreate(file);
    assertEquals(32, Files.size(file));
    if (posix()) {
      assertEquals("rwx------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
    }
  }

  @Test
  void loadOrCreate_existingFile_returnsSameKey() throws IOException {
    Path file = dir.resolve("master.key");
    String first = SecretKey.loadOrCreate(file).fingerprint();
    assertEquals(first, SecretKey.loadOrCreate(file).fingerprint());
    Path other = dir.resolve("other.key");
    assertNotEquals(first, SecretKey.loadOrCreate(other).fingerprint());
  }

  @Test
  void loadOrCreate_groupReadableFile_isRefusedWithChmodHint() throws IOException {
    assumeTrue(posix(), "needs a POSIX file system");
    Path file = dir.resolve("leaky.key");
    Files.write(file, new byte[32]);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    IOException e = assertThrows(IOException.class, () -> SecretKey.loadOrCreate(file));
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("chmod 600"), e.getMessage());
  }

  @Test
  void loadOrCreate_wrongLength_isRefused() throws IOException {
    Path file = dir.resolve("short.key");
    Files.write(file, new byte[31]);
    if (posix()) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }
    IOException e = assertThrows(IOException.class, () -> SecretKey.loadOrCreate(file));
    assertTrue(e.getMessage().contains("exactly 32 bytes"), e.getMessage());
    assertTrue(e.getMessage().contains("31"), e.getMessage());
  }

  @Test
  void fingerprint_isStable16HexAndDiffersByKey() {
    String fp = SecretKey.forTesting(42).fingerprint();
    assertEquals(16, fp.length());
    assertTrue(fp.matches("[0-9a-f]{16}"), fp);
    assertEquals(fp, SecretKey.forTesting(42).fingerprint());
    assertEquals(GOLDEN_FINGERPRINT_42, fp);
    assertNotEquals(fp, SecretKey.forTesting(43).fingerprint());
  }

  /** Cross-checked with Python: hmac.new(sha256(b"dplrf/v1/test-key/42"), b"dplrf/v1/fingerprint"). */
  static final String GOLDEN_FINGERPRINT_42 = "50018cc5e59cd8bc";

  @Test
  void toString_showsFingerprintButNoKeyBytes() throws Exception {
    SecretKey key = SecretKey.forTesting(7);
    byte[] bytes = java.security.MessageDigest.getInstance("SHA-256")
        .digest("dplrf/v1/test-key/7".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    String s = key.toString();
    assertTrue(s.contains(key.fingerprint()), s);
    assertFalse(s.toLowerCase().contains(HexFormat.of().formatHex(bytes, 0, 4)), s);
    assertTrue(key.isTestKey());
  }
}
