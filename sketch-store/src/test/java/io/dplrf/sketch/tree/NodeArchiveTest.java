package io.dplrf.sketch.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dplrf.sketch.tree.Dyadic.NodeId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeArchiveTest {
  @TempDir Path dir;

  private static String permissions(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void directoryPut_fsyncsTheDirectoryAfterTheRename_beforeReturning() throws Exception {
    Path nodes = dir.resolve("nodes");
    NodeId id = new NodeId(0, 3);
    List<String> events = new ArrayList<>();
    NodeArchive.Directory[] archive = new NodeArchive.Directory[1];
    archive[0] = new NodeArchive.Directory(nodes, d -> {
      Path f = archive[0].file(id);
      events.add("fsync " + nodes.relativize(d) + ": file " + Files.exists(f) + ", temp "
          + Files.exists(f.resolveSibling(f.getFileName() + ".tmp")));
    });
    archive[0].put(id, new byte[] {1});
    events.add("put returned");
    assertEquals(List.of("fsync : file true, temp false", "put returned"), events);
  }

  /** A node of several write buffers and an odd length reads back exactly (direct I/O or not). */
  @Test
  void directoryPut_largeNodeReadsBackExactly() throws Exception {
    NodeArchive.Directory archive = new NodeArchive.Directory(dir.resolve("nodes"));
    byte[] node = new byte[3 * (1 << 20) + 7];
    new java.util.SplittableRandom(5).nextBytes(node);
    NodeId id = new NodeId(2, 1);
    archive.put(id, node);
    assertArrayEquals(node, archive.get(id));
    assertEquals(node.length, Files.size(archive.file(id)));
  }

  @Test
  void directoryPut_createsTheStoreAndNodeFilesOwnerOnly() throws Exception {
    assumeTrue(Files.getFileStore(dir).supportsFileAttributeView(PosixFileAttributeView.class),
        "permissions are POSIX");
    Path nodes = dir.resolve("nodes");
    NodeArchive.Directory archive = new NodeArchive.Directory(nodes);
    NodeId id = new NodeId(1, 0);
    archive.put(id, new byte[] {4, 5, 6});
    assertEquals("rwx------", permissions(nodes));
    assertEquals("rw-------", permissions(archive.file(id)));
    assertArrayEquals(new byte[] {4, 5, 6}, archive.get(id));
  }
}
