package io.dplrf.sketch.continual;

import static io.dplrf.sketch.continual.BltFixtures.KEY;
import static io.dplrf.sketch.continual.BltFixtures.feed;
import static io.dplrf.sketch.continual.BltFixtures.snapshot;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.factorization.BltOptimizer;
import io.dplrf.sketch.lra.Priv2Sketches;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Restarts (docs/privacy/blt-release.md §5): a snapshot after any epoch, or in the middle of one,
 * restores a stream that continues to the same ŷ and the same releases, bit for bit; the
 * pipelined close is the synchronous one in two steps; the snapshot format (BltCodec) refuses
 * what is not the stream's, and its golden files stay readable.
 */
class BltSnapshotTest {
  static final SketchSizes SMALL = new SketchSizes(40, 30, 2, 4, 8);
  /** Two buffers, so that the state is 5 files. */
  static final int T = 12;
  static final int PER_EPOCH = 40;

  private static BltConfig config(Mechanism mech) {
    return BltFixtures.config(mech, SMALL, T);
  }

  private static BltStream create(Mechanism mech, Path dir) throws IOException {
    return BltStream.create(config(mech), KEY, "restart/" + mech.cliName(), dir);
  }

  /** Closes epochs through {@code last} without snapshots (a crash may follow). */
  private static void closeThrough(BltStream s, int last) {
    while (s.epochsClosed() < last) {
      feed(s, s.epochsClosed() + 1, 0, PER_EPOCH);
      s.closeEpoch();
    }
  }

  /** Closes epochs through {@code last}, committing a snapshot after each (the service's way). */
  private static void closeAndCommitThrough(BltStream s, int last) {
    while (s.epochsClosed() < last) {
      feed(s, s.epochsClosed() + 1, 0, PER_EPOCH);
      BltFixtures.closeAndCommit(s);
    }
  }

  private static void assertSameRelease(Priv2Sketches a, Priv2Sketches b, String what) {
    assertArrayEquals(a.y().data(), b.y().data(), what);
    assertArrayEquals(a.z().data(), b.z().data(), what);
    assertEquals(a.noise(), b.noise(), what);
  }

  /** Every prefix and range of two streams closed through T, and their R files, bit for bit. */
  private static void assertSameReleases(BltStream a, Path dirA, BltStream b, Path dirB,
      String what) throws IOException {
    for (int s = 1; s <= T; s++) {
      for (int e = s; e <= T; e++) {
        assertSameRelease(a.releaseRange(s, e), b.releaseRange(s, e), what + " [" + s + ", " + e
            + "]");
      }
      String f = BltStream.releaseFile(s);
      assertArrayEquals(Files.readAllBytes(dirA.resolve(f)), Files.readAllBytes(dirB.resolve(f)),
          what + ": " + f);
    }
  }

  /**
   * After every epoch e = 0..T: the snapshot restores a stream that closes the rest to the same
   * releases and R files as a stream never stopped. Also when the stream went on to close epoch
   * e + 1 (its files written, those of e − 1 deleted) and crashed before that close's snapshot:
   * epoch e + 1 is closed again from the same updates with the same noise, as §5 requires. The
   * files are kept in memory here (26 restarts per mechanism); the directory store is exercised by
   * the tests below and by the golden files.
   */
  @ParameterizedTest
  @EnumSource(value = Mechanism.class, names = {"PRIV2_SPARSE", "PRIV2"})
  void restartAfterAnyEpoch_givesTheSameReleasesBitForBit(Mechanism mech) throws IOException {
    String instance = "restart/" + mech.cliName();
    BltFiles.Memory referenceFiles = new BltFiles.Memory();
    BltStream reference = BltStream.create(config(mech), KEY, instance, referenceFiles,
        BltOptimizer.optimize(T));
    closeAndCommitThrough(reference, T);
    for (int e = 0; e <= T; e++) {
      for (boolean crashAfterNext : new boolean[] {false, true}) {
        if (crashAfterNext && e == T) {
          continue;
        }
        String what = mech.cliName() + ", restart after epoch " + e
            + (crashAfterNext ? " (crash during the next close)" : "");
        BltFiles.Memory files = new BltFiles.Memory();
        BltStream first = BltStream.create(config(mech), KEY, instance, files,
            BltOptimizer.optimize(T));
        closeAndCommitThrough(first, e);
        byte[] snap = BltFixtures.commit(first);
        if (crashAfterNext) {
          closeThrough(first, e + 1); // crash after writing R_{e+1}, before its snapshot
          int next = e + 1;
          assertThrows(IllegalArgumentException.class, () -> first.releasePrefix(next),
              "nothing of epoch " + next + " is observable before a snapshot names it");
        }
        BltStream restored = BltStream.readFrom(new ByteArrayInputStream(snap), KEY, files);
        assertEquals(e, restored.epochsClosed());
        assertEquals(e, restored.epochsSnapshotted());
        assertEquals(reference.plan(), restored.plan());
        closeAndCommitThrough(restored, T);
        for (int s = 1; s <= T; s++) {
          for (int t = s; t <= T; t++) {
            assertSameRelease(reference.releaseRange(s, t), restored.releaseRange(s, t),
                what + " [" + s + ", " + t + "]");
          }
          String f = BltStream.releaseFile(s);
          assertArrayEquals(referenceFiles.files.get(f), files.files.get(f), what + ": " + f);
        }
        assertEquals(referenceFiles.files.keySet(), files.files.keySet(), what);
      }
    }
  }

  /** A snapshot in the middle of an epoch carries the accumulator: the rest continues as one. */
  @Test
  void midEpochSnapshot_restoresTheAccumulator(@TempDir Path dir) throws IOException {
    BltStream reference = create(Mechanism.PRIV2_SPARSE, dir.resolve("reference"));
    closeAndCommitThrough(reference, T);
    BltStream first = create(Mechanism.PRIV2_SPARSE, dir.resolve("mid"));
    closeAndCommitThrough(first, 3);
    feed(first, 4, 0, PER_EPOCH / 2);
    byte[] mid = snapshot(first);
    BltStream restored = BltStream.readFrom(new ByteArrayInputStream(mid), KEY, dir.resolve("mid"));
    assertEquals(PER_EPOCH / 2, restored.accumulator.updateCount());
    feed(restored, 4, PER_EPOCH / 2, PER_EPOCH);
    BltFixtures.closeAndCommit(restored);
    closeAndCommitThrough(restored, T);
    assertSameReleases(reference, dir.resolve("reference"), restored, dir.resolve("mid"), "mid");
  }

  /**
   * A temp file a crash or a refused write left behind is deleted when the directory is opened
   * again; a write that fails deletes its own.
   */
  @Test
  void tempFiles_leftByACrashOrAFailedWrite_areDeleted(@TempDir Path dir) throws IOException {
    BltStream first = create(Mechanism.PRIV2_SPARSE, dir);
    closeAndCommitThrough(first, 2);
    byte[] snap = snapshot(first);
    java.nio.file.Files.write(dir.resolve("blt-release-3.sketch.tmp"), new byte[] {1, 2});
    BltStream restored = BltStream.readFrom(new ByteArrayInputStream(snap), KEY, dir);
    assertEquals(2, restored.epochsClosed());
    assertTrue(filesIn(dir).stream().noneMatch(f -> f.endsWith(".tmp")), filesIn(dir).toString());

    BltFiles files = BltFiles.directory(dir);
    assertThrows(java.io.UncheckedIOException.class, () -> files.put("blt-x.sketch", out -> {
      out.write(new byte[8192]);
      throw new IOException("no space left on device");
    }));
    assertTrue(filesIn(dir).stream().noneMatch(f -> f.startsWith("blt-x")), filesIn(dir).toString());
  }

  private static List<String> filesIn(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  /**
   * A snapshot at a close is a few hundred bytes: it names the 2d + 1 state files, with their
   * lengths and checksums, instead of copying them. Epoch 5's files are not served before a
   * snapshot names them. The buffers of epoch 4 stay until epoch 5 is released (a crash before
   * the snapshot after 5 is durable restores the one after 4, which needs them); its first release
   * writes the released-epoch mark and deletes them.
   */
  @Test
  void snapshotAtAClose_namesTheStateFiles_andTheFirstReleaseDeletesOlderBuffers(
      @TempDir Path dir) throws IOException {
    BltStream s = create(Mechanism.PRIV2_SPARSE, dir);
    assertEquals(2, s.plan().parameters().buffers());
    closeAndCommitThrough(s, 4);
    feed(s, 5, 0, PER_EPOCH);
    s.closeEpoch();
    assertThrows(IllegalArgumentException.class, () -> s.releasePrefix(5),
        "epoch 5 is closed but no snapshot names it");
    assertThrows(IllegalArgumentException.class, () -> s.releaseRange(2, 5));
    byte[] snap = snapshot(s);
    assertTrue(snap.length < 1024, "snapshot at a close: " + snap.length + " bytes");
    List<String> named = s.stateFiles.stream().map(BltFiles.Written::name).toList();
    assertEquals(List.of("blt-encoder-5-0.sketch", "blt-encoder-5-1.sketch",
        "blt-decoder-5-0.sketch", "blt-decoder-5-1.sketch", "blt-release-5.sketch"), named);
    for (BltFiles.Written w : s.stateFiles) {
      assertEquals(Files.size(dir.resolve(w.name())), w.length(), w.name());
    }
    List<String> releases = new ArrayList<>();
    for (int t = 1; t <= 5; t++) {
      releases.add(BltStream.releaseFile(t));
    }
    releases.add(BltStream.RELEASED_FILE); // written with epoch 0 before the first state file
    List<String> before = new ArrayList<>(List.of("blt-decoder-4-0.sketch",
        "blt-decoder-4-1.sketch", "blt-decoder-5-0.sketch", "blt-decoder-5-1.sketch",
        "blt-encoder-4-0.sketch", "blt-encoder-4-1.sketch", "blt-encoder-5-0.sketch",
        "blt-encoder-5-1.sketch"));
    before.addAll(releases);
    before.sort(null);
    assertEquals(before, filesIn(dir), "epoch 4's buffers stay until epoch 5 is released");
    assertEquals(0, s.epochsReleased());
    s.releasePrefix(5);
    List<String> after = new ArrayList<>(List.of("blt-decoder-5-0.sketch",
        "blt-decoder-5-1.sketch", "blt-encoder-5-0.sketch", "blt-encoder-5-1.sketch"));
    after.addAll(releases);
    after.sort(null);
    assertEquals(after, filesIn(dir), "the release of epoch 5 deletes epoch 4's buffers");
    assertEquals(5, s.epochsReleased());
  }

  /**
   * The released-epoch mark (blt-release.md §5): once epoch 5 is released, the snapshot after
   * epoch 4 is refused (restoring it would close epoch 5 again with the same N_5 on possibly other
   * updates), the snapshot after 5 and later ones are restored, and a restored stream keeps the
   * mark. Releasing an older epoch, or a range ending before the mark, leaves it.
   */
  @Test
  void afterAnEpochIsReleased_anOlderSnapshotIsRefused(@TempDir Path dir) throws IOException {
    BltStream s = create(Mechanism.PRIV2_SPARSE, dir);
    closeAndCommitThrough(s, 4);
    byte[] after4 = snapshot(s);
    feed(s, 5, 0, PER_EPOCH);
    s.closeEpoch();
    byte[] after5 = snapshot(s);
    s.releaseRange(2, 5);
    s.releasePrefix(3);
    assertEquals(5, s.epochsReleased());
    IOException refused = assertThrows(IOException.class,
        () -> BltStream.readFrom(new ByteArrayInputStream(after4), KEY, dir));
    assertTrue(refused.getMessage().contains("epochs up to 5 have been released"),
        refused.getMessage());
    BltStream restored = BltStream.readFrom(new ByteArrayInputStream(after5), KEY, dir);
    assertEquals(5, restored.epochsReleased());
    assertSameRelease(s.releasePrefix(5), restored.releasePrefix(5), "R_5 after the restore");
    feed(restored, 6, 0, PER_EPOCH);
    restored.closeEpoch();
    byte[] after6 = snapshot(restored);
    assertEquals(6, BltStream.readFrom(new ByteArrayInputStream(after6), KEY, dir)
        .epochsSnapshotted());
  }

  /**
   * After epoch T and its release no encoder state is left: neither in memory nor on disk, where
   * only the R files and the released-epoch guard remain (R_t is written from the release array
   * only, labelled instance/blt/release/t, and releases read nothing else).
   */
  @Test
  void afterEpochTIsReleased_noBufferFileRemains(@TempDir Path dir) throws IOException {
    BltStream s = create(Mechanism.PRIV2_SPARSE, dir);
    closeAndCommitThrough(s, T);
    assertEquals(0, s.encoder.length);
    assertEquals(0, s.decoder.length);
    assertEquals(List.of("blt-release-" + T + ".sketch"),
        s.stateFiles.stream().map(BltFiles.Written::name).toList());
    s.releasePrefix(T);
    List<String> want = new ArrayList<>();
    for (int t = 1; t <= T; t++) {
      want.add(BltStream.releaseFile(t));
    }
    want.add(BltStream.RELEASED_FILE);
    want.sort(null);
    assertEquals(want, filesIn(dir));
    for (int t = 1; t <= T; t++) {
      try (var in = Files.newInputStream(dir.resolve(BltStream.releaseFile(t)))) {
        BltStream.readState(in, KEY, s.mats, s.plan, BltStream.releaseLabel(s.instance, t),
            BltStream.releaseFile(t));
      }
    }
  }

  /**
   * The pipelined close: the synchronous stream closes, the pipelined one begins its close, takes
   * half of the next epoch's updates while another thread finishes it, then the rest. After each
   * close the snapshots are the same bytes and so is every release.
   */
  @Test
  void pipelinedClose_givesTheSameSnapshotsAndReleasesAsCloseEpoch(@TempDir Path dir)
      throws Exception {
    BltStream sync = create(Mechanism.PRIV2_SPARSE, dir.resolve("sync"));
    BltStream piped = create(Mechanism.PRIV2_SPARSE, dir.resolve("piped"));
    assertTrue(piped.closesInBackground());
    feed(sync, 1, 0, PER_EPOCH);
    feed(piped, 1, 0, PER_EPOCH);
    for (int e = 1; e <= T; e++) {
      sync.closeEpoch();
      PendingBltClose p = piped.beginClose();
      assertEquals(e, p.epoch());
      assertEquals(e - 1, piped.epochsClosed(), "not closed yet");
      assertEquals(e, piped.epochsEnded());
      assertEquals(e == T, piped.exhausted());
      assertThrows(IllegalStateException.class, () -> piped.writeTo(new ByteArrayOutputStream()));
      assertThrows(IllegalStateException.class, piped::beginClose);
      CompletableFuture<Void> finishing = CompletableFuture.runAsync(() -> piped.finishClose(p));
      if (e < T) {
        feed(piped, e + 1, 0, PER_EPOCH / 2); // the next epoch, while the close runs
      } else {
        assertNull(piped.accumulator, "no accumulator after the last epoch");
        assertThrows(IllegalStateException.class, () -> piped.update(0, 0, 1.0));
      }
      finishing.get();
      assertEquals(e, piped.epochsClosed());
      assertEquals(e + 2 <= T, piped.spare != null, "a spare only for an epoch e + 2 <= T");
      ByteArrayOutputStream closed = new ByteArrayOutputStream();
      piped.writeClosedState(closed);
      assertArrayEquals(snapshot(sync), closed.toByteArray(), "snapshot after epoch " + e);
      assertSameRelease(sync.releasePrefix(e), piped.releasePrefix(e), "[1, " + e + "]");
      if (e < T) {
        feed(sync, e + 1, 0, PER_EPOCH);
        feed(piped, e + 1, PER_EPOCH / 2, PER_EPOCH);
      }
    }
    assertSameReleases(sync, dir.resolve("sync"), piped, dir.resolve("piped"), "pipelined");
  }

  /** After epoch T nothing more is taken; releases and a restore still work. */
  @Test
  void afterEpochT_updatesAndClosesAreRefused_releasesAndRestoresWork(@TempDir Path dir)
      throws IOException {
    BltStream s = create(Mechanism.PRIV2_SPARSE, dir);
    closeAndCommitThrough(s, T);
    assertTrue(s.exhausted());
    assertEquals(BltStream.EXHAUSTED,
        assertThrows(IllegalStateException.class, () -> s.update(0, 0, 1)).getMessage());
    assertThrows(IllegalStateException.class, s::closeEpoch);
    assertThrows(IllegalStateException.class, s::beginClose);
    BltStream restored = BltStream.readFrom(new ByteArrayInputStream(snapshot(s)), KEY, dir);
    assertTrue(restored.exhausted());
    assertSameRelease(s.releaseRange(3, T), restored.releaseRange(3, T), "[3, T]");
    assertThrows(IllegalArgumentException.class, () -> s.releasePrefix(T + 1));
    assertThrows(IllegalArgumentException.class, () -> s.releaseRange(0, 2));
    assertThrows(IllegalArgumentException.class, () -> s.releaseRange(3, 2));
  }

  /**
   * A format-1 snapshot after epoch T may still name the buffers of epoch T with R_T (written
   * before the last close dropped them): it is read, only R_T is used, and those buffer files are
   * deleted.
   */
  @Test
  void snapshotAfterEpochT_namingTheBuffers_isReadAndTheBuffersGo(@TempDir Path dir)
      throws IOException {
    BltStream s = create(Mechanism.PRIV2_SPARSE, dir);
    closeAndCommitThrough(s, T);
    int d = s.plan().parameters().buffers();
    List<BltFiles.Written> named = new ArrayList<>();
    for (String name : BltStream.stateFileNames(T, d, T + 1)) {
      if (name.equals(BltStream.releaseFile(T))) {
        named.add(s.stateFiles.get(0));
      } else {
        Files.write(dir.resolve(name), new byte[] {1, 2, 3});
        named.add(new BltFiles.Written(name, 3, 0));
      }
    }
    s.stateFiles = List.copyOf(named);
    byte[] old = snapshot(s);
    BltStream restored = BltStream.readFrom(new ByteArrayInputStream(old), KEY, dir);
    assertEquals(List.of(BltStream.releaseFile(T)),
        restored.stateFiles.stream().map(BltFiles.Written::name).toList());
    for (int i = 0; i < d; i++) {
      assertTrue(!Files.exists(dir.resolve(BltStream.encoderFile(T, i))), "encoder file " + i);
      assertTrue(!Files.exists(dir.resolve(BltStream.decoderFile(T, i))), "decoder file " + i);
    }
    assertSameRelease(s.releasePrefix(T), restored.releasePrefix(T), "R_T");
  }

  /** A used state directory is refused: its files could carry this stream's noise labels. */
  @Test
  void create_refusesADirectoryHoldingBltFiles(@TempDir Path dir) throws IOException {
    BltStream s = create(Mechanism.PRIV2_SPARSE, dir);
    closeThrough(s, 1);
    IOException e = assertThrows(IOException.class, () -> create(Mechanism.PRIV2_SPARSE, dir));
    assertTrue(e.getMessage().contains("already holds BLT files"), e.getMessage());
  }

  /**
   * A state file that cannot be written (disk full) fails the close and leaves the epoch open; the
   * same close retried once the disk takes it — closeEpoch again, or finishClose of the same
   * pending close, as the ingest loop does — ends in the same files and releases as a stream that
   * never failed: steps 1–3 are not repeated, so z_t is added once.
   */
  @Test
  void failedStateFileWrite_isRetriedByTheSameClose_toTheSameReleases(@TempDir Path dir)
      throws IOException {
    BltStream clean = create(Mechanism.PRIV2_SPARSE, dir.resolve("clean"));
    closeAndCommitThrough(clean, T);
    int[] syncs = {0};
    boolean[] full = {false};
    BltFiles flaky = new BltFiles.Directory(dir.resolve("flaky"), d -> {
      if (++syncs[0] == 8 || full[0]) { // epoch 2's third file, then while the disk is full
        throw new IOException("disk full");
      }
    });
    BltStream s = BltStream.create(config(Mechanism.PRIV2_SPARSE), KEY, "restart/priv2-sparse",
        flaky, BltOptimizer.optimize(T));
    closeAndCommitThrough(s, 1);
    feed(s, 2, 0, PER_EPOCH);
    assertThrows(UncheckedIOException.class, s::closeEpoch);
    assertEquals(1, s.epochsClosed());
    full[0] = true;
    assertThrows(UncheckedIOException.class, s::closeEpoch);
    assertEquals(1, s.epochsClosed());
    full[0] = false;
    s.closeEpoch(); // the disk takes it: epoch 2's files, written once from the state computed once
    assertEquals(2, s.epochsClosed());
    BltFixtures.commit(s);
    // the pipelined form: finishClose of the same pending close, retried
    feed(s, 3, 0, PER_EPOCH);
    PendingBltClose p = s.beginClose();
    full[0] = true;
    assertThrows(UncheckedIOException.class, () -> s.finishClose(p));
    full[0] = false;
    s.finishClose(p);
    BltFixtures.commit(s);
    closeAndCommitThrough(s, T);
    assertSameReleases(clean, dir.resolve("clean"), s, dir.resolve("flaky"), "retried");
  }

  @Test
  void corruptTruncatedOrForeignSnapshots_areRefused(@TempDir Path dir) throws IOException {
    BltStream s = create(Mechanism.PRIV2_SPARSE, dir);
    closeThrough(s, 3);
    feed(s, 4, 0, 5);
    byte[] good = snapshot(s);
    for (int at : new int[] {3, 40, good.length / 2, good.length - 2}) {
      byte[] flipped = good.clone();
      flipped[at] ^= 0x10;
      IOException e = assertThrows(IOException.class,
          () -> BltStream.readFrom(new ByteArrayInputStream(flipped), KEY, dir), "flip at " + at);
      assertTrue(e.getMessage().matches(".*(checksum|corrupt|magic|version|truncated).*"),
          e.getMessage());
    }
    byte[] cut = Arrays.copyOf(good, good.length - 7);
    assertTrue(assertThrows(IOException.class,
        () -> BltStream.readFrom(new ByteArrayInputStream(cut), KEY, dir)).getMessage()
        .contains("truncated"));
    IOException foreign = assertThrows(IOException.class,
        () -> BltStream.readFrom(new ByteArrayInputStream(good), SecretKey.forTesting(54), dir));
    assertTrue(foreign.getMessage().contains("key"), foreign.getMessage());
  }

  /**
   * The state files must be the ones named: a buffer file of another epoch under the name, or a
   * missing earlier release, is refused.
   */
  @Test
  void stateFilesOtherThanTheNamedOnes_areRefused(@TempDir Path dir) throws IOException {
    BltStream s = create(Mechanism.PRIV2_SPARSE, dir);
    closeThrough(s, 4);
    byte[] snap = snapshot(s);
    Path named = dir.resolve(BltStream.encoderFile(4, 1));
    byte[] original = Files.readAllBytes(named);
    Files.copy(dir.resolve(BltStream.encoderFile(3, 1)), named,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    IOException swapped = assertThrows(IOException.class,
        () -> BltStream.readFrom(new ByteArrayInputStream(snap), KEY, dir));
    assertTrue(swapped.getMessage().contains(
        "holds restart/priv2-sparse/blt/encoder/0000000003/1, expected"), swapped.getMessage());
    Files.write(named, original);
    Path encoder0 = dir.resolve(BltStream.encoderFile(4, 0));
    byte[] original0 = Files.readAllBytes(encoder0);
    Files.copy(dir.resolve(BltStream.decoderFile(4, 0)), encoder0,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    IOException role = assertThrows(IOException.class,
        () -> BltStream.readFrom(new ByteArrayInputStream(snap), KEY, dir));
    assertTrue(role.getMessage().contains("holds restart/priv2-sparse/blt/decoder/0000000004/0,"
        + " expected restart/priv2-sparse/blt/encoder/0000000004/0"), role.getMessage());
    Files.write(encoder0, original0);
    assertEquals(4, BltStream.readFrom(new ByteArrayInputStream(snap), KEY, dir).epochsClosed());
    Files.delete(dir.resolve(BltStream.releaseFile(2)));
    IOException missing = assertThrows(IOException.class,
        () -> BltStream.readFrom(new ByteArrayInputStream(snap), KEY, dir));
    assertTrue(missing.getMessage().contains("blt-release-2.sketch is damaged: missing"),
        missing.getMessage());
  }

  // ---- golden files (BltGoldenSnapshots) ----

  private Path goldenCopy(Mechanism mech, Path into) throws IOException, URISyntaxException {
    return goldenCopy(mech, BltCodec.VERSION, into);
  }

  private Path goldenCopy(Mechanism mech, int version, Path into)
      throws IOException, URISyntaxException {
    String name = "/golden/" + BltGoldenSnapshots.directoryName(mech, version) + "/"
        + BltGoldenSnapshots.SNAPSHOT;
    java.net.URL url = getClass().getResource(name);
    assertTrue(url != null, name + " is missing");
    Path source = Path.of(url.toURI()).getParent();
    Files.createDirectories(into);
    try (Stream<Path> files = Files.list(source)) {
      for (Path f : files.toList()) {
        Files.copy(f, into.resolve(f.getFileName()));
      }
    }
    return into;
  }

  /**
   * A stream of format version 1, whose R files carry one label for every epoch, is refused with
   * the reason (a swapped R could not be told from a sound one), and nothing is changed.
   */
  @ParameterizedTest
  @EnumSource(value = Mechanism.class, names = {"PRIV2_SPARSE", "PRIV2"})
  void goldenSnapshotOfVersion1_isRefusedWithTheReason(Mechanism mech, @TempDir Path dir)
      throws Exception {
    Path golden = goldenCopy(mech, BltCodec.VERSION_UNBOUND, dir.resolve("golden"));
    List<String> before = filesIn(golden);
    byte[] bytes = Files.readAllBytes(golden.resolve(BltGoldenSnapshots.SNAPSHOT));
    IOException refused = assertThrows(IOException.class,
        () -> BltStream.readFrom(new ByteArrayInputStream(bytes), KEY, golden));
    assertTrue(refused.getMessage().contains("do not say which epoch they hold (format version"
        + " 1)"), refused.getMessage());
    assertEquals(before, filesIn(golden));
  }

  /**
   * The golden snapshot of the current format version and its state files stay readable, and continue
   * exactly as the same stream built today (same parameters, updates and noise labels); the
   * writer of this build writes the very same snapshot bytes for that content.
   */
  @ParameterizedTest
  @EnumSource(value = Mechanism.class, names = {"PRIV2_SPARSE", "PRIV2"})
  void goldenSnapshot_staysReadableAndContinuesIdentically(Mechanism mech, @TempDir Path dir)
      throws Exception {
    Path golden = goldenCopy(mech, dir.resolve("golden"));
    byte[] bytes = Files.readAllBytes(golden.resolve(BltGoldenSnapshots.SNAPSHOT));
    BltStream g;
    try (InputStream in = new ByteArrayInputStream(bytes)) {
      g = BltStream.readFrom(in, KEY, golden);
    }
    assertEquals(2, g.epochsClosed());
    assertEquals(BltGoldenSnapshots.PER_EPOCH / 2, g.accumulator.updateCount());
    BltStream today = BltGoldenSnapshots.golden(mech, BltFiles.directory(dir.resolve("today")),
        g.plan().parameters());
    assertEquals(today.plan(), g.plan());
    assertArrayEquals(bytes, snapshot(today), "this build writes the golden bytes");
    BltGoldenSnapshots.finish(g);
    BltGoldenSnapshots.finish(today);
    for (int s = 1; s <= BltGoldenSnapshots.T; s++) {
      for (int e = s; e <= BltGoldenSnapshots.T; e++) {
        assertSameRelease(today.releaseRange(s, e), g.releaseRange(s, e), "[" + s + ", " + e
            + "]");
      }
    }
  }
}
