package io.dplrf.sketch.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateFilesTest {
  @TempDir Path dir;

  @BeforeEach
  void posixOnly() throws IOException {
    assumeTrue(Files.getFileStore(dir).supportsFileAttributeView(PosixFileAttributeView.class),
        "permissions are POSIX");
  }

  private static String permissions(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void createDirectories_createsEveryMissingLevelOwnerOnly_andLeavesExistingOnesAlone()
      throws Exception {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path deep = dir.resolve("a/b/state");
    assertEquals(deep, StateFiles.createDirectories(deep));
    assertEquals("rwx------", permissions(dir.resolve("a")));
    assertEquals("rwx------", permissions(dir.resolve("a/b")));
    assertEquals("rwx------", permissions(deep));
    assertEquals("rwxr-xr-x", permissions(dir));
    StateFiles.createDirectories(dir);
    assertEquals("rwxr-xr-x", permissions(dir));
  }

  @Test
  void fsyncDirectory_ofAMissingPathOrARegularFile_isRefused() throws Exception {
    Path missing = dir.resolve("missing");
    assertThrows(NoSuchFileException.class, () -> StateFiles.fsyncDirectory(missing));
    Path file = dir.resolve("node.bin");
    Files.writeString(file, "renamed into place");
    NotDirectoryException e =
        assertThrows(NotDirectoryException.class, () -> StateFiles.fsyncDirectory(file));
    assertEquals(file.toString(), e.getFile());
  }

  /** Linux: no descriptor of this process still refers to the directory afterwards. */
  @Test
  void fsyncDirectory_closesTheDescriptorItOpens() throws Exception {
    Path fds = Path.of("/proc/self/fd");
    assumeTrue(Files.isDirectory(fds), "needs /proc/self/fd");
    for (int i = 0; i < 3; i++) {
      StateFiles.fsyncDirectory(dir);
    }
    Path real = dir.toRealPath();
    List<Path> open = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
      for (Path fd : entries) {
        try {
          if (Files.readSymbolicLink(fd).equals(real)) {
            open.add(fd);
          }
        } catch (NoSuchFileException closedSinceListed) {
          // the directory stream's own descriptor, or one another thread closed meanwhile
        }
      }
    }
    assertEquals(List.of(), open, "descriptors still open on " + real);
  }

  @Test
  void createForWriting_makesAnOwnerOnlyFile_evenOverALeftOverOneWithWiderPermissions()
      throws Exception {
    Path f = dir.resolve("x.tmp");
    Files.writeString(f, "left over from an interrupted write");
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
    try (FileChannel ch = StateFiles.createForWriting(f)) {
      assertEquals("rw-------", permissions(f));
      ch.write(ByteBuffer.wrap(new byte[] {1, 2}));
    }
    assertEquals(2, Files.size(f));
    assertEquals("rw-------", permissions(f));
    Path fresh = dir.resolve("new.tmp");
    StateFiles.createForWriting(fresh).close();
    assertTrue(Files.exists(fresh));
    assertEquals("rw-------", permissions(fresh));
  }
}
