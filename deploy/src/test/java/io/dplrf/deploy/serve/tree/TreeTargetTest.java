package io.dplrf.deploy.serve.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.sketch.continual.BltConfig;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.tree.TreeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TreeTargetTest {
  static final TreeConfig CONFIG = new TreeConfig(Mechanism.PRIV2,
      SketchSizes.of(20, 10, 2, null, null, 0.25), new PrivacyParams(1, 1e-6), 1.0, 4, false);
  static final SecretKey KEY = SecretKey.forTesting(1);
  /** How long a wait for the background node-file check may take: a bound on a hang only. */
  private static final Duration HANG = Duration.ofSeconds(120);

  @TempDir Path dir;

  @Test
  void open_withoutSnapshot_butNodeFilesOfAnEarlierRun_isRefused_andDeletesNothing()
      throws Exception {
    Path nodes = Files.createDirectories(dir.resolve("nodes"));
    byte[] earlier = {1, 2, 3};
    Files.write(nodes.resolve("node-0-0.sketch"), earlier);
    IOException e = assertThrows(IOException.class,
        () -> TreeTarget.tree(CONFIG, KEY, nodes, false));
    String m = e.getMessage();
    assertTrue(m.contains(nodes.toString()) && m.contains("no snapshot")
        && m.contains("privacy budget a second time") && m.contains("new, empty state-dir"), m);
    assertTrue(!m.contains("\n"), "one line: " + m);
    assertArrayEquals(earlier, Files.readAllBytes(nodes.resolve("node-0-0.sketch")));
  }

  @Test
  void open_withoutSnapshot_andNoNodeFiles_startsANewRun() throws Exception {
    Path nodes = dir.resolve("nodes");
    TreeTarget fresh = TreeTarget.tree(CONFIG, KEY, nodes, false);
    assertEquals(0, fresh.epochsClosed());
    assertTrue(Files.isDirectory(nodes));
    if (Files.getFileStore(nodes).supportsFileAttributeView(
        java.nio.file.attribute.PosixFileAttributeView.class)) {
      assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
          Files.getPosixFilePermissions(nodes)));
    }
    // an empty node directory (created by a start that crashed before any epoch closed) is fine
    assertEquals(0, TreeTarget.tree(CONFIG, KEY, nodes, false).epochsClosed());
  }

  @Test
  void open_withSnapshot_leavesTheNodeFilesToTheRestore() throws Exception {
    Path nodes = Files.createDirectories(dir.resolve("nodes"));
    Files.write(nodes.resolve("node-0-0.sketch"), new byte[] {1});
    assertEquals(0, TreeTarget.tree(CONFIG, KEY, nodes, true).epochsClosed());
    assertTrue(Files.exists(nodes.resolve("node-0-0.sketch")));
  }

  /** Three closed epochs of a few updates each, nodes in {@code dir/nodes}. */
  private TreeTarget threeEpochs() throws IOException {
    TreeTarget t = TreeTarget.tree(CONFIG, KEY, dir.resolve("nodes"), false);
    for (int e = 1; e <= 3; e++) {
      t.update(e, e, 0.5);
      t.update(2 * e, e + 1, -0.25);
      t.closeEpoch();
    }
    t.releasable(3); // as the loop's listener says once the snapshot is durable
    return t;
  }

  /**
   * Fewer prefix nodes kept in memory, fewer bytes held (two kept after three epochs: [1, 2] and
   * [3]); the limit also applies to the tree readState reads, which releases the same.
   */
  @Test
  void keepInMemoryAtMost_appliesNowAndToTheRestoredTree() throws Exception {
    TreeTarget all = threeEpochs();
    double[] expected = all.prefix(3, 2).factorization().s();
    java.io.ByteArrayOutputStream snapshot = new java.io.ByteArrayOutputStream();
    all.writeState(snapshot);
    long two = all.sizeInBytes();
    all.keepInMemoryAtMost(1);
    long one = all.sizeInBytes();
    all.keepInMemoryAtMost(0);
    long none = all.sizeInBytes();
    assertTrue(none < one && one < two, none + " < " + one + " < " + two);
    TreeTarget restored = TreeTarget.tree(CONFIG, KEY, dir.resolve("nodes"), true);
    restored.keepInMemoryAtMost(0);
    restored.readState(new java.io.ByteArrayInputStream(snapshot.toByteArray()));
    assertEquals(none, restored.sizeInBytes());
    assertArrayEquals(expected, restored.prefix(3, 2).factorization().s());
    assertArrayEquals(expected, all.prefix(3, 2).factorization().s());
  }

  /**
   * A range's release is the same every time (closed nodes, keyed noise), so the last few are
   * kept; the least recently used goes first.
   */
  @Test
  void rangeRelease_keepsTheLastFewRanges() throws Exception {
    assertEquals(4, TreeTarget.RECENT_RANGES, "the sequence below assumes 4");
    TreeTarget t = threeEpochs();
    ServedRelease r11 = t.rangeRelease(1, 1);
    ServedRelease r23 = t.rangeRelease(2, 3);
    assertSame(r23, t.rangeRelease(2, 3));
    t.rangeRelease(2, 2);
    t.rangeRelease(3, 3); // four kept: (1, 1), (2, 3), (2, 2), (3, 3)
    assertSame(r11, t.rangeRelease(1, 1)); // now the most recently used
    t.rangeRelease(1, 2); // a fifth: (2, 3), the least recently used, is dropped
    assertSame(r11, t.rangeRelease(1, 1));
    ServedRelease again = t.rangeRelease(2, 3);
    assertNotSame(r23, again, "computed again");
    // ... and equal: the same nodes with the same keyed noise
    assertArrayEquals(r23.factorization().s(), again.factorization().s());
    assertArrayEquals(r23.factorization().u().data(), again.factorization().u().data());
  }

  /**
   * One release computation at a time: a range request waits for another release to finish, up
   * to {@code rangeWait}, then is refused (503); beyond {@code RANGE_SLOTS} under way, at once.
   */
  @Test
  void rangeRelease_waitsForAnotherRelease_thenIsRefused() throws Exception {
    TreeTarget t = threeEpochs();
    t.rangeWait = Duration.ofMillis(50);
    t.computing.acquire(); // as a prefix release would hold it
    IllegalStateException busy = assertThrows(IllegalStateException.class,
        () -> t.rangeRelease(1, 2));
    assertTrue(busy.getMessage().contains("another release has been computed for"),
        busy.getMessage());
    assertEquals(TreeTarget.RANGE_SLOTS, t.rangeSlots.availablePermits(), "slot returned");

    t.rangeWait = Duration.ofSeconds(60);
    Thread prefix = new Thread(() -> {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      t.computing.release(); // the prefix release ends
    });
    prefix.start();
    assertEquals(2, t.rangeRelease(1, 2).epoch(), "answered once the other release ended");
    prefix.join();
    assertEquals(1, t.computing.availablePermits(), "the permit is returned");

    t.rangeSlots.acquire(TreeTarget.RANGE_SLOTS); // two requests under way
    IllegalStateException full = assertThrows(IllegalStateException.class,
        () -> t.rangeRelease(2, 3));
    assertTrue(full.getMessage().contains("already being computed or waiting"),
        full.getMessage());
    t.rangeSlots.release(TreeTarget.RANGE_SLOTS);
    IllegalStateException open = assertThrows(IllegalStateException.class,
        () -> t.rangeRelease(1, 4));
    assertTrue(open.getMessage().contains("have not closed yet"), open.getMessage());
  }

  /**
   * Ranges are released only up to the last epoch whose snapshot is durable: a close that is not
   * may be redone after a crash on replayed data with the same noise.
   */
  @Test
  void rangeRelease_onlyUpToTheLastDurableEpoch() throws Exception {
    TreeTarget t = TreeTarget.tree(CONFIG, KEY, dir.resolve("nodes"), false);
    t.update(1, 1, 0.5);
    t.closeEpoch();
    t.releasable(1);
    t.update(2, 2, 0.5);
    t.closeEpoch(); // epoch 2 closed in memory, its snapshot not (yet) durable
    assertEquals(1, t.rangeRelease(1, 1).epoch());
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.rangeRelease(2, 2));
    assertTrue(e.getMessage().contains("have not closed yet"), e.getMessage());
    t.releasable(2);
    assertEquals(2, t.rangeRelease(2, 2).epoch());
  }

  /** Temp files of interrupted node writes are no evidence of an earlier run: deleted, started. */
  @Test
  void open_withoutSnapshot_andOnlyTempFilesOfNodeWrites_startsANewRun() throws Exception {
    Path nodes = Files.createDirectories(dir.resolve("nodes"));
    Files.write(nodes.resolve("node-0-0.sketch.tmp"), new byte[0]);
    assertEquals(0, TreeTarget.tree(CONFIG, KEY, nodes, false).epochsClosed());
    try (var list = Files.list(nodes)) {
      assertEquals(0, list.count());
    }
  }

  /**
   * A damaged closed-node file outside the latest prefix's decomposition: the restore does not
   * read it, the background check finds it and names it; the ranges that need it answer a
   * DamagedStateException naming the file (a 500 with that message), the others are released;
   * the health is degraded with one reason; once the file is restored, the check forgets it.
   */
  @Test
  void damagedNodeFile_isFoundByTheCheck_refusesItsRanges_andIsForgottenOnceRestored()
      throws Exception {
    TreeTarget t = threeEpochs();
    java.io.ByteArrayOutputStream snapshot = new java.io.ByteArrayOutputStream();
    t.writeState(snapshot);
    Path nodes = dir.resolve("nodes");
    Path leaf2 = nodes.resolve("node-0-2.sketch"); // epoch 3: the prefix [1, 3] uses [1, 2] + [3]
    Path leaf1 = nodes.resolve("node-0-1.sketch"); // epoch 2: only in ranges such as [2, 2]
    byte[] good = Files.readAllBytes(leaf1);
    byte[] bad = good.clone();
    bad[bad.length / 2] ^= 0x04;
    Files.write(leaf1, bad);
    assertTrue(Files.exists(leaf2));

    TreeTarget restored = TreeTarget.tree(CONFIG, KEY, nodes, true);
    restored.readState(new java.io.ByteArrayInputStream(snapshot.toByteArray())); // starts
    restored.releasable(3);
    restored.files.recheckMillis = 20;
    restored.checkNodeFiles();
    awaitDamagedFiles(restored, 1);
    var health = restored.health();
    assertEquals("degraded", health.status());
    assertEquals(1, health.reasons().size());
    String reason = health.reasons().get(0).message();
    assertEquals("state-file-damaged", health.reasons().get(0).code());
    assertTrue(reason.contains("nodes/node-0-1.sketch (epochs 2..2)")
        && reason.contains("checksum") && reason.contains("restore it from a backup")
        && !reason.contains(dir.toString()), reason);

    io.dplrf.deploy.http.DamagedStateException refused = assertThrows(
        io.dplrf.deploy.http.DamagedStateException.class, () -> restored.rangeRelease(2, 2));
    assertTrue(refused.getMessage().contains("[2, 2] needs the closed-node file"
        + " nodes/node-0-1.sketch (epochs 2..2), which is damaged"), refused.getMessage());
    assertThrows(io.dplrf.deploy.http.DamagedStateException.class,
        () -> restored.rangeRelease(2, 3)); // the nodes [2] and [3]
    assertEquals(2, restored.rangeRelease(1, 2).to(), "[1, 2] is one node of its own");
    assertEquals(3, restored.rangeRelease(3, 3).epoch());
    assertEquals(2, restored.prefix(3, 2).factorization().s().length, "the prefix is released");

    Files.write(leaf1, good); // the operator restores it from a backup
    awaitDamagedFiles(restored, 0);
    assertEquals("ok", restored.health().status());
    assertEquals(2, restored.rangeRelease(2, 2).to());
    restored.close();
  }

  /** A damage found by a read, before the check got there, is recorded and named the same way. */
  @Test
  void damagedNodeFile_foundByARangeRelease_isRecordedAndNamed() throws Exception {
    TreeTarget t = threeEpochs();
    t.keepInMemoryAtMost(0);
    Path leaf1 = dir.resolve("nodes").resolve("node-0-1.sketch");
    byte[] bad = Files.readAllBytes(leaf1);
    bad[bad.length - 20] ^= 0x01;
    Files.write(leaf1, bad);
    io.dplrf.deploy.http.DamagedStateException e = assertThrows(
        io.dplrf.deploy.http.DamagedStateException.class, () -> t.rangeRelease(2, 2));
    assertTrue(e.getMessage().contains("nodes/node-0-1.sketch"), e.getMessage());
    assertEquals(1, t.damagedFiles());
    assertEquals(TreeTarget.RANGE_SLOTS, t.rangeSlots.availablePermits(), "slot returned");
    assertEquals(1, t.computing.availablePermits(), "permit returned");
  }

  static final BltConfig BLT = new BltConfig(Mechanism.PRIV2_SPARSE, NeighbouringRelation.ONE_ENTRY,
      SketchSizes.of(20, 10, 2, 8, 8, 0.25), new PrivacyParams(1, 1e-6), 1.0, 4, true);

  /** Three closed epochs of the same updates as {@link #threeEpochs}, through the BLT stream. */
  private TreeTarget threeEpochsFactorized(Path state) throws IOException {
    TreeTarget t = TreeTarget.factorization(BLT, KEY, state, false);
    for (int e = 1; e <= 3; e++) {
      t.update(e, e, 0.5);
      t.update(2 * e, e + 1, -0.25);
      t.closeEpoch();
    }
    t.writeState(java.io.OutputStream.nullOutputStream()); // as the loop does before a release
    t.releasable(3); // the loop's listener, once that snapshot is durable
    return t;
  }

  /**
   * continual = factorization: a prefix is R_t, a range R_e − R_{s−1}; both are read from the
   * stream's files, so a restored target releases the same bits, prefixes and ranges alike.
   */
  @Test
  void factorization_releasesPrefixesAndRanges_theSameAfterARestore() throws Exception {
    TreeTarget t = threeEpochsFactorized(dir.resolve("blt"));
    assertTrue(t.stream() instanceof FactorizationStream);
    double[] prefix = t.prefix(3, 2).factorization().s();
    double[] range = t.rangeRelease(2, 3).factorization().s();
    assertEquals(3, t.rangeRelease(1, 3).epoch());
    java.io.ByteArrayOutputStream snapshot = new java.io.ByteArrayOutputStream();
    t.writeState(snapshot);
    TreeTarget restored = TreeTarget.factorization(BLT, KEY, dir.resolve("blt"), true);
    restored.readState(new java.io.ByteArrayInputStream(snapshot.toByteArray()));
    restored.releasable(3); // TreeMode.restored
    assertEquals(3, restored.epochsClosed());
    assertArrayEquals(prefix, restored.prefix(3, 2).factorization().s());
    assertArrayEquals(range, restored.rangeRelease(2, 3).factorization().s());
    // the range's noise is the difference of two prefixes' noise: not the prefix's release
    assertTrue(!java.util.Arrays.equals(prefix, range));
  }

  private static void flipByte(Path f, int at) throws IOException {
    byte[] b = Files.readAllBytes(f);
    b[at < 0 ? b.length + at : at] ^= 0x04;
    Files.write(f, b);
  }

  /**
   * continual = factorization, a flipped byte in R_1, which the restore does not read: the
   * background check finds it and names it; the releases that read R_1 (the prefix [1, 1], the
   * ranges [1, 1] and [2, e]) answer a DamagedStateException naming the file, the others are
   * released; the health is degraded with one reason; once the file is restored, it is forgotten.
   */
  @Test
  void factorization_damagedPrefixFile_isFoundByTheCheck_refusesTheReleasesThatReadIt()
      throws Exception {
    TreeTarget t = threeEpochsFactorized(dir.resolve("blt"));
    java.io.ByteArrayOutputStream snapshot = new java.io.ByteArrayOutputStream();
    t.writeState(snapshot);
    Path r1 = dir.resolve("blt").resolve("blt-release-1.sketch");
    byte[] good = Files.readAllBytes(r1);
    flipByte(r1, -50);

    TreeTarget restored = TreeTarget.factorization(BLT, KEY, dir.resolve("blt"), true);
    restored.readState(new java.io.ByteArrayInputStream(snapshot.toByteArray())); // starts
    restored.releasable(3);
    restored.files.recheckMillis = 20;
    assertEquals("ok", restored.health().status());
    restored.checkNodeFiles();
    awaitDamagedFiles(restored, 1);
    var health = restored.health();
    assertEquals("degraded", health.status());
    assertEquals(1, health.reasons().size());
    assertEquals("state-file-damaged", health.reasons().get(0).code());
    String reason = health.reasons().get(0).message();
    assertTrue(reason.contains("the prefix file blt/blt-release-1.sketch (epochs 1..1)")
        && reason.contains("checksum") && reason.contains("the releases that end at its epoch or start right after it")
        && reason.contains("restore it from a backup") && !reason.contains(dir.toString())
        && !reason.contains("a restart would be refused"), reason);

    io.dplrf.deploy.http.DamagedStateException refused = assertThrows(
        io.dplrf.deploy.http.DamagedStateException.class, () -> restored.rangeRelease(2, 3));
    assertTrue(refused.getMessage().contains("[2, 3] needs the prefix file"
        + " blt/blt-release-1.sketch (epochs 1..1), which is damaged"), refused.getMessage());
    assertThrows(io.dplrf.deploy.http.DamagedStateException.class,
        () -> restored.rangeRelease(1, 1));
    assertThrows(io.dplrf.deploy.http.DamagedStateException.class, () -> restored.prefix(1, 2));
    assertEquals(3, restored.rangeRelease(1, 3).to());
    assertEquals(3, restored.rangeRelease(3, 3).epoch());
    assertEquals(2, restored.prefix(3, 2).factorization().s().length, "the prefix is released");

    Files.write(r1, good); // the operator restores it from a backup
    awaitDamagedFiles(restored, 0);
    assertEquals("ok", restored.health().status());
    assertEquals(2, restored.rangeRelease(2, 2).to());
    restored.close();
  }

  /**
   * A truncated R_2: found at start by the cheap check (every R file has R_e's length), before
   * checkNodeFiles returns.
   */
  @Test
  void factorization_truncatedPrefixFile_isFoundAtStart() throws Exception {
    TreeTarget t = threeEpochsFactorized(dir.resolve("blt"));
    java.io.ByteArrayOutputStream snapshot = new java.io.ByteArrayOutputStream();
    t.writeState(snapshot);
    Path r2 = dir.resolve("blt").resolve("blt-release-2.sketch");
    byte[] b = Files.readAllBytes(r2);
    Files.write(r2, java.util.Arrays.copyOf(b, b.length - 1));
    TreeTarget restored = TreeTarget.factorization(BLT, KEY, dir.resolve("blt"), true);
    restored.readState(new java.io.ByteArrayInputStream(snapshot.toByteArray()));
    restored.releasable(3);
    restored.checkNodeFiles();
    assertEquals(1, restored.damagedFiles(), "found before checkNodeFiles returns");
    String reason = restored.health().reasons().get(0).message();
    // The background check starts as checkNodeFiles returns and may already have read the file
    // and recorded the truncation in its own words; either finding names the file.
    assertTrue(reason.contains("blt/blt-release-2.sketch (epochs 1..2)")
        && (reason.contains("bytes, but every prefix release file of this stream has")
            || reason.contains("truncated")), reason);
    restored.close();
  }

  /**
   * A damage found by the release after an epoch (its R_t read back): the release is refused
   * naming the file, and the health says a restart would be refused (the restore needs R_t);
   * ingest goes on, and the next epoch is closed and released from the state in memory.
   */
  @Test
  void factorization_damagedLatestPrefix_refusesItsRelease_andTheNextEpochIsReleased()
      throws Exception {
    TreeTarget t = threeEpochsFactorized(dir.resolve("blt"));
    flipByte(dir.resolve("blt").resolve("blt-release-3.sketch"), -30);
    io.dplrf.deploy.http.DamagedStateException e = assertThrows(
        io.dplrf.deploy.http.DamagedStateException.class, () -> t.prefix(3, 2));
    assertTrue(e.getMessage().contains("[1, 3] needs the prefix file blt/blt-release-3.sketch"),
        e.getMessage());
    assertEquals(1, t.damagedFiles());
    assertEquals(1, t.computing.availablePermits(), "permit returned");
    assertTrue(t.health().reasons().get(0).message().contains("a restart would be refused"),
        t.health().reasons().get(0).message());

    t.update(4, 4, 0.5);
    t.closeEpoch();
    t.writeState(java.io.OutputStream.nullOutputStream());
    t.releasable(4);
    assertEquals(2, t.prefix(4, 2).factorization().s().length);
    assertEquals(4, t.rangeRelease(1, 4).to());
    assertThrows(io.dplrf.deploy.http.DamagedStateException.class,
        () -> t.rangeRelease(4, 4)); // R_4 − R_3
    assertTrue(!t.health().reasons().get(0).message().contains("a restart would be refused"),
        "the restore after epoch 4 reads R_4, not R_3");
  }

  /**
   * A stream is released one way for its whole life: a snapshot of the tree is refused by a
   * factorization target and the other way round, and so are BLT files without a snapshot.
   */
  @Test
  void aSnapshotOfTheOtherContinualKind_isRefused() throws Exception {
    java.io.ByteArrayOutputStream tree = new java.io.ByteArrayOutputStream();
    threeEpochs().writeState(tree);
    java.io.ByteArrayOutputStream blt = new java.io.ByteArrayOutputStream();
    threeEpochsFactorized(dir.resolve("blt")).writeState(blt);

    TreeTarget asBlt = TreeTarget.factorization(BLT, KEY, dir.resolve("blt"), true);
    IOException e1 = assertThrows(IOException.class,
        () -> asBlt.readState(new java.io.ByteArrayInputStream(tree.toByteArray())));
    assertTrue(e1.getMessage().contains("continual = factorization"), e1.getMessage());
    TreeTarget asTree = TreeTarget.tree(CONFIG, KEY, dir.resolve("nodes"), true);
    IOException e2 = assertThrows(IOException.class,
        () -> asTree.readState(new java.io.ByteArrayInputStream(blt.toByteArray())));
    assertTrue(e2.getMessage().contains("continual = tree"), e2.getMessage());

    IOException e3 = assertThrows(IOException.class,
        () -> TreeTarget.factorization(BLT, KEY, dir.resolve("blt"), false));
    assertTrue(e3.getMessage().contains("no snapshot"), e3.getMessage());
  }

  /**
   * Waits until the background check has recorded {@code expected} damaged files (or forgotten
   * them all, once restored); the deadline only bounds a hang.
   */
  private static void awaitDamagedFiles(TreeTarget t, int expected) throws InterruptedException {
    long deadline = System.nanoTime() + HANG.toNanos();
    while (t.damagedFiles() != expected && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertEquals(expected, t.damagedFiles());
  }
}
