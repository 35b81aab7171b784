package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dplrf.ingest.ContributionBounds.BudgetPolicy;
import io.dplrf.ingest.ContributionBounds.Unit;
import io.dplrf.sketch.files.WriteSteps;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateStoreTest {
  static final ContributionBounds.Config KEY_BOUNDS =
      new ContributionBounds.Config(10, 5, 1.0, Unit.KEY, BudgetPolicy.CLIP);

  @TempDir Path dir;

  /** A fixed, fully populated state: the content of the golden file. */
  static Fixture fixture() throws MalformedRecordException {
    Fixture f = new Fixture();
    f.bounds = new ContributionBounds(KEY_BOUNDS);
    f.target = new RecordingTarget(8);
    IngestStats s = new IngestStats();
    UpdateVisitor sink = f.target::update;
    f.bounds.accept("alice".getBytes(StandardCharsets.UTF_8),
        UpdateRecords.encode(new int[] {1, 2}, new int[] {3, 4}, new double[] {0.5, -2}, 0, 2), s, sink);
    f.target.closeEpoch();
    f.bounds.accept(new byte[] {0, (byte) 0xff},
        UpdateRecords.encode(new int[] {9}, new int[] {0}, new double[] {0.25}, 0, 1), s, sink);
    s.recordConsumed();
    s.recordConsumed();
    s.recordConsumed();
    s.countDeadLetter(DeadLetterReason.NON_FINITE_DELTA);
    f.header = new StateStore.Header("updates", Map.of(0, 17L, 2, 5L), s, 1, 1, 1_700_000_000_000L);
    return f;
  }

  static final class Fixture {
    ContributionBounds bounds;
    RecordingTarget target;
    StateStore.Header header;
  }

  @Test
  void write_thenRead_restoresOffsetsStatsBudgetsEpochsAndTargetState() throws Exception {
    Fixture f = fixture();
    StateStore store = new StateStore(dir);
    assertFalse(store.exists());
    store.write(f.header, f.bounds, f.target);
    assertTrue(store.exists());
    assertFalse(Files.exists(dir.resolve(StateStore.TEMP_NAME)));

    ContributionBounds bounds = new ContributionBounds(KEY_BOUNDS);
    RecordingTarget target = new RecordingTarget(8);
    StateStore.Header h = store.read(bounds, target).orElseThrow();
    assertEquals(f.header, h);
    assertEquals(f.header.stats(), h.stats());
    assertEquals(Map.of(0, 17L, 2, 5L), h.nextOffsets());
    assertEquals(1.0, bounds.spentByKey("alice".getBytes(StandardCharsets.UTF_8)));
    assertEquals(0.25, bounds.spentByKey(new byte[] {0, (byte) 0xff}));
    assertArrayEquals(f.target.stateBytes(), target.stateBytes());
    assertEquals(1, target.epochsClosed());
  }

  @Test
  void write_createsTheSnapshotAndItsTempFileOwnerOnly() throws Exception {
    assumeTrue(Files.getFileStore(dir).supportsFileAttributeView(PosixFileAttributeView.class),
        "permissions are POSIX");
    Path stateDir = dir.resolve("state");
    StateStore store = new StateStore(stateDir);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(stateDir)));
    Fixture f = fixture();
    store.write(f.header, f.bounds, f.target);
    assertEquals("rw-------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file())));
    List<String> tempPermissions = new ArrayList<>();
    try (var seam = WriteSteps.install((step, file) -> {
      if (step == WriteSteps.Step.CREATED) {
        tempPermissions.add(PosixFilePermissions.toString(
            Files.getPosixFilePermissions(stateDir.resolve(StateStore.TEMP_NAME))));
      }
    })) {
      store.write(f.header, f.bounds, f.target);
    }
    assertEquals(List.of("rw-------"), tempPermissions);
  }

  @Test
  void read_withoutFile_isEmptyAndTouchesNothing() throws Exception {
    RecordingTarget target = new RecordingTarget(8);
    assertEquals(Optional.empty(),
        new StateStore(dir).read(new ContributionBounds(KEY_BOUNDS), target));
    assertEquals(0, target.matrix.size());
  }

  @Test
  void read_underOtherBounds_namesOnlyTheSettingsThatDiffer_asTheUserSpellsThem()
      throws Exception {
    Fixture f = fixture();
    StateStore store = new StateStore(dir);
    store.write(f.header, f.bounds, f.target);
    var other = new ContributionBounds.Config(10, 5, 5.0, Unit.ROW, BudgetPolicy.CLIP);
    String message = assertThrows(IOException.class,
        () -> store.read(new ContributionBounds(other), new RecordingTarget(8))).getMessage();
    assertTrue(message.contains("was written with other contribution bounds (clip: 1.0 in the"
        + " state directory, 5.0 configured; privacy-unit: key in the state directory, row"
        + " configured): "), message);
    assertFalse(message.contains("Config["), message);
    assertFalse(message.contains("rows:"), "rows did not change: " + message);
  }

  @Test
  void rowBudgets_roundTrip() throws Exception {
    var cfg = new ContributionBounds.Config(10, 5, 2.0, Unit.ROW, BudgetPolicy.DROP);
    ContributionBounds b = new ContributionBounds(cfg);
    IngestStats s = new IngestStats();
    b.accept(null, UpdateRecords.encode(new int[] {7, 3}, new int[] {0, 0},
        new double[] {1.5, -0.5}, 0, 2), s, (i, j, d) -> {});
    StateStore store = new StateStore(dir);
    store.write(new StateStore.Header("t", Map.of(), s, 0, 2, 0), b, new RecordingTarget(1));
    ContributionBounds back = new ContributionBounds(cfg);
    store.read(back, new RecordingTarget(1));
    assertEquals(1.5, back.spentByRow(7));
    assertEquals(0.5, back.spentByRow(3));
    assertEquals(0.0, back.spentByRow(0));
  }

  @Test
  void write_failingMidway_leavesThePreviousSnapshotIntact() throws Exception {
    Fixture f = fixture();
    StateStore store = new StateStore(dir);
    store.write(f.header, f.bounds, f.target);
    byte[] before = Files.readAllBytes(store.file());
    IngestTarget failing = new RecordingTarget(8) {
      @Override
      public void writeState(OutputStream out) throws IOException {
        out.write(new byte[100_000]);
        throw new IOException("disk full (simulated)");
      }
    };
    assertThrows(IOException.class, () -> store.write(f.header, f.bounds, failing));
    assertArrayEquals(before, Files.readAllBytes(store.file()));
    assertFalse(Files.exists(dir.resolve(StateStore.TEMP_NAME)), "the temp file is deleted");
    assertEquals(f.header, store.read(new ContributionBounds(KEY_BOUNDS), new RecordingTarget(8))
        .orElseThrow());
  }

  /**
   * Disk full at every step of the write (as the file system reports it: an IOException "No space
   * left on device"): the snapshot stays whole — the previous one, or the new one once renamed —
   * no temp file is left, and the same write succeeds once space returns.
   */
  @Test
  void write_refusedAtEveryStep_leavesAWholeSnapshotAndNoTempFile_andSucceedsOnRetry()
      throws Exception {
    Fixture f = fixture();
    for (WriteSteps.Step failAt : WriteSteps.Step.values()) {
      Path d = dir.resolve(failAt.name());
      StateStore store = new StateStore(d);
      store.write(f.header, f.bounds, f.target);
      byte[] before = Files.readAllBytes(store.file());
      StateStore.Header next = new StateStore.Header("updates", Map.of(0, 99L), f.header.stats(),
          f.header.epochsClosed(), 1, 2);
      try (var seam = WriteSteps.install((step, file) -> {
        if (step == failAt && file.equals(store.file())) {
          throw new IOException("No space left on device");
        }
      })) {
        IOException e = assertThrows(IOException.class,
            () -> store.write(next, f.bounds, f.target));
        assertEquals("No space left on device", e.getMessage());
      }
      assertFalse(Files.exists(d.resolve(StateStore.TEMP_NAME)), failAt + ": no temp file");
      StateStore.Header now = store.read(new ContributionBounds(KEY_BOUNDS), new RecordingTarget(8))
          .orElseThrow();
      if (failAt.compareTo(WriteSteps.Step.RENAMED) < 0) {
        assertArrayEquals(before, Files.readAllBytes(store.file()), failAt + ": the previous one");
      } else {
        assertEquals(next, now, failAt + ": the new one, renamed before the failure");
      }
      store.write(next, f.bounds, f.target);
      assertEquals(next, store.read(new ContributionBounds(KEY_BOUNDS), new RecordingTarget(8))
          .orElseThrow(), failAt + ": the retry");
    }
  }

  @Test
  void read_deletesATempFileLeftByACrash() throws Exception {
    Fixture f = fixture();
    StateStore store = new StateStore(dir);
    store.write(f.header, f.bounds, f.target);
    Files.write(dir.resolve(StateStore.TEMP_NAME), new byte[] {1, 2, 3});
    assertEquals(f.header, store.read(new ContributionBounds(KEY_BOUNDS), new RecordingTarget(8))
        .orElseThrow());
    assertFalse(Files.exists(dir.resolve(StateStore.TEMP_NAME)));
  }

  @Test
  void read_everySingleFlippedByte_isRefusedNeverIgnored() throws Exception {
    Fixture f = fixture();
    StateStore store = new StateStore(dir);
    store.write(f.header, f.bounds, f.target);
    byte[] good = Files.readAllBytes(store.file());
    for (int p = 0; p < good.length; p++) {
      byte[] bad = good.clone();
      bad[p] ^= 0x10;
      Files.write(store.file(), bad);
      IOException e = assertThrows(IOException.class,
          () -> store.read(new ContributionBounds(KEY_BOUNDS), new RecordingTarget(8)));
      assertTrue(e.getMessage().contains("unreadable"), e.getMessage());
    }
  }

  @Test
  void read_truncatedAtAnyLength_isRefused() throws Exception {
    Fixture f = fixture();
    StateStore store = new StateStore(dir);
    store.write(f.header, f.bounds, f.target);
    byte[] good = Files.readAllBytes(store.file());
    for (int len = 0; len < good.length; len++) {
      Files.write(store.file(), java.util.Arrays.copyOf(good, len));
      assertThrows(IOException.class,
          () -> store.read(new ContributionBounds(KEY_BOUNDS), new RecordingTarget(8)));
    }
  }

  @Test
  void read_underOtherContributionBounds_isRefused() throws Exception {
    Fixture f = fixture();
    StateStore store = new StateStore(dir);
    store.write(f.header, f.bounds, f.target);
    var other = new ContributionBounds.Config(10, 5, 2.0, Unit.KEY, BudgetPolicy.CLIP);
    IOException e = assertThrows(IOException.class,
        () -> store.read(new ContributionBounds(other), new RecordingTarget(8)));
    assertTrue(e.getMessage().contains("privacy accounting"), e.getMessage());
  }

  @Test
  void read_targetLeavingStateBytesUnread_isRefused() throws Exception {
    Fixture f = fixture();
    StateStore store = new StateStore(dir);
    store.write(f.header, f.bounds, f.target);
    IngestTarget lazy = new RecordingTarget(8) {
      @Override
      public void readState(InputStream in) throws IOException {
        in.read();
        closed = 1;
      }
    };
    assertThrows(IOException.class, () -> store.read(new ContributionBounds(KEY_BOUNDS), lazy));
  }

  @Test
  void read_targetRefusingItsState_failsWithAMessageNamingTheFile() throws Exception {
    Fixture f = fixture();
    StateStore store = new StateStore(dir);
    store.write(f.header, f.bounds, f.target);
    IngestTarget otherKey = new RecordingTarget(8) {
      @Override
      public void readState(InputStream in) throws IOException {
        throw new IOException("tree snapshot was written under key a but the key given is b");
      }
    };
    IOException e = assertThrows(IOException.class,
        () -> store.read(new ContributionBounds(KEY_BOUNDS), otherKey));
    assertTrue(e.getMessage().contains(store.file().toString())
        && e.getMessage().endsWith("written under key a but the key given is b"), e.getMessage());
  }

  @Test
  void goldenVersion1File_isReadAndRewrittenByteForByte() throws Exception {
    byte[] golden;
    try (InputStream in = StateStoreTest.class.getResourceAsStream("/golden/ingest-v1.snapshot")) {
      golden = in.readAllBytes();
    }
    Files.write(dir.resolve(StateStore.FILE_NAME), golden);
    StateStore store = new StateStore(dir);
    ContributionBounds bounds = new ContributionBounds(KEY_BOUNDS);
    RecordingTarget target = new RecordingTarget(8);
    StateStore.Header h = store.read(bounds, target).orElseThrow();
    Fixture f = fixture();
    assertEquals(f.header, h);
    assertArrayEquals(f.target.stateBytes(), target.stateBytes());

    Path again = dir.resolve("again");
    new StateStore(again).write(h, bounds, target);
    assertArrayEquals(golden, Files.readAllBytes(again.resolve(StateStore.FILE_NAME)));
  }
}
