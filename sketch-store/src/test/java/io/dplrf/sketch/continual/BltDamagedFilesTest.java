package io.dplrf.sketch.continual;

import static io.dplrf.sketch.continual.BltFixtures.KEY;
import static io.dplrf.sketch.continual.BltFixtures.feed;
import static io.dplrf.sketch.continual.BltFixtures.snapshot;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.files.DamagedFileException;
import io.dplrf.sketch.lra.Priv2Sketches;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.SketchSizes;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damaged BLT state files (one flipped byte, truncated, deleted, another epoch's file under the
 * name, a stale temp file): each is found — by the restore where it reads the file, by {@link
 * BltStream#verifyRelease} and by the release that reads it otherwise — and named with what is
 * wrong; nothing is released from it, and a close after the damage computes the same state as a
 * stream whose files are intact (closes read no file).
 */
class BltDamagedFilesTest {
  static final SketchSizes SIZES = new SketchSizes(40, 30, 2, 4, 8);
  static final int T = 6;
  static final int PER_EPOCH = 40;

  private static BltStream create(Path dir) throws IOException {
    return BltStream.create(BltFixtures.config(Mechanism.PRIV2_SPARSE, SIZES, T), KEY, "damage",
        dir);
  }

  /** Epochs 1..3 closed and committed; returns the snapshot after epoch 3. */
  private static byte[] threeEpochs(BltStream s) throws IOException {
    for (int e = 1; e <= 3; e++) {
      feed(s, e, 0, PER_EPOCH);
      BltFixtures.closeAndCommit(s);
    }
    return snapshot(s);
  }

  private static BltStream restore(byte[] snap, Path dir) throws IOException {
    return BltStream.readFrom(new ByteArrayInputStream(snap), KEY, dir);
  }

  private static void flipByte(Path f, int at) throws IOException {
    byte[] b = Files.readAllBytes(f);
    b[at < 0 ? b.length + at : at] ^= 0x08;
    Files.write(f, b);
  }

  private static DamagedFileException damage(Throwable t) {
    return assertInstanceOf(DamagedFileException.class,
        t instanceof UncheckedIOException u ? u.getCause() : t, String.valueOf(t));
  }

  private static void assertNames(DamagedFileException e, Path file, String problem) {
    assertEquals(file, e.file(), e.getMessage());
    assertTrue(e.problem().contains(problem), e.problem());
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
  }

  private static void assertSame(Priv2Sketches a, Priv2Sketches b) {
    assertArrayEquals(a.y().data(), b.y().data());
    assertArrayEquals(a.z().data(), b.z().data());
  }

  /**
   * A flipped byte in R_1 (not read by the restore): the stream restores; every release that
   * reads R_1 — prefix [1, 1], range [2, 3] (R_3 − R_1) — is refused naming the file and the
   * checksum; the others are served; {@link BltStream#verifyRelease} finds it, the cheap check
   * (lengths) does not.
   */
  @Test
  void flippedByteInAnEarlierRelease_isNamedWhenRead_andNothingIsReleasedFromIt(@TempDir Path dir)
      throws IOException {
    byte[] snap = threeEpochs(create(dir));
    Path r1 = dir.resolve(BltStream.releaseFile(1));
    flipByte(r1, -100);
    BltStream s = restore(snap, dir);
    assertNames(damage(assertThrows(UncheckedIOException.class, () -> s.releasePrefix(1))), r1,
        "checksum");
    assertNames(damage(assertThrows(UncheckedIOException.class, () -> s.releaseRange(2, 3))), r1,
        "checksum");
    s.releasePrefix(3);
    s.releaseRange(3, 3); // R_3 − R_2
    s.verifyRelease(1, false); // the length is right
    assertNames(assertThrows(DamagedFileException.class, () -> s.verifyRelease(1, true)), r1,
        "checksum");
    s.verifyRelease(2, true);
  }

  /** A truncated R_2: the cheap check finds it (its length), and so does every read. */
  @Test
  void truncatedRelease_isFoundByTheLengthCheck_andNamed(@TempDir Path dir) throws IOException {
    byte[] snap = threeEpochs(create(dir));
    Path r2 = dir.resolve(BltStream.releaseFile(2));
    byte[] b = Files.readAllBytes(r2);
    Files.write(r2, Arrays.copyOf(b, b.length / 2));
    BltStream s = restore(snap, dir);
    assertNames(assertThrows(DamagedFileException.class, () -> s.verifyRelease(2, false)), r2,
        "bytes");
    assertNames(damage(assertThrows(UncheckedIOException.class, () -> s.releasePrefix(2))), r2,
        "truncated");
  }

  /**
   * R_1 and R_2 swapped: both pass their own sketch checksum, but each file's header says which
   * epoch it holds; the cheap check at start (the header only) and the release of either refuse
   * it, naming the file.
   */
  @Test
  void releasesOfTwoEpochsSwapped_areRefused(@TempDir Path dir) throws IOException {
    byte[] snap = threeEpochs(create(dir));
    Path r1 = dir.resolve(BltStream.releaseFile(1));
    Path r2 = dir.resolve(BltStream.releaseFile(2));
    Path tmp = dir.resolve("swap");
    Files.move(r1, tmp);
    Files.move(r2, r1);
    Files.move(tmp, r2);
    BltStream s = restore(snap, dir);
    assertNames(damage(assertThrows(UncheckedIOException.class, () -> s.releasePrefix(1))), r1,
        "holds damage/blt/release/0000000002, expected damage/blt/release/0000000001");
    assertNames(damage(assertThrows(UncheckedIOException.class, () -> s.releaseRange(2, 2))), r2,
        "expected damage/blt/release/0000000002");
    assertNames(damage(assertThrows(UncheckedIOException.class, () -> s.releaseRange(2, 3))), r1,
        "expected damage/blt/release/0000000001");
    assertNames(assertThrows(DamagedFileException.class, () -> s.verifyRelease(2, false)), r2,
        "expected damage/blt/release/0000000002");
    assertNames(assertThrows(DamagedFileException.class, () -> s.verifyRelease(1, true)), r1,
        "expected damage/blt/release/0000000001");
    s.verifyRelease(3, false); // the others are served
    s.releasePrefix(3);
  }

  /**
   * A later epoch's R copied over an earlier one's (the file swap an operator might make): the
   * copy is refused wherever it is read, and the original is still served.
   */
  @Test
  void aLaterReleaseCopiedOverAnEarlierOne_isRefused(@TempDir Path dir) throws IOException {
    BltStream live = create(dir);
    byte[] snap = threeEpochs(live);
    Priv2Sketches r3 = live.releasePrefix(3);
    Path r1 = dir.resolve(BltStream.releaseFile(1));
    Files.copy(dir.resolve(BltStream.releaseFile(3)), r1, StandardCopyOption.REPLACE_EXISTING);
    BltStream s = restore(snap, dir);
    assertNames(assertThrows(DamagedFileException.class, () -> s.verifyRelease(1, false)), r1,
        "holds damage/blt/release/0000000003");
    assertNames(damage(assertThrows(UncheckedIOException.class, () -> s.releasePrefix(1))), r1,
        "holds damage/blt/release/0000000003");
    assertNames(damage(assertThrows(UncheckedIOException.class, () -> s.releaseRange(2, 3))), r1,
        "holds damage/blt/release/0000000003");
    assertSame(r3, s.releasePrefix(3));
  }

  /** A deleted R_1: the restore refuses, naming it (as the tree's does for a node file). */
  @Test
  void deletedRelease_failsTheRestore_namingTheFile(@TempDir Path dir) throws IOException {
    BltStream live = create(dir);
    byte[] snap = threeEpochs(live);
    Path r1 = dir.resolve(BltStream.releaseFile(1));
    Files.delete(r1);
    assertNames(damage(assertThrows(UncheckedIOException.class, () -> live.releasePrefix(1))), r1,
        "missing");
    assertNames(assertThrows(DamagedFileException.class, () -> live.verifyRelease(1, false)), r1,
        "missing");
    assertNames(assertThrows(DamagedFileException.class, () -> restore(snap, dir)), r1,
        "missing");
  }

  /**
   * The files the restore needs — the buffers and R of the snapshot's epoch — fail the restore
   * with the file named, never blaming the snapshot: a flipped byte, a truncation, a deletion, the
   * previous epoch's buffer under the name. The released-epoch mark likewise.
   */
  @Test
  void damagedFilesOfTheSnapshotsEpoch_failTheRestore_namingTheFile(@TempDir Path dir)
      throws IOException {
    BltStream s = create(dir);
    for (int e = 1; e <= 3; e++) {
      feed(s, e, 0, PER_EPOCH);
      BltFixtures.closeAndCommit(s);
    }
    s.releasePrefix(2); // the mark: 2; the buffers of epochs 2 and 3 stay
    byte[] snap = snapshot(s);
    Path enc = dir.resolve(BltStream.encoderFile(3, 0));
    Path r3 = dir.resolve(BltStream.releaseFile(3));
    byte[] encGood = Files.readAllBytes(enc);
    byte[] r3Good = Files.readAllBytes(r3);

    flipByte(enc, encGood.length / 2);
    assertNames(assertThrows(DamagedFileException.class, () -> restore(snap, dir)), enc,
        "checksum");
    Files.write(enc, Arrays.copyOf(encGood, 100));
    assertNames(assertThrows(DamagedFileException.class, () -> restore(snap, dir)), enc,
        "truncated");
    Files.copy(dir.resolve(BltStream.encoderFile(2, 0)), enc, StandardCopyOption.REPLACE_EXISTING);
    assertNames(assertThrows(DamagedFileException.class, () -> restore(snap, dir)), enc,
        "holds damage/blt/encoder/0000000002/0, expected damage/blt/encoder/0000000003/0");
    Files.delete(enc);
    assertNames(assertThrows(DamagedFileException.class, () -> restore(snap, dir)), enc,
        "missing");
    Files.write(enc, encGood);

    flipByte(r3, -5);
    assertNames(assertThrows(DamagedFileException.class, () -> restore(snap, dir)), r3, "");
    Files.write(r3, r3Good);

    Path mark = dir.resolve(BltStream.RELEASED_FILE);
    byte[] markGood = Files.readAllBytes(mark);
    Files.write(mark, Arrays.copyOf(markGood, 3));
    assertNames(assertThrows(DamagedFileException.class, () -> restore(snap, dir)), mark,
        "truncated");
    Files.write(mark, markGood);
    Files.write(dir.resolve(BltStream.releaseFile(4) + ".tmp"), new byte[] {7}); // a crash's
    assertEquals(3, restore(snap, dir).epochsClosed());
    assertTrue(!Files.exists(dir.resolve(BltStream.releaseFile(4) + ".tmp")));
  }

  /**
   * An R_t of a close that a crash undid, put back alone (from an atomic file-system backup taken
   * between that close's files and its snapshot): same label and length as the released R_t, but
   * other updates under the same noise. The snapshot records every R_t's CRC32C, so releases, the
   * whole check and the restore refuse it, naming the file; the released R_t is served once
   * restored.
   */
  @Test
  void aReleaseOfAnUndoneClose_putBackAlone_isRefused(@TempDir Path dir) throws IOException {
    BltStream first = create(dir);
    feed(first, 1, 0, PER_EPOCH);
    BltFixtures.closeAndCommit(first);
    byte[] snap1 = snapshot(first);
    feed(first, 2, 0, PER_EPOCH); // the first attempt at epoch 2: data A
    first.closeEpoch();
    Path r2 = dir.resolve(BltStream.releaseFile(2));
    byte[] attemptA = Files.readAllBytes(r2); // in a backup taken now
    // kill -9 before the snapshot of epoch 2: the restart replays epoch 2 with data B
    BltStream s = restore(snap1, dir);
    feed(s, 2, PER_EPOCH, 2 * PER_EPOCH);
    BltFixtures.closeAndCommit(s);
    Priv2Sketches released = s.releasePrefix(2);
    byte[] attemptB = Files.readAllBytes(r2);
    assertEquals(attemptA.length, attemptB.length);
    assertTrue(!Arrays.equals(attemptA, attemptB), "the two attempts hold other data");

    Files.write(r2, attemptA); // the operator puts the backup's R_2 back
    s.verifyRelease(2, false); // its label and length are R_2's
    assertNames(assertThrows(DamagedFileException.class, () -> s.verifyRelease(2, true)), r2,
        "not the one the snapshot records");
    assertNames(damage(assertThrows(UncheckedIOException.class, () -> s.releasePrefix(2))), r2,
        "not the one the snapshot records");
    byte[] snap2 = snapshot(s);
    assertNames(assertThrows(DamagedFileException.class, () -> restore(snap2, dir)), r2,
        "not the one the snapshot names"); // R_e is read whole by the restore
    Files.write(r2, attemptB);
    assertSame(released, restore(snap2, dir).releasePrefix(2));
  }

  /**
   * The released-epoch guard (blt-release.md §5) cannot be removed or lowered unseen: a restore
   * refuses the state files without it (naming it), a damaged or another stream's guard, an old
   * snapshot behind a lowered guard (the files show later epochs), and a guard lowered with the
   * snapshot one epoch back when the buffers that snapshot needs are gone (the release deleted
   * them). The latest snapshot beside the intact guard restores.
   */
  @Test
  void theGuard_deletedLoweredOrDamaged_refusesTheRestore(@TempDir Path dir) throws IOException {
    BltStream s = create(dir);
    feed(s, 1, 0, PER_EPOCH);
    BltFixtures.closeAndCommit(s);
    s.releasePrefix(1);
    byte[] snap1 = snapshot(s);
    Path mark = dir.resolve(BltStream.RELEASED_FILE);
    byte[] mark1 = Files.readAllBytes(mark);
    for (int e = 2; e <= 4; e++) {
      feed(s, e, 0, PER_EPOCH);
      BltFixtures.closeAndCommit(s);
      s.releasePrefix(e);
    }
    byte[] snap4 = snapshot(s);
    byte[] markGood = Files.readAllBytes(mark);

    Files.delete(mark);
    assertNames(assertThrows(DamagedFileException.class, () -> restore(snap4, dir)), mark,
        "missing, while state files of the stream up to epoch 4 are there");
    assertNames(assertThrows(DamagedFileException.class, () -> restore(snap1, dir)), mark,
        "missing");

    Files.write(mark, mark1); // lowered to epoch 1 with the snapshot of epoch 1
    IOException older = assertThrows(IOException.class, () -> restore(snap1, dir));
    assertTrue(older.getMessage().contains("belongs to epoch 4, but the snapshot is of epoch 1"),
        older.getMessage());

    Files.write(mark, markGood);
    flipByte(mark, -5); // in the epoch
    assertNames(assertThrows(DamagedFileException.class, () -> restore(snap4, dir)), mark,
        "checksum mismatch");
    Files.write(mark, io.dplrf.sketch.files.ReleasedMark.encode("another", 4));
    assertNames(assertThrows(DamagedFileException.class, () -> restore(snap4, dir)), mark,
        "of stream another");

    Files.write(mark, markGood);
    assertTrue(assertThrows(IOException.class, () -> restore(snap1, dir)).getMessage()
        .contains("epochs up to 4 have been released"));
    assertEquals(4, restore(snap4, dir).epochsClosed());
  }

  /**
   * Damage to files no close reads (an earlier R, the current buffers' files): the next closes
   * go on from the state in memory, to the same releases as an undamaged twin, and nothing is
   * released from the damaged file.
   */
  @Test
  void closesAfterTheDamage_computeTheSameState(@TempDir Path dir) throws IOException {
    Path a = dir.resolve("a");
    Path b = dir.resolve("b");
    BltStream damaged = create(a);
    BltStream intact = create(b);
    threeEpochs(damaged);
    threeEpochs(intact);
    flipByte(a.resolve(BltStream.releaseFile(1)), 200);
    flipByte(a.resolve(BltStream.encoderFile(3, 0)), 200);
    for (int e = 4; e <= T; e++) {
      feed(damaged, e, 0, PER_EPOCH);
      feed(intact, e, 0, PER_EPOCH);
      BltFixtures.closeAndCommit(damaged);
      BltFixtures.closeAndCommit(intact);
    }
    for (int e = 3; e <= T; e++) {
      assertSame(intact.releaseRange(3, e), damaged.releaseRange(3, e));
      assertSame(intact.releasePrefix(e), damaged.releasePrefix(e));
    }
    damage(assertThrows(UncheckedIOException.class, () -> damaged.releasePrefix(1)));
  }
}
