package io.dplrf.ingest;

import io.dplrf.sketch.files.StateFiles;
import io.dplrf.sketch.params.Preconditions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteBatchWithIndex;
import org.rocksdb.WriteOptions;

/**
 * Completion mode's durable state: every user's observed ratings, in a RocksDB database
 * ({@value #DIR_NAME} under the state directory), and the ingest loop's exactly-once state in the
 * same database. It is both the loop's {@link Checkpoint} and, through {@link #target()}, its
 * {@link IngestTarget}.
 *
 * <p><b>Exactly once.</b> Ratings the loop applies go into a pending {@link WriteBatchWithIndex}
 * (read back through it, so a user's later ratings see her earlier ones); nothing reaches the
 * database until the loop checkpoints (epoch close, clean stop). {@link #write} then adds the
 * loop's header (offsets, counters: {@link StateStore#writeHeader}, the same encoding as the
 * snapshot file) and the target's counters to that batch and writes it with one synced
 * {@code db.write}: RocksDB applies a batch atomically and, with {@code sync}, durably (its
 * write-ahead log is fsynced before the call returns). So the stored ratings are always exactly
 * those of the records before the stored offsets: a kill -9 at any point loses the pending batch
 * only, and the loop re-reads its records from the stored offsets.
 *
 * <p><b>Bounds.</b> The latest rating of (user, item) replaces the earlier one. A user holds at
 * most ξ ({@code maxRatings}) distinct items: a rating of a new item beyond them is dropped (the
 * first ξ items stay), which {@link RatingDecoder} counts. The row norm bound L is applied at fit
 * time, not here. ξ is part of the stored state: reopening with another ξ is refused.
 *
 * <pre>
 *  key                         value
 *  --------------------------  ---------------------------------------------------------------
 *  'U' int32 user (big-endian) n × (int32 item, float64 rating), items ascending, 1 ≤ n ≤ ξ
 *  "~ingest"                   StateStore header, then the target state:
 *                              int32 version 1, int32 ξ, int32 epochsClosed,
 *                              int64 users, int64 ratings (stored, all users)
 *  "~meta/" name               {@link #putMeta}: small records of other components
 * </pre>
 *
 * <p>Thread-safety: the target and {@link #write}/{@link #read} belong to the ingest loop's
 * thread; {@link #ratings}, {@link #forEachUser}, {@link #users}, {@link #ratingsStored} and the
 * meta records may be used from any thread and see committed state only.
 */
public final class RatingsStore implements Checkpoint, AutoCloseable {
  /** The database directory under the state directory. */
  public static final String DIR_NAME = "ratings";
  private static final byte USER = 'U';
  private static final byte[] INGEST_KEY = "~ingest".getBytes(StandardCharsets.US_ASCII);
  private static final String META_PREFIX = "~meta/";
  private static final int STATE_VERSION = 1;
  private static final int ENTRY = 12;

  static {
    RocksDB.loadLibrary();
  }

  /** One user's stored ratings, items ascending. */
  public record UserRatings(int user, int[] items, double[] values) {
    public int size() {
      return items.length;
    }
  }

  /** Receives users in ascending order from {@link #forEachUser}. */
  @FunctionalInterface
  public interface UserVisitor {
    void user(UserRatings ratings);
  }

  private final Path dir;
  private final int maxRatings;
  private final Options options;
  private final RocksDB db;
  private final WriteOptions synced;
  private final ReadOptions readOptions;
  private final WriteBatchWithIndex pending;
  private final Target target = new Target();
  private volatile long users;
  private volatile long ratings;
  private boolean exists;

  private RatingsStore(Path dir, int maxRatings) throws IOException {
    this.dir = dir;
    this.maxRatings = maxRatings;
    this.options = new Options().setCreateIfMissing(true).setParanoidChecks(true);
    try {
      this.db = RocksDB.open(options, dir.toString());
    } catch (RocksDBException e) {
      options.close();
      throw new IOException("cannot open the ratings database " + dir + ": " + e.getMessage(), e);
    }
    this.synced = new WriteOptions().setSync(true);
    this.readOptions = new ReadOptions();
    this.pending = new WriteBatchWithIndex(true);
    this.exists = get(INGEST_KEY) != null;
  }

  /**
   * Opens (creating if absent, {@code rwx------}) the database {@value #DIR_NAME} in {@code
   * stateDir}.
   *
   * @param maxRatings ξ, the most distinct items stored per user
   */
  public static RatingsStore open(Path stateDir, int maxRatings) throws IOException {
    Preconditions.checkPositive("maxRatings", maxRatings);
    Path dir = StateFiles.createDirectories(StateFiles.createDirectories(stateDir)
        .resolve(DIR_NAME));
    return new RatingsStore(dir, maxRatings);
  }

  /** The ingest loop's target: {@link IngestTarget#rate} into the pending batch. */
  public IngestTarget target() {
    return target;
  }

  /**
   * Where the ingest loop's {@link RecordDecoder#ratings} decoder puts ratings: the latest rating
   * of (user, item) replaces an earlier one, pending until the next commit. Ingest thread only.
   */
  public RatingSink sink() {
    return target::rate;
  }

  public int maxRatings() {
    return maxRatings;
  }

  // ---- Checkpoint -----------------------------------------------------------------------------

  @Override
  public Optional<StateStore.Header> read(ContributionBounds bounds, IngestTarget t)
      throws IOException {
    requireOwnTarget(t);
    byte[] value = get(INGEST_KEY);
    if (value == null) {
      return Optional.empty();
    }
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(value));
      StateStore.Header h = StateStore.readHeader(in, bounds, dir);
      target.readState(in);
      if (in.available() > 0) {
        throw StateStore.corrupt(dir, in.available() + " bytes after the state", null);
      }
      if (h.epochsClosed() != target.epochsClosed()) {
        throw StateStore.corrupt(dir, "header says " + h.epochsClosed()
            + " epochs closed, the target state " + target.epochsClosed(), null);
      }
      return Optional.of(h);
    } catch (EOFException e) {
      throw StateStore.corrupt(dir, "truncated ingest state", e);
    }
  }

  @Override
  public void write(StateStore.Header header, ContributionBounds bounds, IngestTarget t)
      throws IOException {
    requireOwnTarget(t);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(bytes);
    StateStore.writeHeader(d, header, bounds);
    target.writeState(d);
    d.flush();
    try {
      pending.put(INGEST_KEY, bytes.toByteArray());
      // One synced write of the whole batch: the ratings and the offsets that cover them.
      db.write(synced, pending);
    } catch (RocksDBException e) {
      throw new IOException("writing the ratings database " + dir + ": " + e.getMessage(), e);
    }
    pending.clear();
    users = target.users;
    ratings = target.ratings;
    exists = true;
  }

  @Override
  public Path file() {
    return dir;
  }

  @Override
  public boolean exists() {
    return exists;
  }

  /** Estimated: the SST files plus the memtables. */
  @Override
  public long sizeInBytes() throws IOException {
    try {
      return db.getLongProperty("rocksdb.total-sst-files-size")
          + db.getLongProperty("rocksdb.cur-size-all-mem-tables");
    } catch (RocksDBException e) {
      throw new IOException("reading the size of " + dir + ": " + e.getMessage(), e);
    }
  }

  private void requireOwnTarget(IngestTarget t) {
    if (t != target) {
      throw new IllegalArgumentException("a RatingsStore checkpoints its own target() only");
    }
  }

  // ---- committed reads (any thread) -----------------------------------------------------------

  /** User {@code user}'s committed ratings (empty if none). */
  public UserRatings ratings(int user) throws IOException {
    byte[] row = get(userKey(user));
    return decode(user, row == null ? new byte[0] : row);
  }

  /**
   * Calls {@code visitor} for every user with at least one committed rating, users ascending, all
   * from one consistent view (a RocksDB snapshot: ratings committed meanwhile are not seen).
   */
  public void forEachUser(UserVisitor visitor) throws IOException {
    Snapshot snapshot = db.getSnapshot();
    try (ReadOptions ro = new ReadOptions().setSnapshot(snapshot);
        RocksIterator it = db.newIterator(ro)) {
      for (it.seek(new byte[] {USER}); it.isValid(); it.next()) {
        byte[] key = it.key();
        if (key.length != 5 || key[0] != USER) {
          break;
        }
        visitor.user(decode(ByteBuffer.wrap(key, 1, 4).getInt(), it.value()));
      }
      it.status();
    } catch (RocksDBException e) {
      throw new IOException("reading the ratings database " + dir + ": " + e.getMessage(), e);
    } finally {
      db.releaseSnapshot(snapshot);
    }
  }

  /** Users with at least one committed rating. */
  public long users() {
    return users;
  }

  /** Committed ratings, all users. */
  public long ratingsStored() {
    return ratings;
  }

  /** A small record of another component (e.g. the completion runs), or empty. */
  public Optional<byte[]> meta(String name) throws IOException {
    return Optional.ofNullable(get(metaKey(name)));
  }

  /** Durably (synced) writes a small record; independent of the ingest batch. */
  public void putMeta(String name, byte[] value) throws IOException {
    try (WriteBatch b = new WriteBatch()) {
      b.put(metaKey(name), value);
      db.write(synced, b);
    } catch (RocksDBException e) {
      throw new IOException("writing the ratings database " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Closes the database; the pending batch (anything not yet checkpointed) is discarded. */
  @Override
  public void close() {
    pending.close();
    readOptions.close();
    synced.close();
    db.close();
    options.close();
  }

  private byte[] get(byte[] key) throws IOException {
    try {
      return db.get(readOptions, key);
    } catch (RocksDBException e) {
      throw new IOException("reading the ratings database " + dir + ": " + e.getMessage(), e);
    }
  }

  private static byte[] metaKey(String name) {
    return (META_PREFIX + Objects.requireNonNull(name, "name")).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] userKey(int user) {
    return ByteBuffer.allocate(5).put(USER).putInt(user).array();
  }

  private UserRatings decode(int user, byte[] row) throws IOException {
    if (row.length % ENTRY != 0 || row.length / ENTRY > maxRatings) {
      throw new IOException("ratings database " + dir + ": user " + user + " has a row of "
          + row.length + " bytes (not 12 per rating, at most " + maxRatings + ")");
    }
    int n = row.length / ENTRY;
    int[] items = new int[n];
    double[] values = new double[n];
    ByteBuffer b = ByteBuffer.wrap(row);
    for (int k = 0; k < n; k++) {
      items[k] = b.getInt();
      values[k] = b.getDouble();
    }
    return new UserRatings(user, items, values);
  }

  /** The ingest loop's view: pending ratings and the counters that go with them. */
  private final class Target implements IngestTarget {
    private int epochsClosed;
    private long users;
    private long ratings;

    /** {@link RatingSink#rate}: the ingest thread's ratings, pending until the next commit. */
    boolean rate(int user, int item, double rating) {
      byte[] key = userKey(user);
      byte[] row;
      try {
        row = pending.getFromBatchAndDB(db, readOptions, key);
      } catch (RocksDBException e) {
        throw new IllegalStateException("reading the ratings database " + dir + ": "
            + e.getMessage(), e);
      }
      int n = row == null ? 0 : row.length / ENTRY;
      ByteBuffer b = row == null ? null : ByteBuffer.wrap(row);
      int lo = 0;
      int hi = n - 1;
      while (lo <= hi) { // binary search for item among the ascending items
        int mid = (lo + hi) >>> 1;
        int at = b.getInt(mid * ENTRY);
        if (at < item) {
          lo = mid + 1;
        } else if (at > item) {
          hi = mid - 1;
        } else {
          byte[] updated = row.clone();
          ByteBuffer.wrap(updated).putDouble(mid * ENTRY + 4, rating);
          put(key, updated);
          return true; // a change is a new record: the latest rating replaces the earlier one
        }
      }
      if (n >= maxRatings) {
        return false;
      }
      byte[] grown = new byte[(n + 1) * ENTRY];
      if (row != null) {
        System.arraycopy(row, 0, grown, 0, lo * ENTRY);
        System.arraycopy(row, lo * ENTRY, grown, (lo + 1) * ENTRY, (n - lo) * ENTRY);
      }
      ByteBuffer.wrap(grown).putInt(lo * ENTRY, item).putDouble(lo * ENTRY + 4, rating);
      put(key, grown);
      ratings++;
      if (n == 0) {
        users++;
      }
      return true;
    }

    private void put(byte[] key, byte[] value) {
      try {
        pending.put(key, value);
      } catch (RocksDBException e) {
        throw new IllegalStateException("batching a rating: " + e.getMessage(), e);
      }
    }

    @Override
    public void closeEpoch() {
      epochsClosed++;
    }

    /** Ratings are kept, not released per epoch: there is no epoch limit. */
    @Override
    public boolean exhausted() {
      return false;
    }

    @Override
    public int epochsClosed() {
      return epochsClosed;
    }

    @Override
    public void writeState(OutputStream out) throws IOException {
      DataOutputStream d = new DataOutputStream(out);
      d.writeInt(STATE_VERSION);
      d.writeInt(maxRatings);
      d.writeInt(epochsClosed);
      d.writeLong(users);
      d.writeLong(ratings);
      d.flush();
    }

    @Override
    public void readState(InputStream in) throws IOException {
      DataInputStream d = new DataInputStream(in);
      int version = d.readInt();
      if (version != STATE_VERSION) {
        throw StateStore.corrupt(dir, "ratings state version " + version + " (this build reads "
            + STATE_VERSION + ")", null);
      }
      int xi = d.readInt();
      if (xi != maxRatings) {
        throw new IOException("ratings database " + dir + " was written with max-ratings " + xi
            + ", configured " + maxRatings + ": changing it mid-stream would break the bound on"
            + " one user's contribution (use the stored value, or a new state directory)");
      }
      epochsClosed = d.readInt();
      users = d.readLong();
      ratings = d.readLong();
      RatingsStore.this.users = users;
      RatingsStore.this.ratings = ratings;
    }
  }

  @Override
  public String toString() {
    return "RatingsStore[" + dir + ", max-ratings " + maxRatings + ", " + users + " users, "
        + ratings + " ratings]";
  }
}
