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
   * R_1 and R_2 swapped: both pass their own sketch checksum and carry the same label, but not
   * the length and CRC their checksum files record; the release of either is refused.
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
        "not the one its checksum file blt-release-1.crc records");
    assertNames(damage(assertThrows(UncheckedIOException.class, () -> s.releaseRange(2, 2))), r2,
        "not the one");
    assertNames(assertThrows(DamagedFileException.class, () -> s.verifyRelease(2, true)), r2,
        "not the one");

    // the checksum files swapped as well: each records another epoch
    Path c1 = dir.resolve(BltStream.releaseChecksumFile(1));
    Path c2 = dir.resolve(BltStream.releaseChecksumFile(2));
    Files.move(c1, tmp);
    Files.move(c2, c1);
    Files.move(tmp, c2);
    assertNames(damage(assertThrows(UncheckedIOException.class, () -> s.releasePrefix(1))), c1,
        "records epoch 2");
    // and a flipped byte in a checksum file
    Files.move(c1, tmp);
    Files.move(c2, c1);
    Files.move(tmp, c2);
    flipByte(c1, 3);
    assertNames(assertThrows(DamagedFileException.class, () -> s.verifyRelease(1, false)), c1,
        "");
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
        "not the one the snapshot names");
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
