package io.dplrf.deploy.serve.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.http.DamagedStateException;
import io.dplrf.sketch.continual.BltConfig;
import io.dplrf.sketch.files.ReleasedMark;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.tree.TreeConfig;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * State integrity under every kind of damage to the files of both continual structures, as an
 * operator might cause it (docs/privacy/recovery.md §5, docs/operations.md §4): a flipped byte, a
 * truncation, a deletion, two epochs' files swapped, a later epoch's file copied over an earlier
 * one, the released-epoch guard deleted, damaged or lowered with an older snapshot, and an older
 * snapshot restored. Each case either refuses the start, naming the file, or starts degraded and
 * refuses exactly the releases that read a damaged file; every release it answers is bit for bit
 * the undamaged run's. A backup copied into a fresh directory releases the same bits.
 */
class StateIntegrityTest {
  static final SecretKey KEY = SecretKey.forTesting(3);
  static final int T = 8;
  /** Epochs closed, snapshotted and released by the undamaged run. */
  static final int CLOSED = 6;
  static final int RANK = 2;

  enum Structure {
    TREE, FACTORIZATION;

    TreeTarget open(Path state, boolean snapshotExists) throws IOException {
      return this == TREE
          ? TreeTarget.tree(new TreeConfig(Mechanism.PRIV2_SPARSE, SketchSizes.of(20, 10, RANK, 8,
              8, 0.25), new PrivacyParams(1, 1e-6), 1.0, T, false), KEY, state, snapshotExists)
          : TreeTarget.factorization(new BltConfig(Mechanism.PRIV2_SPARSE,
              NeighbouringRelation.ONE_ENTRY, SketchSizes.of(20, 10, RANK, 8, 8, 0.25),
              new PrivacyParams(1, 1e-6), 1.0, T, false), KEY, state, snapshotExists);
    }

    /** The released-epoch guard's file name in the structure's directory. */
    String guard() {
      return this == TREE ? "released.mark" : "blt-released.mark";
    }

    /** The file of epoch t's leaf (tree) or prefix release R_t (factorization). */
    String fileOf(int t) {
      return this == TREE ? "node-0-" + (t - 1) + ".sketch" : "blt-release-" + t + ".sketch";
    }
  }

  @TempDir Path dir;

  /** The undamaged run: its directory, the snapshot after each epoch, every range's values. */
  private record Run(Path state, List<byte[]> snapshots, Map<List<Integer>, double[]> ranges) {}

  private static Run run(Structure s, Path state) throws IOException {
    TreeTarget t = s.open(state, false);
    List<byte[]> snapshots = new ArrayList<>();
    ByteArrayOutputStream zero = new ByteArrayOutputStream();
    t.writeState(zero);
    snapshots.add(zero.toByteArray());
    for (int e = 1; e <= CLOSED; e++) {
      for (int x = 0; x < 30; x++) {
        t.update((7 * x + e) % 20, (3 * x + 2 * e) % 10, ((x + e) % 5 - 2) / 2.0);
      }
      t.closeEpoch();
      ByteArrayOutputStream snap = new ByteArrayOutputStream();
      t.writeState(snap); // the loop's order: close, durable snapshot, release
      snapshots.add(snap.toByteArray());
      t.releasable(e);
      t.prefix(e, RANK); // the release after the epoch raises the guard
    }
    Map<List<Integer>, double[]> ranges = new HashMap<>();
    for (int from = 1; from <= CLOSED; from++) {
      for (int to = from; to <= CLOSED; to++) {
        ranges.put(List.of(from, to), t.rangeRelease(from, to).factorization().s());
      }
    }
    t.close();
    return new Run(state, snapshots, ranges);
  }

  /** A copy of the run's state directory, as a backup restored into a fresh one. */
  private Path copy(Run run, String name) throws IOException {
    Path into = dir.resolve(name);
    Files.createDirectories(into);
    try (Stream<Path> files = Files.list(run.state())) {
      for (Path f : files.toList()) {
        Files.copy(f, into.resolve(f.getFileName()));
      }
    }
    return into;
  }

  /** What a start on a damaged directory did. */
  private record Outcome(String refusal, List<List<Integer>> refused) {}

  /**
   * Starts on {@code state} from the snapshot of epoch {@code snapshotEpoch} and asks for every
   * range: each is either refused (a {@link DamagedStateException}) or bit for bit the undamaged
   * run's; never other values.
   */
  private static Outcome start(Structure s, Run run, Path state, int snapshotEpoch)
      throws Exception {
    TreeTarget t = s.open(state, true);
    try {
      t.readState(new ByteArrayInputStream(run.snapshots().get(snapshotEpoch)));
    } catch (IOException e) {
      return new Outcome(String.valueOf(e.getMessage()), List.of());
    }
    try {
      t.releasable(snapshotEpoch);
      // The start's checks (the background one may still run: a release that reads a damaged
      // file the check has not reached yet finds it itself, NodeFileCheck#reading).
      t.checkNodeFiles();
      List<List<Integer>> refused = new ArrayList<>();
      for (int from = 1; from <= snapshotEpoch; from++) {
        for (int to = from; to <= snapshotEpoch; to++) {
          List<Integer> range = List.of(from, to);
          try {
            double[] got = t.rangeRelease(from, to).factorization().s();
            assertArrayEquals(run.ranges().get(range), got, "range " + range + " answered other"
                + " values than the undamaged run's");
          } catch (DamagedStateException e) {
            refused.add(range);
          }
        }
      }
      return new Outcome(null, refused);
    } finally {
      t.close();
    }
  }

  private static void flipByte(Path f, int at) throws IOException {
    byte[] b = Files.readAllBytes(f);
    b[at < 0 ? b.length + at : at] ^= 0x10;
    Files.write(f, b);
  }

  private static void swap(Path a, Path b) throws IOException {
    Path tmp = a.resolveSibling("swap.tmp.x");
    Files.move(a, tmp);
    Files.move(b, a);
    Files.move(tmp, b);
  }

  /** The ranges whose release reads the file of epoch t ({@link Structure#fileOf}). */
  private static List<List<Integer>> readers(Structure s, int t) {
    List<List<Integer>> out = new ArrayList<>();
    for (int from = 1; from <= CLOSED; from++) {
      for (int to = from; to <= CLOSED; to++) {
        boolean reads = s == Structure.FACTORIZATION
            ? to == t || from - 1 == t
            : leafInDecomposition(from, to, t);
        if (reads) {
          out.add(List.of(from, to));
        }
      }
    }
    return out;
  }

  /** Whether the dyadic decomposition of [from, to] holds the leaf [t, t]. */
  private static boolean leafInDecomposition(int from, int to, int t) {
    int s = from;
    while (s <= to) {
      int size = 1;
      while ((s - 1) % (2 * size) == 0 && s + 2 * size - 1 <= to) {
        size *= 2;
      }
      if (size == 1 && s == t) {
        return true;
      }
      s += size;
    }
    return false;
  }

  @ParameterizedTest
  @EnumSource(Structure.class)
  void everyDamage_refusesTheStartOrExactlyTheReleasesThatReadIt(Structure s) throws Exception {
    Run run = run(s, dir.resolve("reference"));
    String guard = s.guard();
    // A file only releases read: epoch 2's (not read by the restore in either structure).
    int t = 2;
    Map<String, Damage> degrade = new java.util.LinkedHashMap<>();
    degrade.put("a flipped byte", d -> flipByte(d.resolve(s.fileOf(t)), -20));
    degrade.put("a truncation", d -> {
      Path f = d.resolve(s.fileOf(t));
      byte[] b = Files.readAllBytes(f);
      Files.write(f, Arrays.copyOf(b, b.length - 9));
    });
    degrade.put("a later epoch's file copied over it", d -> Files.copy(d.resolve(s.fileOf(4)),
        d.resolve(s.fileOf(t)), StandardCopyOption.REPLACE_EXISTING));
    for (Map.Entry<String, Damage> c : degrade.entrySet()) {
      Path state = copy(run, "case-" + degrade.size() + "-" + c.getKey().replace(' ', '-'));
      c.getValue().apply(state);
      Outcome o = start(s, run, state, CLOSED);
      String what = s + ", " + c.getKey();
      assertEquals(null, o.refusal(), what);
      assertEquals(readers(s, t), o.refused(), what + ": exactly the releases that read it");
    }

    // two epochs' files swapped: the releases that read either are refused, the rest served
    Path swapped = copy(run, "swapped");
    swap(swapped.resolve(s.fileOf(2)), swapped.resolve(s.fileOf(4)));
    Outcome o = start(s, run, swapped, CLOSED);
    List<List<Integer>> both = new ArrayList<>(readers(s, 2));
    for (List<Integer> r : readers(s, 4)) {
      if (!both.contains(r)) {
        both.add(r);
      }
    }
    both.sort((a, b) -> a.get(0).equals(b.get(0)) ? a.get(1) - b.get(1) : a.get(0) - b.get(0));
    assertEquals(both, o.refused(), s + ", swapped");

    // refused starts, each naming the file or saying why
    Map<String, Object[]> refuse = new java.util.LinkedHashMap<>();
    refuse.put("a deleted file", new Object[] {
        (Damage) d -> Files.delete(d.resolve(s.fileOf(t))), s.fileOf(t), CLOSED});
    refuse.put("the guard deleted", new Object[] {
        (Damage) d -> Files.delete(d.resolve(guard)), guard, CLOSED});
    refuse.put("the guard's byte flipped", new Object[] {
        (Damage) d -> flipByte(d.resolve(guard), -6), guard, CLOSED});
    refuse.put("the guard truncated", new Object[] {
        (Damage) d -> Files.write(d.resolve(guard), new byte[] {'D', 'P'}), guard, CLOSED});
    refuse.put("another stream's guard", new Object[] {
        (Damage) d -> Files.write(d.resolve(guard), ReleasedMark.encode("stream/other", CLOSED)),
        guard, CLOSED});
    refuse.put("an older snapshot", new Object[] {
        (Damage) d -> {}, "have been released", 3});
    refuse.put("an older snapshot behind a lowered guard", new Object[] {
        (Damage) d -> Files.write(d.resolve(guard), guardBytes(run, s, 3)),
        "but the snapshot is of epoch 3", 3});
    refuse.put("an older snapshot, the guard deleted", new Object[] {
        (Damage) d -> Files.delete(d.resolve(guard)), guard, 3});
    int n = 0;
    for (Map.Entry<String, Object[]> c : refuse.entrySet()) {
      Path state = copy(run, "refused-" + n++);
      ((Damage) c.getValue()[0]).apply(state);
      Outcome r = start(s, run, state, (int) c.getValue()[2]);
      String what = s + ", " + c.getKey();
      assertTrue(r.refusal() != null, what + " was not refused");
      assertTrue(r.refusal().contains((String) c.getValue()[1]), what + ": " + r.refusal());
    }

    // the undamaged backup, copied into a fresh directory, releases the same bits throughout
    Outcome restored = start(s, run, copy(run, "backup"), CLOSED);
    assertEquals(null, restored.refusal());
    assertEquals(List.of(), restored.refused());
  }

  /** The guard the run wrote after releasing epoch e (same instance): a lowered copy. */
  private static byte[] guardBytes(Run run, Structure s, int e) throws IOException {
    byte[] current = Files.readAllBytes(run.state().resolve(s.guard()));
    // instance label: the guard's own, read back through its format
    String instance = instanceOf(current);
    return ReleasedMark.encode(instance, e);
  }

  private static String instanceOf(byte[] guard) throws IOException {
    java.io.DataInputStream d = new java.io.DataInputStream(new ByteArrayInputStream(guard));
    d.skipBytes(8 + 4);
    return d.readUTF();
  }

  @FunctionalInterface
  private interface Damage {
    void apply(Path state) throws IOException;
  }

  /**
   * The reproduction of the state-integrity issue: R_6 copied over R_4 (the tree: leaf 6 over leaf
   * 4) with no checksum file to delete any more. [1, 4] used to answer with [1, 6]'s values.
   */
  @ParameterizedTest
  @EnumSource(Structure.class)
  void theSwapOfTheIssue_isNeverServedAsSound(Structure s) throws Exception {
    Run run = run(s, dir.resolve("reference"));
    Path state = copy(run, "swap");
    Files.copy(state.resolve(s.fileOf(6)), state.resolve(s.fileOf(4)),
        StandardCopyOption.REPLACE_EXISTING);
    Outcome o = start(s, run, state, CLOSED);
    assertEquals(null, o.refusal());
    assertEquals(readers(s, 4), o.refused(), "the copy is refused wherever it is read");
  }
}
