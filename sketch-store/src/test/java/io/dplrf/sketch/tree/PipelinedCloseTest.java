package io.dplrf.sketch.tree;

import io.dplrf.sketch.params.Mechanism;
import static io.dplrf.sketch.tree.TreeCodecTest.KEY;
import static io.dplrf.sketch.tree.TreeCodecTest.SIZES;
import static io.dplrf.sketch.tree.TreeCodecTest.T;
import static io.dplrf.sketch.tree.TreeCodecTest.assertSameRelease;
import static io.dplrf.sketch.tree.TreeFixtures.PER_EPOCH;
import static io.dplrf.sketch.tree.TreeFixtures.feed;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.lra.NoiseDerivation;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The pipelined close ({@link ContinualSketch#beginClose}, {@link ContinualSketch#finishClose}) is
 * {@link ContinualSketch#closeEpoch} in two steps: the same nodes, snapshots and releases, with
 * the next epoch's updates arriving while the first step's nodes are made on another thread.
 */
class PipelinedCloseTest {
  private static TreeConfig config(Mechanism mech) {
    return new TreeConfig(mech, SIZES, TreeFixtures.PRIVACY, 2.0, T, false);
  }

  private static byte[] closedState(ContinualSketch tree) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    tree.writeClosedState(out);
    return out.toByteArray();
  }

  /**
   * Epoch by epoch: the synchronous tree closes, the pipelined one begins its close, takes half of
   * the next epoch's updates while another thread finishes it, then the rest. After each close the
   * snapshot bytes are identical (the pipelined one leaves out the next epoch's updates, which lie
   * beyond its offsets), and every release, then and at the end, is bit-identical.
   */
  @ParameterizedTest
  @EnumSource(value = Mechanism.class, names = {"PRIV2", "PRIV2_SPARSE", "ROBUST_LRA",
      "ROBUST_PCA"})
  void pipelinedClose_givesTheSameSnapshotsAndReleasesAsCloseEpoch(Mechanism mech,
      @TempDir Path dir) throws Exception {
    assertPipelinedCloseEqualsCloseEpoch(mech, dir, PER_EPOCH);
  }

  /**
   * As above with epochs of several full banded buffers (priv2-sparse, buffer of 4,096 updates at
   * these sizes): flushes of full buffers inside each epoch, and the closer thread flushing the
   * rest of the set-aside accumulator while the owner fills the next one.
   */
  @Test
  void pipelinedClose_withFullBandedBuffers_givesTheSameSnapshotsAndReleases(@TempDir Path dir)
      throws Exception {
    assertPipelinedCloseEqualsCloseEpoch(Mechanism.PRIV2_SPARSE, dir, 3 * 4096 + 77);
  }

  private static void assertPipelinedCloseEqualsCloseEpoch(Mechanism mech, Path dir,
      int perEpoch) throws Exception {
    ContinualSketch sync = ContinualSketch.create(config(mech), KEY, "p", dir.resolve("sync"));
    ContinualSketch piped = ContinualSketch.create(config(mech), KEY, "p", dir.resolve("piped"));
    assertTrue(piped.closesInBackground());
    feed(sync, 1, 0, perEpoch);
    feed(piped, 1, 0, perEpoch);
    for (int e = 1; e <= T; e++) {
      sync.closeEpoch();
      byte[] syncSnapshot = TreeCodecTest.bytes(sync);
      PendingClose p = piped.beginClose();
      assertEquals(e, p.epoch());
      assertEquals(e - 1, piped.epochsClosed(), "nodes are not made yet");
      assertEquals(e, piped.epochsEnded());
      assertEquals(e == T, piped.exhausted());
      if (e == T) {
        assertNull(piped.accumulator, "no accumulator is made after the last epoch");
        assertThrows(IllegalStateException.class, () -> piped.update(0, 0, 1.0));
        assertTrue(piped.sizeInBytes() >= p.epochData().sizeInBytes());
      }
      CompletableFuture<Void> finishing = CompletableFuture.runAsync(() -> piped.finishClose(p));
      if (e < T) {
        feed(piped, e + 1, 0, perEpoch / 2); // the next epoch, while the nodes are made
      }
      finishing.get();
      assertEquals(e, piped.epochsClosed());
      assertEquals(e + 2 <= T, piped.spare != null, "a spare only for an epoch e + 2 <= T");
      assertArrayEquals(syncSnapshot, closedState(piped), "snapshot at the close of epoch " + e);
      assertSameRelease(sync.releasePrefix(e), piped.releasePrefix(e), "[1, " + e + "]");
      if (e < T) {
        feed(sync, e + 1, 0, perEpoch);
        feed(piped, e + 1, perEpoch / 2, perEpoch);
      }
    }
    for (int s = 1; s <= T; s++) {
      for (int e = s; e <= T; e++) {
        assertSameRelease(sync.releaseRange(s, e), piped.releaseRange(s, e), "[" + s + ", " + e + "]");
      }
    }
  }

  /**
   * The snapshot written at a pipelined close, restored, continues exactly as the synchronous
   * tree: the next epoch's updates already applied in memory are re-read after the restore.
   */
  @Test
  void snapshotOfAPipelinedClose_restoresAndContinuesIdentically(@TempDir Path dir)
      throws Exception {
    Mechanism mech = Mechanism.PRIV2_SPARSE;
    ContinualSketch sync = ContinualSketch.create(config(mech), KEY, "r", dir.resolve("sync"));
    ContinualSketch piped = ContinualSketch.create(config(mech), KEY, "r", dir.resolve("piped"));
    for (int e = 1; e <= 2; e++) {
      feed(sync, e, 0, PER_EPOCH);
      sync.closeEpoch();
      feed(piped, e, e == 1 ? 0 : 3, PER_EPOCH);
      PendingClose p = piped.beginClose();
      feed(piped, e + 1, 0, 3); // epoch 3's are lost below: beyond the snapshot's offsets
      piped.finishClose(p);
    }
    ContinualSketch restored = ContinualSketch.readFrom(
        new ByteArrayInputStream(closedState(piped)), KEY, dir.resolve("piped"));
    assertEquals(2, restored.epochsClosed());
    assertEquals(0, restored.accumulator.updateCount());
    TreeCodecTest.assertSameFuture(sync, restored);
  }

  /**
   * Keeping at most n closed nodes in memory changes nothing but memory: the same snapshots and,
   * for every prefix and range, the same releases as a tree that keeps them all, with parents
   * made from left siblings read back from their files (n = 0: every one); a snapshot restored
   * with the limit continues identically.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({"PRIV1, 0", "PRIV2, 0", "PRIV2_SPARSE, 1",
      "ROBUST_LRA, 0"})
  void nodesKeptInMemoryAtMostN_releaseAndSnapshotAsIfAllWereKept(Mechanism mech, int n,
      @TempDir Path dir) throws Exception {
    ContinualSketch all = ContinualSketch.create(config(mech), KEY, "m", dir.resolve("all"));
    ContinualSketch few = ContinualSketch.create(config(mech), KEY, "m", dir.resolve("few"));
    few.keepInMemoryAtMost(n);
    for (int e = 1; e <= T; e++) {
      feed(all, e, 0, PER_EPOCH);
      feed(few, e, 0, PER_EPOCH);
      all.closeEpoch();
      if (few.closesInBackground()) {
        few.finishClose(few.beginClose());
      } else {
        few.closeEpoch();
      }
      assertTrue(few.retained.size() <= n, few.retained.keySet() + " kept at epoch " + e);
      assertEquals(Dyadic.decomposition(1, e).size(), all.retained.size());
      assertArrayEquals(closedState(all), closedState(few), "snapshot at the close of epoch " + e);
      assertSameRelease(all.releasePrefix(e), few.releasePrefix(e), "[1, " + e + "]");
      if (e == 3) {
        ContinualSketch restored = ContinualSketch.readFrom(
            new ByteArrayInputStream(closedState(few)), KEY, dir.resolve("few"), n);
        assertTrue(restored.retained.size() <= n);
        assertSameRelease(all.releasePrefix(3), restored.releasePrefix(3), "[1, 3] restored");
      }
    }
    for (int s = 1; s <= T; s++) {
      for (int e = s; e <= T; e++) {
        assertSameRelease(all.releaseRange(s, e), few.releaseRange(s, e), "[" + s + ", " + e + "]");
      }
    }
    assertThrows(IllegalStateException.class,
        () -> ContinualSketch.create(config(mech), KEY, "mem").keepInMemoryAtMost(1),
        "a tree archived in memory has every node in memory");
  }

  /** A snapshot restored with a limit continues exactly as the tree that kept every node. */
  @Test
  void snapshotRestoredWithALimit_continuesIdentically(@TempDir Path dir) throws Exception {
    Mechanism mech = Mechanism.PRIV2_SPARSE;
    ContinualSketch all = ContinualSketch.create(config(mech), KEY, "l", dir.resolve("all"));
    ContinualSketch few = ContinualSketch.create(config(mech), KEY, "l", dir.resolve("few"));
    TreeCodecTest.feedUntilMidEpoch3(all);
    TreeCodecTest.feedUntilMidEpoch3(few);
    ContinualSketch restored = ContinualSketch.readFrom(
        new ByteArrayInputStream(TreeCodecTest.bytes(few)), KEY, dir.resolve("few"), 0);
    assertEquals(0, restored.retained.size());
    TreeCodecTest.assertSameFuture(all, restored);
    assertTrue(restored.retained.isEmpty());
  }

  /**
   * While another thread finishes epoch 1's close, the owner keeps updating epoch 2 of T = 2 and
   * reading exhausted(): it must never see the tree exhausted (a close half-installed by the
   * closer — epochsClosed advanced, the close still pending — once counted epoch 1 twice and
   * made update() throw "all T epochs are closed" mid-epoch).
   */
  @Test
  void owner_neverSeesTheTreeExhausted_whileTheCloserInstallsAClose(@TempDir Path dir)
      throws Exception {
    for (int run = 0; run < 200; run++) {
      TreeConfig c = new TreeConfig(Mechanism.PRIV2_SPARSE, SIZES, TreeFixtures.PRIVACY,
          2.0, 2, false);
      ContinualSketch tree = ContinualSketch.create(c, KEY, "race", dir.resolve("n" + run));
      feed(tree, 1, 0, PER_EPOCH);
      PendingClose p = tree.beginClose();
      CompletableFuture<Void> finishing = CompletableFuture.runAsync(() -> tree.finishClose(p));
      int x = 0;
      while (!finishing.isDone()) {
        assertFalse(tree.exhausted(), "run " + run + ": exhausted after 1 of 2 epochs");
        tree.update(x % SIZES.m(), x % SIZES.n(), 1);
        x++;
      }
      finishing.get();
      assertEquals(1, tree.epochsEnded());
    }
  }

  @Test
  void whilePending_synchronousCloseSnapshotAndSecondBeginAreRefused(@TempDir Path dir)
      throws IOException {
    ContinualSketch tree = ContinualSketch.create(config(Mechanism.PRIV2), KEY, "x",
        dir.resolve("nodes"));
    feed(tree, 1, 0, PER_EPOCH);
    PendingClose p = tree.beginClose();
    assertThrows(IllegalStateException.class, tree::closeEpoch);
    assertThrows(IllegalStateException.class, tree::beginClose);
    assertThrows(IllegalStateException.class, () -> tree.writeTo(new ByteArrayOutputStream()));
    assertThrows(IllegalStateException.class,
        () -> tree.writeClosedState(new ByteArrayOutputStream()));
    assertThrows(IllegalArgumentException.class, () -> tree.releasePrefix(1));
    tree.finishClose(p);
    assertThrows(IllegalStateException.class, () -> tree.finishClose(p), "finished twice");
    assertEquals(1, tree.epochsClosed());
  }

  @Test
  void onlyTreesWithNodeFilesWhoseNodesAreMadeFromChildren_closeInBackground(@TempDir Path dir)
      throws IOException {
    ContinualSketch priv1 = ContinualSketch.create(config(Mechanism.PRIV1), KEY, "a",
        dir.resolve("a"));
    ContinualSketch inMemory = ContinualSketch.create(config(Mechanism.PRIV2), KEY, "b");
    for (ContinualSketch tree : new ContinualSketch[] {priv1, inMemory}) {
      assertFalse(tree.closesInBackground());
      assertThrows(IllegalStateException.class, tree::beginClose);
      assertEquals(0, tree.epochsEnded(), "a refused begin changes nothing");
    }
  }

  /** A node write that fails leaves the close pending and the closed epochs as they were. */
  @Test
  void failedNodeWrite_leavesTheEpochUnclosed(@TempDir Path dir) {
    NodeArchive.Directory failing = new NodeArchive.Directory(dir.resolve("nodes"), d -> {
      throw new IOException("disk full");
    });
    ContinualSketch tree = ContinualSketch.create(config(Mechanism.PRIV2), KEY, "f", failing,
        NoiseDerivation.CURRENT);
    feed(tree, 1, 0, PER_EPOCH);
    PendingClose p = tree.beginClose();
    assertThrows(UncheckedIOException.class, () -> tree.finishClose(p));
    assertEquals(0, tree.epochsClosed());
    assertThrows(IllegalStateException.class, () -> tree.writeTo(new ByteArrayOutputStream()),
        "no snapshot may be taken of a tree whose close failed");
  }
}
