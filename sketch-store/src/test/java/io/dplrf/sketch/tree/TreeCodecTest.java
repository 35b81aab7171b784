package io.dplrf.sketch.tree;

import io.dplrf.sketch.params.Mechanism;
import static io.dplrf.sketch.tree.TreeFixtures.PER_EPOCH;
import static io.dplrf.sketch.tree.TreeFixtures.feed;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.lra.NoiseDerivation;
import io.dplrf.sketch.lra.Priv1Sketches;
import io.dplrf.sketch.lra.Priv2Sketches;
import io.dplrf.sketch.lra.ReleasedSketches;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class TreeCodecTest {
  static final SecretKey KEY = SecretKey.forTesting(41);
  static final SketchSizes SIZES = new SketchSizes(12, 9, 2, 4, 8);
  static final int T = 6;

  /** The golden content: 2 epochs closed and half of epoch 3 in the accumulator. */
  static ContinualSketch golden(Mechanism mech) {
    return golden(mech, NoiseDerivation.CURRENT);
  }

  /** As a stream of a build whose sketches derive their noise as {@code derivation} says. */
  static ContinualSketch golden(Mechanism mech, NoiseDerivation derivation) {
    return golden(mech, TreeConfig.defaultRelation(mech), derivation);
  }

  /** The golden content of a stream calibrated for {@code relation}. */
  static ContinualSketch golden(Mechanism mech, NeighbouringRelation relation,
      NoiseDerivation derivation) {
    ContinualSketch tree = ContinualSketch.create(
        new TreeConfig(mech, relation, SIZES, TreeFixtures.PRIVACY, 2.0, T, false, 1), KEY,
        "golden/tree-" + mech.cliName(), NodeArchive.memory(), derivation);
    feedUntilMidEpoch3(tree);
    return tree;
  }

  /**
   * The golden file's name: the mechanism, then the relation where it is not the mechanism's
   * default (a key or row unit's entrywise-ℓ1 stream), then the format version.
   */
  static String goldenName(Mechanism mech, NeighbouringRelation relation, int version) {
    return "tree-" + mech.cliName() + (relation == TreeConfig.defaultRelation(mech) ? ""
        : "-" + relation.cliName()) + "-v" + version + ".snapshot";
  }

  static void feedUntilMidEpoch3(ContinualSketch tree) {
    for (int e = 1; e <= 2; e++) {
      feed(tree, e, 0, PER_EPOCH);
      tree.closeEpoch();
    }
    feed(tree, 3, 0, PER_EPOCH / 2);
  }

  static void finish(ContinualSketch tree) {
    feed(tree, 3, PER_EPOCH / 2, PER_EPOCH);
    tree.closeEpoch();
    while (!tree.exhausted()) {
      feed(tree, tree.epochsClosed() + 1, 0, PER_EPOCH);
      tree.closeEpoch();
    }
  }

  static byte[] bytes(ContinualSketch tree) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    tree.writeTo(out);
    return out.toByteArray();
  }

  static void assertSameRelease(ReleasedSketches a, ReleasedSketches b, String what) {
    if (a instanceof Priv1Sketches p) {
      Priv1Sketches q = (Priv1Sketches) b;
      assertArrayEquals(p.yc().data(), q.yc().data(), what);
      assertArrayEquals(p.yr().data(), q.yr().data(), what);
      assertArrayEquals(p.z().data(), q.z().data(), what);
      assertEquals(p.sigmaMin(), q.sigmaMin(), what);
    } else if (a instanceof RobustSketches p) {
      RobustSketches q = (RobustSketches) b;
      assertArrayEquals(p.yr().data(), q.yr().data(), what);
      assertEquals(p.pca(), q.pca(), what);
      if (!p.pca()) {
        assertArrayEquals(p.yc().data(), q.yc().data(), what);
      }
      assertArrayEquals(p.z().data(), q.z().data(), what);
      assertEquals(p.p(), q.p(), what);
    } else {
      Priv2Sketches p = (Priv2Sketches) a;
      Priv2Sketches q = (Priv2Sketches) b;
      assertArrayEquals(p.y().data(), q.y().data(), what);
      assertArrayEquals(p.z().data(), q.z().data(), what);
    }
  }

  static void assertSameFuture(ContinualSketch a, ContinualSketch b) {
    finish(a);
    finish(b);
    for (int s = 1; s <= T; s++) {
      for (int e = s; e <= T; e++) {
        assertSameRelease(a.releaseRange(s, e), b.releaseRange(s, e), "[" + s + ", " + e + "]");
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = Mechanism.class, names = {"PRIV1", "PRIV2", "PRIV2_SPARSE", "ROBUST_LRA", "ROBUST_PCA"})
  void roundTripMidEpoch_givesIdenticalFutureReleases(Mechanism mech) throws IOException {
    ContinualSketch original = golden(mech);
    ContinualSketch restored = ContinualSketch.readFrom(new ByteArrayInputStream(bytes(original)), KEY);
    assertEquals(original.plan(), restored.plan());
    assertEquals(original.config(), restored.config());
    assertEquals(2, restored.epochsClosed());
    assertEquals(PER_EPOCH / 2, restored.accumulator.updateCount());
    assertSameFuture(original, restored);
  }

  /** A robust stream with p ≠ 1: p is not in the tree header, it comes back from the plan. */
  @Test
  void robustRoundTrip_restoresP_fromThePlan() throws IOException {
    for (Mechanism mech : new Mechanism[] {Mechanism.ROBUST_LRA,
        Mechanism.ROBUST_PCA}) {
      ContinualSketch original = ContinualSketch.create(
          new TreeConfig(mech, SIZES, TreeFixtures.PRIVACY, 2.0, T, false, 1.5), KEY,
          "robust-p/" + mech.cliName());
      feedUntilMidEpoch3(original);
      ContinualSketch restored =
          ContinualSketch.readFrom(new ByteArrayInputStream(bytes(original)), KEY);
      assertEquals(1.5, restored.config().p());
      assertEquals(original.config(), restored.config());
      assertEquals(original.plan(), restored.plan());
      assertSameFuture(original, restored);
    }
  }

  @Test
  void roundTripWithANodeStore_readsClosedNodesBackFromFiles(@TempDir Path dir) throws IOException {
    ContinualSketch original = ContinualSketch.create(
        new TreeConfig(Mechanism.PRIV2, SIZES, TreeFixtures.PRIVACY, 2.0, T, false), KEY,
        "store", dir.resolve("a"));
    feedUntilMidEpoch3(original);
    assertTrue(Files.exists(dir.resolve("a").resolve("node-1-0.sketch")));
    byte[] snap = bytes(original);
    assertThrows(IOException.class, () -> ContinualSketch.readFrom(new ByteArrayInputStream(snap), KEY));
    ContinualSketch restored =
        ContinualSketch.readFrom(new ByteArrayInputStream(snap), KEY, dir.resolve("a"));
    assertSameRelease(original.releaseRange(2, 2), restored.releaseRange(2, 2), "[2, 2]");
    assertThrows(IOException.class, () -> ContinualSketch.create(original.config(), KEY, "store",
        dir.resolve("a")), "a used node store must be refused");
    Files.delete(dir.resolve("a").resolve("node-0-0.sketch"));
    IOException missing = assertThrows(IOException.class,
        () -> ContinualSketch.readFrom(new ByteArrayInputStream(snap), KEY, dir.resolve("a")));
    assertTrue(missing.getMessage().contains("missing"), missing.getMessage());
  }

  @Test
  void corruptTruncatedOrForeignSnapshots_areRefused() throws IOException {
    byte[] good = bytes(golden(Mechanism.PRIV2));
    for (int at : new int[] {3, 40, good.length / 2, good.length - 2}) {
      byte[] flipped = good.clone();
      flipped[at] ^= 0x10;
      IOException e = assertThrows(IOException.class,
          () -> ContinualSketch.readFrom(new ByteArrayInputStream(flipped), KEY), "flip at " + at);
      assertTrue(e.getMessage().matches(".*(checksum|corrupt|magic|version|truncated).*"),
          e.getMessage());
    }
    byte[] cut = java.util.Arrays.copyOf(good, good.length - 7);
    assertTrue(assertThrows(IOException.class,
        () -> ContinualSketch.readFrom(new ByteArrayInputStream(cut), KEY)).getMessage()
        .contains("truncated"));
    IOException foreign = assertThrows(IOException.class, () -> ContinualSketch.readFrom(
        new ByteArrayInputStream(good), SecretKey.forTesting(42)));
    assertTrue(foreign.getMessage().contains("key"), foreign.getMessage());
  }

  /**
   * Priv2 keeps no open node and the accumulator is empty after a close, so a snapshot at an
   * epoch close with a node store names the retained node files: its size does not grow with the
   * sketches, and the restored tree continues exactly as the original.
   */
  @ParameterizedTest
  @EnumSource(value = Mechanism.class, names = {"PRIV2", "PRIV2_SPARSE", "ROBUST_LRA"})
  void snapshotAtAnEpochClose_withANodeStore_namesTheNodesInsteadOfCopyingThem(
      Mechanism mech, @TempDir Path dir) throws IOException {
    SketchSizes big = new SketchSizes(60, 50, 2, 8, 16);
    ContinualSketch original = ContinualSketch.create(
        new TreeConfig(mech, big, TreeFixtures.PRIVACY, 2.0, T, false), KEY, "small", dir);
    for (int e = 1; e <= 3; e++) {
      feed(original, e, 0, PER_EPOCH);
      original.closeEpoch();
    }
    long nodeBytes = Files.size(dir.resolve("node-0-2.sketch"));
    assertTrue(nodeBytes > 8 * 1000, "a node file holds its sketch (> 1000 doubles): " + nodeBytes);
    byte[] snap = bytes(original);
    assertTrue(snap.length < 512 + 12 * 8, "snapshot at a close: " + snap.length + " bytes");
    // Each stream continues in its own copy of the directory (one stream per node store).
    ContinualSketch restored = ContinualSketch.readFrom(new ByteArrayInputStream(snap), KEY,
        copyOf(dir, dir.resolveSibling(dir.getFileName() + "-restored")));
    assertEquals(original.plan(), restored.plan());
    assertEquals(0, restored.accumulator.updateCount());
    feed(original, 4, 0, PER_EPOCH / 2);
    byte[] mid = bytes(original); // mid-epoch: the accumulator is in the snapshot
    assertTrue(mid.length > snap.length + nodeBytes / 2, "mid-epoch: " + mid.length);
    feed(restored, 4, 0, PER_EPOCH / 2);
    ContinualSketch restoredMid = ContinualSketch.readFrom(new ByteArrayInputStream(mid), KEY,
        copyOf(dir, dir.resolveSibling(dir.getFileName() + "-mid")));
    assertEquals(PER_EPOCH / 2, restoredMid.accumulator.updateCount());
    for (ContinualSketch c : new ContinualSketch[] {original, restored, restoredMid}) {
      feed(c, 4, PER_EPOCH / 2, PER_EPOCH);
      while (!c.exhausted()) {
        c.closeEpoch();
        if (!c.exhausted()) {
          feed(c, c.epochsClosed() + 1, 0, PER_EPOCH);
        }
      }
    }
    for (int s = 1; s <= T; s++) {
      for (int e = s; e <= T; e++) {
        assertSameRelease(original.releaseRange(s, e), restored.releaseRange(s, e), "[" + s + ", " + e + "]");
        assertSameRelease(original.releaseRange(s, e), restoredMid.releaseRange(s, e), "mid [" + s + ", " + e + "]");
      }
    }
  }

  private static Path copyOf(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (var files = Files.list(from)) {
      for (Path f : files.toList()) {
        Files.copy(f, to.resolve(f.getFileName()));
      }
    }
    return to;
  }

  /**
   * A failed node write leaves the tree as it was: retrying the close gives the same nodes. The
   * second write is epoch 2's leaf [2, 2] (Priv2, robust) or node; the third, Priv2's parent
   * [1, 2], made in place from that leaf after it was written (ContinualSketch.mergeUpAndArchive).
   */
  @ParameterizedTest
  @EnumSource(value = Mechanism.class, names = {"PRIV1", "PRIV2", "PRIV2_SPARSE", "ROBUST_LRA", "ROBUST_PCA"})
  void closeEpoch_failingNodeWrite_canBeRetriedWithoutCountingTheEpochTwice(Mechanism mech,
      @TempDir Path dir) throws IOException {
    for (int failing = 1; failing <= 2; failing++) {
      retryAfterAFailedWrite(mech, dir.resolve("write-" + failing), failing);
    }
  }

  private static void retryAfterAFailedWrite(Mechanism mech, Path dir, int failing)
      throws IOException {
    TreeConfig config = new TreeConfig(mech, SIZES, TreeFixtures.PRIVACY, 2.0, T, false);
    int[] writes = {0};
    NodeArchive.Directory flaky = new NodeArchive.Directory(dir.resolve("flaky"), d -> {
      if (writes[0]++ == failing + 1) { // the first is the released-epoch guard's
        throw new IOException("disk full");
      }
    });
    ContinualSketch tree = ContinualSketch.create(config, KEY, "retry", flaky,
        NoiseDerivation.CURRENT);
    ContinualSketch clean = ContinualSketch.create(config, KEY, "retry", dir.resolve("clean"));
    for (int e = 1; e <= 2; e++) {
      feed(tree, e, 0, PER_EPOCH);
      feed(clean, e, 0, PER_EPOCH);
      clean.closeEpoch();
      if (e == 1) {
        tree.closeEpoch();
      }
    }
    String what = mech + ", write " + failing + " failing";
    assertThrows(java.io.UncheckedIOException.class, tree::closeEpoch, what);
    assertEquals(1, tree.epochsClosed(), what);
    tree.closeEpoch();
    assertEquals(2, tree.epochsClosed(), what);
    assertSameRelease(clean.releasePrefix(2), tree.releasePrefix(2), "[1, 2] after a retry, " + what);
    assertSameRelease(clean.releaseRange(2, 2), tree.releaseRange(2, 2), "[2, 2] after a retry, "
        + what);
    assertSameRelease(clean.releaseRange(1, 1), tree.releaseRange(1, 1), "[1, 1] after a retry, "
        + what);
  }

  /**
   * Golden files of every tree format version (written once by TreeGoldenSnapshots.main): they
   * must stay readable and continue exactly as the same tree built today — with the noise
   * derivation the stream started with: one stream per part before version 3 (the nodes made after
   * the restore keep it too), chunks from version 3 on, the blocked sampler from version 4 on.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({"priv1, 1", "priv2, 1", "priv2-sparse, 1",
      "robust-lra, 1", "robust-pca, 1", "priv1, 2", "priv2, 2", "priv2-sparse, 2", "robust-lra, 2",
      "robust-pca, 2", "priv1, 3", "priv2, 3", "priv2-sparse, 3", "robust-lra, 3",
      "robust-pca, 3", "priv1, 4", "priv2, 4", "priv2-sparse, 4", "robust-lra, 4",
      "robust-pca, 4", "priv1, 5", "priv2, 5", "priv2-sparse, 5", "robust-lra, 5",
      "robust-pca, 5", "priv1, 6", "priv2, 6", "priv2-sparse, 6", "robust-lra, 6",
      "robust-pca, 6"})
  void goldenSnapshots_stayReadableAndContinueIdentically(String mechanism, int version)
      throws IOException {
    Mechanism mech = Mechanism.valueOf(mechanism.toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    assertGoldenContinues(mech, TreeConfig.defaultRelation(mech), version);
  }

  /**
   * Version 5 names the relation: priv2 and priv2-sparse streams of key or row units, calibrated
   * for entrywise-ℓ1 neighbours, read back as such and continue identically.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"priv2", "priv2-sparse"})
  void goldenEntrywiseL1Snapshots_keepTheirRelation(String mechanism) throws IOException {
    Mechanism mech = Mechanism.valueOf(mechanism.toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    assertGoldenContinues(mech, NeighbouringRelation.ENTRYWISE_L1, 5);
  }

  private void assertGoldenContinues(Mechanism mech, NeighbouringRelation relation,
      int version) throws IOException {
    String name = "/golden/" + goldenName(mech, relation, version);
    try (InputStream in = getClass().getResourceAsStream(name)) {
      assertTrue(in != null, name + " is missing");
      ContinualSketch g = ContinualSketch.readFrom(in, KEY);
      assertEquals(relation, g.config().relation(), name);
      NoiseDerivation started = version < 3 ? NoiseDerivation.ONE_STREAM
          : version < 4 ? NoiseDerivation.CHUNKED_CKS : NoiseDerivation.CURRENT;
      assertSameFuture(golden(mech, relation, started), g);
    }
  }

  /**
   * The derivation matters: streams started with one stream per part, with chunks read by CKS and
   * with chunks read by the blocked sampler release different noise for the same node (so the
   * test above would fail if a restored old stream took the new derivation), while the same
   * derivation releases the same noise.
   */
  @Test
  void streamsOfTheThreeDerivations_releaseDifferentNoise_forTheSameNode() {
    Priv2Sketches a = (Priv2Sketches)
        golden(Mechanism.PRIV2, NoiseDerivation.ONE_STREAM).releasePrefix(2);
    Priv2Sketches b = (Priv2Sketches)
        golden(Mechanism.PRIV2, NoiseDerivation.CHUNKED_CKS).releasePrefix(2);
    Priv2Sketches c = (Priv2Sketches) golden(Mechanism.PRIV2).releasePrefix(2);
    assertFalse(java.util.Arrays.equals(a.y().data(), b.y().data()));
    assertFalse(java.util.Arrays.equals(b.y().data(), c.y().data()));
    assertFalse(java.util.Arrays.equals(a.y().data(), c.y().data()));
    assertSameRelease(c, golden(Mechanism.PRIV2).releasePrefix(2), "[1, 2] current");
  }
}
