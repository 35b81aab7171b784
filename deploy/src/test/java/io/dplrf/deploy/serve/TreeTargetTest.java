package io.dplrf.deploy.serve;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.tree.StreamMechanism;
import io.dplrf.sketch.tree.TreeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TreeTargetTest {
  static final TreeConfig CONFIG = new TreeConfig(StreamMechanism.PRIV2,
      SketchSizes.of(20, 10, 2, null, null, 0.25), new PrivacyParams(1, 1e-6), 1.0, 4, false);
  static final SecretKey KEY = SecretKey.forTesting(1);

  @TempDir Path dir;

  @Test
  void open_withoutSnapshot_butNodeFilesOfAnEarlierRun_isRefused_andDeletesNothing()
      throws Exception {
    Path nodes = Files.createDirectories(dir.resolve("nodes"));
    byte[] earlier = {1, 2, 3};
    Files.write(nodes.resolve("node-0-0.sketch"), earlier);
    IOException e = assertThrows(IOException.class,
        () -> TreeTarget.open(CONFIG, KEY, nodes, false));
    String m = e.getMessage();
    assertTrue(m.contains(nodes.toString()) && m.contains("no snapshot")
        && m.contains("privacy budget a second time") && m.contains("new, empty state-dir"), m);
    assertTrue(!m.contains("\n"), "one line: " + m);
    assertArrayEquals(earlier, Files.readAllBytes(nodes.resolve("node-0-0.sketch")));
  }

  @Test
  void open_withoutSnapshot_andNoNodeFiles_startsANewRun() throws Exception {
    Path nodes = dir.resolve("nodes");
    TreeTarget fresh = TreeTarget.open(CONFIG, KEY, nodes, false);
    assertEquals(0, fresh.epochsClosed());
    assertTrue(Files.isDirectory(nodes));
    if (Files.getFileStore(nodes).supportsFileAttributeView(
        java.nio.file.attribute.PosixFileAttributeView.class)) {
      assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
          Files.getPosixFilePermissions(nodes)));
    }
    // an empty node directory (created by a start that crashed before any epoch closed) is fine
    assertEquals(0, TreeTarget.open(CONFIG, KEY, nodes, false).epochsClosed());
  }

  @Test
  void open_withSnapshot_leavesTheNodeFilesToTheRestore() throws Exception {
    Path nodes = Files.createDirectories(dir.resolve("nodes"));
    Files.write(nodes.resolve("node-0-0.sketch"), new byte[] {1});
    assertEquals(0, TreeTarget.open(CONFIG, KEY, nodes, true).epochsClosed());
    assertTrue(Files.exists(nodes.resolve("node-0-0.sketch")));
  }
}
