package io.dplrf.sketch.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dplrf.sketch.files.DirectFileOutputStream;
import io.dplrf.sketch.tree.Dyadic.NodeId;
import java.io.IOException;
import java.io.InputStream;
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

  private static byte[] bytes(NodeArchive archive, NodeId id) throws IOException {
    try (InputStream in = archive.open(id)) {
      return in.readAllBytes();
    }
  }

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
    assertArrayEquals(node, bytes(archive, id));
    assertEquals(node.length, Files.size(archive.file(id)));
  }

  /**
   * Where the file system accepts O_DIRECT at open but refuses a write (as some do), the node is
   * written again through the page cache, exactly and owner-only, and so is every later node.
   * The refusal is simulated by the writer: this machine's file systems accept direct writes.
   */
  @Test
  void directoryPut_aRefusedDirectWrite_fallsBackToThePageCacheForGood() throws Exception {
    Path nodes = dir.resolve("nodes");
    NodeArchive.Directory archive = new NodeArchive.Directory(nodes);
    byte[] first = new byte[(1 << 20) + 3];
    new java.util.SplittableRandom(9).nextBytes(first);
    List<String> streams = new ArrayList<>();
    archive.put(new NodeId(0, 0), out -> {
      boolean direct = out instanceof DirectFileOutputStream;
      streams.add(direct ? "direct" : "page cache");
      if (direct) {
        out.write(first, 0, first.length / 2);
        throw new IOException("Invalid argument (simulated: O_DIRECT refused at a write)");
      }
      out.write(first);
    });
    archive.put(new NodeId(0, 1), out -> {
      streams.add(out instanceof DirectFileOutputStream ? "direct" : "page cache");
      out.write(new byte[] {7, 8});
    });
    assumeTrue(streams.get(0).equals("direct"), "the file system refuses O_DIRECT at open");
    assertEquals(List.of("direct", "page cache", "page cache"), streams);
    assertArrayEquals(first, bytes(archive, new NodeId(0, 0)));
    assertArrayEquals(new byte[] {7, 8}, bytes(archive, new NodeId(0, 1)));
    try (var leftovers = Files.list(nodes)) {
      assertEquals(List.of("node-0-0.sketch", "node-0-1.sketch"),
          leftovers.map(f -> f.getFileName().toString()).sorted().toList());
    }
    if (Files.getFileStore(dir).supportsFileAttributeView(PosixFileAttributeView.class)) {
      assertEquals("rw-------", permissions(archive.file(new NodeId(0, 0))));
    }
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
    assertArrayEquals(new byte[] {4, 5, 6}, bytes(archive, id));
  }
}
