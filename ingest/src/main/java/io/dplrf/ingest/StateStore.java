package io.dplrf.ingest;

import io.dplrf.sketch.files.DamagedFileException;
import io.dplrf.sketch.files.StateFiles;
import io.dplrf.sketch.files.WriteSteps;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * The one owner of the ingest snapshot format, written crash-safely (temp file, fsync, atomic
 * rename): the consumed offsets and everything they must agree with — counters, contribution
 * budgets, epoch bookkeeping and the target's (sketch tree's) state — in one file, {@value
 * #FILE_NAME} in the state directory.
 *
 * <p>The file is created {@code rw-------} ({@link StateFiles}): it is as sensitive as the raw
 * data. Writes are crash-safe as in Kafka's {@code OffsetCheckpoint}: write {@value #TEMP_NAME},
 * fsync it, atomically rename it over the snapshot, fsync the directory ({@link WriteSteps}). A
 * reader sees the old snapshot or the new one, never a mix. A write that fails deletes its temp
 * file, and {@link #read} deletes one a crash left. Reading a snapshot that is truncated, corrupt
 * (checksum), of an unknown version or written under other contribution bounds fails with an
 * {@link IOException} naming the file; a damaged file the snapshot names (a closed-node file)
 * fails with a {@link DamagedFileException} naming that file; only an absent file means "start
 * from scratch".
 *
 * <pre>
 * Format version 1, big-endian (java.io.DataOutput):
 *
 *  field              type          notes
 *  -----------------  ------------  -----------------------------------------------------------
 *  magic              8 bytes       ASCII "DPLRFIN1"
 *  version            int32         1
 *  topic              UTF           the consumed topic
 *  partitions         int32 P       then P × (partition int32, nextOffset int64), ascending
 *  recordsConsumed    int64         IngestStats
 *  updatesConsumed    int64
 *  updatesApplied     int64
 *  updatesClipped     int64
 *  updatesDropped     int64
 *  deadLettered       int32 R       then R × int64, by DeadLetterReason ordinal
 *  checksum           int64         order-independent checksum of applied updates
 *  rows, cols         2 × int32     ContributionBounds.Config: must equal the configured one
 *  clip               float64
 *  unit, policy       2 × int8      ordinals of Unit, BudgetPolicy
 *  keyBudgets         int32 K       then K × (length int32, key bytes, spent float64),
 *                                   keys ascending as unsigned bytes
 *  rowBudgets         int32 N       then N × (row int32, spent float64), rows ascending,
 *                                   only rows with spent != 0
 *  epochsClosed       int32         must equal the restored target's epochsClosed()
 *  updatesInEpoch     int64         update positions read in the open epoch (older builds
 *                                   stored applied updates, never more: read as positions,
 *                                   that one open epoch just closes a little later)
 *  epochStartMillis   int64         wall-clock start of the open epoch (ms since 1970)
 *  targetState        bytes         IngestTarget.writeState, up to the checksum
 *  crc                int32         CRC32C of every byte before it
 * </pre>
 *
 * <p>Thread-safety: one writer at a time (the ingest loop).
 */
public final class StateStore implements Checkpoint {
  public static final String FILE_NAME = "ingest.snapshot";
  /** Dead-letter reasons of the first version-1 build (BAD_LENGTH .. MISSING_KEY). */
  private static final int FIRST_BUILD_REASONS = 4;
  public static final String TEMP_NAME = "ingest.snapshot.tmp";
  static final int VERSION = 1;
  private static final byte[] MAGIC = "DPLRFIN1".getBytes(StandardCharsets.US_ASCII);

  /**
   * Everything in a snapshot besides the budgets and the target state.
   *
   * @param topic the consumed topic
   * @param nextOffsets partition → offset of the next record to consume
   * @param stats the counters at that point
   * @param epochsClosed epochs closed so far
   * @param updatesInEpoch update positions read in the open epoch ({@link IngestConfig#epochUpdates})
   * @param epochStartMillis wall-clock start of the open epoch
   */
  public record Header(String topic, Map<Integer, Long> nextOffsets, IngestStats stats,
      int epochsClosed, long updatesInEpoch, long epochStartMillis) {
    public Header {
      Objects.requireNonNull(topic, "topic");
      nextOffsets = Collections.unmodifiableMap(new TreeMap<>(nextOffsets));
      stats = stats.copy();
    }
  }

  private final Path dir;
  private final Path file;
  private final Path temp;

  /** A store in {@code dir}, created ({@code rwx------}) if absent. */
  public StateStore(Path dir) throws IOException {
    this.dir = StateFiles.createDirectories(dir);
    this.file = dir.resolve(FILE_NAME);
    this.temp = dir.resolve(TEMP_NAME);
  }

  @Override
  public Path file() {
    return file;
  }

  @Override
  public boolean exists() {
    return Files.exists(file);
  }

  @Override
  public long sizeInBytes() throws IOException {
    return Files.size(file);
  }

  /** Atomically replaces the snapshot with {@code header}, {@code bounds}' budgets and the target's state. */
  @Override
  public void write(Header header, ContributionBounds bounds, IngestTarget target)
      throws IOException {
    write(d -> writeHeader(d, header, bounds), target::writeState);
  }

  /**
   * The header and budgets encoded now, the file written later: a copy of the budgets as of the
   * boundary (a few bytes per budget entry; the synchronous {@link #write} streams them instead).
   */
  @Override
  public DeferredWrite capture(Header header, ContributionBounds bounds) throws IOException {
    byte[] head = encodeHeader(header, bounds);
    return target -> write(d -> d.write(head), target);
  }

  /** Writes the header part of the snapshot. */
  @FunctionalInterface
  private interface HeaderPart {
    void writeTo(DataOutputStream d) throws IOException;
  }

  private static byte[] encodeHeader(Header header, ContributionBounds bounds) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(b);
    writeHeader(d, header, bounds);
    d.flush();
    return b.toByteArray();
  }

  /**
   * The crash-safe write, step by step ({@link WriteSteps}): temp file (CREATED, WRITTEN), fsync
   * (SYNCED), atomic rename (RENAMED), fsync of the directory (DURABLE). A failure deletes the
   * temp file; the snapshot is then the previous one, or (a failure of the directory's fsync) the
   * new one, and the same write may be tried again.
   */
  private void write(HeaderPart head, TargetState target) throws IOException {
    try {
      writeTemp(head, target);
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("the state directory " + dir + " does not support atomic rename", e);
      }
      WriteSteps.reached(WriteSteps.Step.RENAMED, file);
      StateFiles.fsyncDirectory(dir);
      WriteSteps.reached(WriteSteps.Step.DURABLE, file);
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException again) {
        e.addSuppressed(again);
      }
      throw e;
    }
  }

  private void writeTemp(HeaderPart head, TargetState target) throws IOException {
    // Owner-only from creation: the snapshot holds noiseless sketches, record keys and counters.
    try (FileChannel ch = StateFiles.createForWriting(temp)) {
      WriteSteps.reached(WriteSteps.Step.CREATED, file);
      OutputStream raw = Channels.newOutputStream(ch);
      CRC32C crc = new CRC32C();
      DataOutputStream d =
          new DataOutputStream(new CheckedOutputStream(new BufferedOutputStream(raw, 1 << 16), crc));
      head.writeTo(d);
      target.writeTo(new FilterOutputStream(d) {
        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
          flush(); // the target must not close the snapshot under us
        }
      });
      d.flush();
      // The checksum covers everything above; write it outside the checked stream.
      DataOutputStream tail = new DataOutputStream(raw);
      tail.writeInt((int) crc.getValue());
      tail.flush();
      WriteSteps.reached(WriteSteps.Step.WRITTEN, file);
      ch.force(true);
      WriteSteps.reached(WriteSteps.Step.SYNCED, file);
    }
  }

  /**
   * Writes the header fields of the format above, magic to {@code epochStartMillis}: shared with
   * {@link RatingsStore}, which keeps the same header in its database.
   */
  static void writeHeader(DataOutputStream d, Header h, ContributionBounds bounds)
      throws IOException {
    d.write(MAGIC);
    d.writeInt(VERSION);
    d.writeUTF(h.topic());
    d.writeInt(h.nextOffsets().size());
    for (Map.Entry<Integer, Long> e : h.nextOffsets().entrySet()) {
      d.writeInt(e.getKey());
      d.writeLong(e.getValue());
    }
    IngestStats s = h.stats();
    d.writeLong(s.recordsConsumed);
    d.writeLong(s.updatesConsumed);
    d.writeLong(s.updatesApplied);
    d.writeLong(s.updatesClipped);
    d.writeLong(s.updatesDropped);
    // The reasons up to the last non-zero count, at least the first build's 4: snapshots of the
    // turnstile format stay byte-for-byte those of version 1 (the golden file), and the reader
    // takes any count up to the reasons it knows (later reasons read as 0).
    int reasons = FIRST_BUILD_REASONS;
    for (int k = s.deadLettered.length - 1; k >= FIRST_BUILD_REASONS; k--) {
      if (s.deadLettered[k] != 0) {
        reasons = k + 1;
        break;
      }
    }
    d.writeInt(reasons);
    for (int k = 0; k < reasons; k++) {
      d.writeLong(s.deadLettered[k]);
    }
    d.writeLong(s.checksum);
    ContributionBounds.Config c = bounds.config();
    d.writeInt(c.rows());
    d.writeInt(c.cols());
    d.writeDouble(c.clip());
    d.writeByte(c.unit().ordinal());
    d.writeByte(c.policy().ordinal());
    boolean keyMode = c.unit() == ContributionBounds.Unit.KEY;
    int entries = bounds.budgetEntries();
    d.writeInt(keyMode ? entries : 0);
    IOException[] failure = new IOException[1];
    bounds.visitBudgets(new ContributionBounds.BudgetVisitor() {
      @Override
      public void key(byte[] key, double spent) {
        try {
          d.writeInt(key.length);
          d.write(key);
          d.writeDouble(spent);
        } catch (IOException e) {
          failure[0] = e;
        }
      }

      @Override
      public void row(int row, double spent) {}
    });
    d.writeInt(keyMode ? 0 : entries);
    bounds.visitBudgets(new ContributionBounds.BudgetVisitor() {
      @Override
      public void key(byte[] key, double spent) {}

      @Override
      public void row(int row, double spent) {
        try {
          d.writeInt(row);
          d.writeDouble(spent);
        } catch (IOException e) {
          failure[0] = e;
        }
      }
    });
    if (failure[0] != null) {
      throw failure[0];
    }
    d.writeInt(h.epochsClosed());
    d.writeLong(h.updatesInEpoch());
    d.writeLong(h.epochStartMillis());
  }

  /**
   * Reads the snapshot, if there is one: restores the budgets into {@code bounds} (which must be
   * fresh and configured as when the snapshot was written) and the target's state into {@code
   * target}, and returns the header.
   *
   * @return empty if there is no snapshot file (first start)
   * @throws IOException if the file exists but is not a complete, uncorrupted version-1 snapshot
   *     written under the same contribution bounds, or the target refuses its state; the message
   *     always names the file
   */
  @Override
  public Optional<Header> read(ContributionBounds bounds, IngestTarget target) throws IOException {
    // A temp file is left only by a write that a crash interrupted: nothing reads it, and the
    // next write would replace it. Reading is the first thing a run does with its store.
    Files.deleteIfExists(temp);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    // A process that died between the rename and the directory's fsync left a snapshot that a
    // power loss could still take back; nothing may be released from it until it is durable
    // (docs/privacy/recovery.md: a release must never be followed by a rollback past it).
    StateFiles.fsyncDirectory(dir);
    long size = Files.size(file);
    if (size < MAGIC.length + 8) {
      throw corrupt("truncated (" + size + " bytes)", null);
    }
    verifyChecksum(size);
    long body = size - 4;
    try (InputStream raw = Files.newInputStream(file)) {
      var counted = new SnapshotStreams.CountingInputStream(new BufferedInputStream(raw, 1 << 16));
      DataInputStream d = new DataInputStream(counted);
      Header h = readHeader(d, bounds, file);
      long stateLength = body - counted.count;
      if (stateLength < 0) {
        throw corrupt("truncated header", null);
      }
      var state = new SnapshotStreams.LimitedInputStream(counted, stateLength);
      try {
        target.readState(state);
      } catch (EOFException e) {
        throw e;
      } catch (DamagedFileException e) {
        // Another file the snapshot names (a closed-node file, a BLT state file) is damaged;
        // this one is whole.
        throw new DamagedFileException(e.file(), e.problem() + "; the snapshot " + file
            + " that names it is whole: restore this file from a backup of the state directory"
            + " (a closed-node or BLT state file never changes once a durable snapshot names it,"
            + " so any backup that holds it will do; the restore checks it again)", e);
      } catch (IOException | RuntimeException e) {
        // The target's reasons (other key, other settings, a missing node file) do not know
        // the file: name it, so that the one-line start failure says what to look at.
        throw new IOException("snapshot " + file + " cannot be restored: " + e.getMessage(), e);
      }
      if (state.remaining > 0) {
        throw corrupt("the target read " + (stateLength - state.remaining) + " of its "
            + stateLength + " state bytes", null);
      }
      if (target.epochsClosed() != h.epochsClosed()) {
        throw corrupt("header says " + h.epochsClosed() + " epochs closed, the target state "
            + target.epochsClosed(), null);
      }
      return Optional.of(h);
    } catch (EOFException e) {
      throw corrupt("truncated", e);
    }
  }

  private void verifyChecksum(long size) throws IOException {
    CRC32C crc = new CRC32C();
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[1 << 16];
      long left = size - 4;
      while (left > 0) {
        int r = in.read(buf, 0, (int) Math.min(buf.length, left));
        if (r < 0) {
          throw corrupt("truncated", null);
        }
        crc.update(buf, 0, r);
        left -= r;
      }
      int stored = new DataInputStream(in).readInt();
      if (stored != (int) crc.getValue()) {
        throw corrupt("checksum mismatch (stored " + Integer.toHexString(stored) + ", computed "
            + Integer.toHexString((int) crc.getValue()) + ")", null);
      }
    }
  }

  /** Reads what {@link #writeHeader} wrote; {@code file} names the source in messages. */
  static Header readHeader(DataInputStream d, ContributionBounds bounds, Path file)
      throws IOException {
    byte[] magic = new byte[MAGIC.length];
    d.readFully(magic);
    if (!Arrays.equals(magic, MAGIC)) {
      throw corrupt(file, "not a dplrf ingest snapshot (bad magic number)", null);
    }
    int version = d.readInt();
    if (version != VERSION) {
      throw corrupt(file, "unsupported version " + version + " (this build reads " + VERSION + ")", null);
    }
    String topic = d.readUTF();
    int p = nonNegative(file, d.readInt(), "partition count");
    Map<Integer, Long> offsets = new TreeMap<>();
    for (int k = 0; k < p; k++) {
      offsets.put(d.readInt(), d.readLong());
    }
    IngestStats s = new IngestStats();
    s.recordsConsumed = d.readLong();
    s.updatesConsumed = d.readLong();
    s.updatesApplied = d.readLong();
    s.updatesClipped = d.readLong();
    s.updatesDropped = d.readLong();
    int reasons = nonNegative(file, d.readInt(), "reason count");
    if (reasons > s.deadLettered.length) {
      throw corrupt(file, reasons + " dead-letter reasons, this build knows " + s.deadLettered.length,
          null);
    }
    for (int k = 0; k < reasons; k++) {
      s.deadLettered[k] = d.readLong();
    }
    s.checksum = d.readLong();
    ContributionBounds.Config c = bounds.config();
    int rows = d.readInt();
    int cols = d.readInt();
    double clip = d.readDouble();
    int unit = d.readByte();
    int policy = d.readByte();
    // Named as the service's settings spell them, each that differs only.
    List<String> differ = new ArrayList<>();
    differ(differ, "rows", rows, c.rows());
    differ(differ, "cols", cols, c.cols());
    differ(differ, "clip", clip, c.clip());
    differ(differ, "privacy-unit", name(ContributionBounds.Unit.values(), unit),
        name(ContributionBounds.Unit.values(), c.unit().ordinal()));
    differ(differ, "budget-policy", name(ContributionBounds.BudgetPolicy.values(), policy),
        name(ContributionBounds.BudgetPolicy.values(), c.policy().ordinal()));
    if (!differ.isEmpty()) {
      throw new IOException("snapshot " + file + " was written with other contribution bounds ("
          + String.join("; ", differ) + "): changing them mid-stream would break the privacy"
          + " accounting: keep them, or use a new state directory");
    }
    int keys = nonNegative(file, d.readInt(), "key budget count");
    for (int k = 0; k < keys; k++) {
      byte[] key = new byte[nonNegative(file, d.readInt(), "key length")];
      d.readFully(key);
      bounds.restoreKey(key, d.readDouble());
    }
    int rowEntries = nonNegative(file, d.readInt(), "row budget count");
    for (int k = 0; k < rowEntries; k++) {
      int row = d.readInt();
      if (row < 0 || row >= c.rows()) {
        throw corrupt(file, "row budget for row " + row, null);
      }
      bounds.restoreRow(row, d.readDouble());
    }
    int epochs = nonNegative(file, d.readInt(), "epochs closed");
    long inEpoch = d.readLong();
    long start = d.readLong();
    return new Header(topic, offsets, s, epochs, inEpoch, start);
  }

  /** An enum constant as the settings spell it ({@code ROW_RECORD}: "row-record"). */
  private static String name(Enum<?>[] values, int ordinal) {
    return ordinal >= 0 && ordinal < values.length
        ? values[ordinal].name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
        : "#" + ordinal;
  }

  private static void differ(List<String> out, String setting, Object stored, Object configured) {
    if (!stored.equals(configured)) {
      out.add(setting + ": " + stored + " in the state directory, " + configured + " configured");
    }
  }

  private static int nonNegative(Path file, int v, String what) throws IOException {
    if (v < 0) {
      throw corrupt(file, what + " " + v, null);
    }
    return v;
  }

  private IOException corrupt(String what, Throwable cause) {
    return corrupt(file, what, cause);
  }

  static IOException corrupt(Path file, String what, Throwable cause) {
    return new IOException("ingest snapshot " + file + " is unreadable: " + what
        + "; refusing to start from scratch, which would be a new run on the same data (restore"
        + " a good snapshot, or start a new run deliberately in a new, empty state directory)",
        cause);
  }
}
