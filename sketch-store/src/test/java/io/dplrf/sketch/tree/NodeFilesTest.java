package io.dplrf.sketch.tree;

import static io.dplrf.sketch.tree.TreeCodecTest.KEY;
import static io.dplrf.sketch.tree.TreeCodecTest.SIZES;
import static io.dplrf.sketch.tree.TreeCodecTest.T;
import static io.dplrf.sketch.tree.TreeCodecTest.assertSameRelease;
import static io.dplrf.sketch.tree.TreeFixtures.PER_EPOCH;
import static io.dplrf.sketch.tree.TreeFixtures.feed;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.files.DamagedFileException;
import io.dplrf.sketch.files.WriteSteps;
import io.dplrf.sketch.params.Mechanism;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closed-node files under failure and damage: a node write refused at any step (disk full) leaves
 * no temp file and resumes to the same nodes; left-over temp files are removed when a store is
 * opened; a damaged node file is found by {@link ContinualSketch#verify} and named wherever it is
 * read.
 */
class NodeFilesTest {
  @TempDir Path dir;
  /** The dyadic intervals inside [1, T = 6]: 6 leaves, 3 pairs, [1, 4]. */
  private static final int NODES = 10;

  private static TreeConfig config() {
    return new TreeConfig(Mechanism.PRIV2_SPARSE, SIZES, TreeFixtures.PRIVACY, 2.0, T, false);
  }

  private static byte[] closedState(ContinualSketch tree) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    tree.writeClosedState(out);
    return out.toByteArray();
  }

  private static List<String> names(Path d, String glob) throws IOException {
    List<String> out = new ArrayList<>();
    try (var s = Files.newDirectoryStream(d, glob)) {
      s.forEach(p -> out.add(p.getFileName().toString()));
    }
    out.sort(null);
    return out;
  }

  /**
   * Every step of every node write of every close fails once, as a full disk would make it: each
   * failure leaves the close pending with no temp file behind, and calling finishClose again goes
   * on. The node files, snapshots and releases end identical to a tree that never failed.
   */
  @Test
  void nodeWritesRefusedOnceAtEveryStep_resumeToTheSameNodesSnapshotsAndReleases()
      throws Exception {
    Path good = dir.resolve("good");
    Path bad = dir.resolve("bad");
    ContinualSketch reference = ContinualSketch.create(config(), KEY, "s", good);
    ContinualSketch tree = ContinualSketch.create(config(), KEY, "s", bad);
    Set<String> failedOnce = new HashSet<>();
    List<String> failures = new ArrayList<>();
    try (var seam = WriteSteps.install((step, file) -> {
      if (file.startsWith(bad) && failedOnce.add(step + " " + file.getFileName())) {
        throw new IOException("No space left on device");
      }
    })) {
      for (int e = 1; e <= T; e++) {
        feed(reference, e, 0, PER_EPOCH);
        reference.closeEpoch();
        feed(tree, e, 0, PER_EPOCH);
        PendingClose p = tree.beginClose();
        while (true) {
          try {
            tree.finishClose(p);
            break;
          } catch (UncheckedIOException ex) {
            assertEquals("No space left on device", ex.getCause().getMessage());
            failures.add(ex.getMessage());
            assertEquals(e - 1, tree.epochsClosed(), "the close stays pending");
            assertEquals(List.of(), names(bad, "*.tmp"), "no temp file after " + ex.getMessage());
          }
        }
        assertArrayEquals(TreeCodecTest.bytes(reference), closedState(tree), "epoch " + e);
        assertSameRelease(reference.releasePrefix(e), tree.releasePrefix(e), "[1, " + e + "]");
      }
    }
    // Every step of each of the 10 nodes of [1, 6] failed once. (A refused CREATED of a direct
    // write is absorbed by the page-cache fallback, so fewer failures reach finishClose.)
    assertEquals(5 * NODES, failedOnce.size(), "" + failedOnce);
    assertTrue(failures.size() >= 4 * NODES, String.join("\n", failures));
    assertEquals(names(good, "*"), names(bad, "*"));
    for (String n : names(good, "*")) {
      assertArrayEquals(Files.readAllBytes(good.resolve(n)), Files.readAllBytes(bad.resolve(n)), n);
    }
    for (int s = 1; s <= T; s++) {
      for (int e = s; e <= T; e++) {
        assertSameRelease(reference.releaseRange(s, e), tree.releaseRange(s, e),
            "[" + s + ", " + e + "]");
      }
    }
  }

  /**
   * The released-epoch guard of a node directory (recovery.md §5): written before the first node
   * file and raised by every release, it cannot be removed, damaged or lowered unseen. A restore
   * refuses node files without it (naming it), a damaged or another stream's guard, a snapshot
   * older than it, and an old snapshot behind a lowered guard when later epochs' node files are
   * there; another epoch's node under a name is refused by its label wherever it is read.
   */
  @Test
  void theGuard_deletedLoweredOrDamaged_refusesTheRestore() throws Exception {
    Path nodes = dir.resolve("guarded");
    ContinualSketch tree = ContinualSketch.create(config(), KEY, "g", nodes);
    Path mark = nodes.resolve(NodeArchive.RELEASED_FILE);
    feed(tree, 1, 0, PER_EPOCH);
    tree.closeEpoch();
    assertTrue(Files.exists(mark), "the guard comes with the first node file");
    tree.releasePrefix(1);
    byte[] snap1 = closedState(tree);
    byte[] mark1 = Files.readAllBytes(mark);
    for (int e = 2; e <= 4; e++) {
      feed(tree, e, 0, PER_EPOCH);
      tree.closeEpoch();
      tree.releasePrefix(e);
    }
    byte[] snap4 = closedState(tree);
    byte[] markGood = Files.readAllBytes(mark);

    Files.delete(mark);
    DamagedFileException gone = assertThrows(DamagedFileException.class,
        () -> ContinualSketch.readFrom(new ByteArrayInputStream(snap4), KEY, nodes));
    assertEquals(mark, gone.file());
    assertTrue(gone.problem().contains("missing, while state files of the stream up to epoch 4"),
        gone.getMessage());

    Files.write(mark, mark1); // lowered, with the snapshot of epoch 1
    IOException older = assertThrows(IOException.class,
        () -> ContinualSketch.readFrom(new ByteArrayInputStream(snap1), KEY, nodes));
    assertTrue(older.getMessage().contains(".sketch belongs to epoch 4, but the snapshot"
        + " is of epoch 1"), older.getMessage());

    Files.write(mark, markGood);
    assertTrue(assertThrows(IOException.class,
        () -> ContinualSketch.readFrom(new ByteArrayInputStream(snap1), KEY, nodes)).getMessage()
        .contains("epochs up to 4 have been released"));
    byte[] flipped = markGood.clone();
    flipped[flipped.length - 5] ^= 1;
    Files.write(mark, flipped);
    assertEquals(mark, assertThrows(DamagedFileException.class,
        () -> ContinualSketch.readFrom(new ByteArrayInputStream(snap4), KEY, nodes)).file());
    Files.write(mark, io.dplrf.sketch.files.ReleasedMark.encode("h", 4));
    assertTrue(assertThrows(DamagedFileException.class,
        () -> ContinualSketch.readFrom(new ByteArrayInputStream(snap4), KEY, nodes)).problem()
        .contains("of stream h"));

    Files.write(mark, markGood);
    ContinualSketch restored = ContinualSketch.readFrom(new ByteArrayInputStream(snap4), KEY, nodes);
    assertEquals(4, restored.epochsClosed());
    Path leaf3 = nodes.resolve("node-0-2.sketch");
    Files.copy(nodes.resolve("node-0-3.sketch"), leaf3,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    UncheckedIOException swapped = assertThrows(UncheckedIOException.class,
        () -> restored.releaseRange(3, 3));
    assertEquals(leaf3, assertInstanceOf(DamagedFileException.class, swapped.getCause()).file());
  }

  /**
   * A node file of a close that a crash undid, put back alone (from an atomic file-system backup
   * taken between that close's node writes and its snapshot): the same label, other updates under
   * the same noise. The snapshot records every node file's CRC32C (tree format 6), so the release
   * that reads it, the background check and the restore refuse it, naming the file; the released
   * node is served once restored.
   */
  @Test
  void aNodeOfAnUndoneClose_putBackAlone_isRefused() throws Exception {
    Path nodes = dir.resolve("undone");
    ContinualSketch first = ContinualSketch.create(config(), KEY, "u", nodes);
    feed(first, 1, 0, PER_EPOCH);
    first.closeEpoch();
    byte[] snap1 = closedState(first);
    feed(first, 2, 0, PER_EPOCH); // the first attempt at epoch 2: data A
    first.closeEpoch();
    Path leaf2 = nodes.resolve("node-0-1.sketch");
    byte[] attemptA = Files.readAllBytes(leaf2); // in a backup taken now
    // kill -9 before the snapshot of epoch 2: the restart replays epoch 2 with data B
    ContinualSketch tree = ContinualSketch.readFrom(new ByteArrayInputStream(snap1), KEY, nodes);
    feed(tree, 2, PER_EPOCH, 2 * PER_EPOCH);
    tree.closeEpoch();
    byte[] snap2 = closedState(tree);
    var released = tree.releaseRange(2, 2);
    byte[] attemptB = Files.readAllBytes(leaf2);
    assertFalse(java.util.Arrays.equals(attemptA, attemptB), "the two attempts hold other data");

    Files.write(leaf2, attemptA); // the operator puts the backup's leaf back
    DamagedFileException read = assertInstanceOf(DamagedFileException.class,
        assertThrows(UncheckedIOException.class, () -> tree.releaseRange(2, 2)).getCause());
    assertEquals(leaf2, read.file());
    assertTrue(read.problem().contains("not the one the snapshot records"), read.getMessage());
    ContinualSketch restored = ContinualSketch.readFrom(new ByteArrayInputStream(snap2), KEY,
        nodes);
    ContinualSketch.StoredNode stored = restored.storedNodes().stream()
        .filter(n -> n.file().equals(leaf2)).findFirst().orElseThrow();
    assertEquals(leaf2, assertThrows(DamagedFileException.class, () -> restored.verify(stored))
        .file());
    Files.write(leaf2, attemptB);
    restored.verify(stored);
    assertSameRelease(released, restored.releaseRange(2, 2), "[2, 2] from the released leaf");
  }

  /** Temp files of node writes a crash interrupted are deleted when the store is opened. */
  @Test
  void tempFilesLeftByACrash_areDeletedWhenTheNodeStoreIsOpened() throws Exception {
    Path nodes = dir.resolve("nodes");
    ContinualSketch tree = ContinualSketch.create(config(), KEY, "t", nodes);
    feed(tree, 1, 0, PER_EPOCH);
    tree.closeEpoch();
    byte[] snapshot = TreeCodecTest.bytes(tree);
    Files.write(nodes.resolve("node-0-1.sketch.tmp"), new byte[0]);
    Files.write(nodes.resolve("node-1-0.sketch.tmp"), new byte[] {1, 2});
    Files.write(nodes.resolve("released.mark.tmp"), new byte[] {3});
    ContinualSketch.readFrom(new ByteArrayInputStream(snapshot), KEY, nodes);
    assertEquals(List.of("node-0-0.sketch", "released.mark"), names(nodes, "*"));

    Path fresh = dir.resolve("fresh");
    Files.createDirectories(fresh);
    Files.write(fresh.resolve("node-0-0.sketch.tmp"), new byte[0]);
    ContinualSketch.create(config(), KEY, "u", fresh); // a temp file alone is no earlier stream
    assertEquals(List.of(), names(fresh, "*"));
  }

  /** A tree with node files for epochs 1..T, all closed. */
  private ContinualSketch closedTree(Path nodes) {
    ContinualSketch tree;
    try {
      tree = ContinualSketch.create(config(), KEY, "v", nodes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (int e = 1; e <= T; e++) {
      feed(tree, e, 0, PER_EPOCH);
      tree.closeEpoch();
    }
    return tree;
  }

  /**
   * verify passes every intact node file, and fails, naming the file, for every single byte
   * flipped in one, for a truncated one, a missing one and one holding another node.
   */
  @Test
  void verify_findsEveryFlippedByte_truncation_absenceAndAnotherNode_namingTheFile()
      throws Exception {
    Path nodes = dir.resolve("nodes");
    ContinualSketch tree = closedTree(nodes);
    List<ContinualSketch.StoredNode> stored = tree.storedNodes();
    assertEquals(NODES, stored.size());
    for (ContinualSketch.StoredNode n : stored) {
      tree.verify(n);
    }
    ContinualSketch.StoredNode leaf3 = stored.stream()
        .filter(n -> n.level() == 0 && n.index() == 3).findFirst().orElseThrow();
    assertEquals(4, leaf3.firstEpoch());
    assertEquals(4, leaf3.lastEpoch());
    Path f = leaf3.file();
    assertEquals(nodes.resolve("node-0-3.sketch"), f);
    byte[] good = Files.readAllBytes(f);
    for (int at = 0; at < good.length; at++) {
      byte[] bad = good.clone();
      bad[at] ^= (byte) (1 << (at % 8));
      Files.write(f, bad);
      DamagedFileException e = assertThrows(DamagedFileException.class, () -> tree.verify(leaf3),
          "byte " + at + " of " + good.length);
      assertEquals(f, e.file());
      assertTrue(e.getMessage().startsWith(f + " is damaged: "), e.getMessage());
    }
    Files.write(f, java.util.Arrays.copyOf(good, good.length - 1));
    assertTrue(assertThrows(DamagedFileException.class, () -> tree.verify(leaf3)).problem()
        .contains("truncated"));
    Files.write(f, java.util.Arrays.copyOf(good, good.length + 1));
    assertThrows(DamagedFileException.class, () -> tree.verify(leaf3));
    Files.copy(nodes.resolve("node-0-2.sketch"), f, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    assertTrue(assertThrows(DamagedFileException.class, () -> tree.verify(leaf3)).problem()
        .contains("expected v/node/0/3"));
    Files.delete(f);
    assertEquals("missing", assertThrows(DamagedFileException.class, () -> tree.verify(leaf3))
        .problem());
    Files.write(f, good);
    tree.verify(leaf3);
  }

  /**
   * A damaged node file read for a range release, or at restore, fails with a DamagedFileException
   * naming that file — not the snapshot that names it.
   */
  @Test
  void damagedNodeFile_isNamedByRangeReleasesAndByTheRestore() throws Exception {
    Path nodes = dir.resolve("nodes");
    ContinualSketch tree = closedTree(nodes);
    tree.keepInMemoryAtMost(0); // every node read from its file
    byte[] snapshot = TreeCodecTest.bytes(tree);
    assertEquals(List.of(nodes.resolve("node-0-3.sketch")),
        tree.storedNodes(4, 4).stream().map(ContinualSketch.StoredNode::file).toList());

    Path leaf3 = nodes.resolve("node-0-3.sketch"); // epoch 4: in no prefix decomposition of [1, 6]
    byte[] good = Files.readAllBytes(leaf3);
    byte[] bad = good.clone();
    bad[bad.length / 2] ^= 0x10;
    Files.write(leaf3, bad);
    UncheckedIOException range = assertThrows(UncheckedIOException.class,
        () -> tree.releaseRange(4, 4));
    DamagedFileException d = assertInstanceOf(DamagedFileException.class, range.getCause());
    assertEquals(leaf3, d.file());
    assertTrue(d.problem().contains("checksum"), d.problem());
    tree.releaseRange(1, 6); // [1, 4] and [5, 6]: the damaged node is not read
    ContinualSketch.readFrom(new ByteArrayInputStream(snapshot), KEY, nodes); // nor at restore
    Files.write(leaf3, good);

    Path top = nodes.resolve("node-2-0.sketch"); // [1, 4]: in the prefix decomposition
    byte[] topGood = Files.readAllBytes(top);
    byte[] topBad = topGood.clone();
    topBad[topBad.length - 9] ^= 0x01;
    Files.write(top, topBad);
    DamagedFileException atRestore = assertThrows(DamagedFileException.class,
        () -> ContinualSketch.readFrom(new ByteArrayInputStream(snapshot), KEY, nodes));
    assertEquals(top, atRestore.file());
    Files.delete(top);
    DamagedFileException missing = assertThrows(DamagedFileException.class,
        () -> ContinualSketch.readFrom(new ByteArrayInputStream(snapshot), KEY, nodes));
    assertEquals(top, missing.file());
    assertTrue(missing.problem().contains("missing"), missing.problem());
    Files.write(top, topGood);
    ContinualSketch.readFrom(new ByteArrayInputStream(snapshot), KEY, nodes);
  }
}
