package io.dplrf.deploy.serve.tree;

import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.ingest.IngestTarget;
import io.dplrf.ingest.StateStore;
import io.dplrf.release.PostProcessing;
import io.dplrf.sketch.lra.ReleasedSketches;
import io.dplrf.sketch.files.StateFiles;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.tree.ContinualSketch;
import io.dplrf.sketch.tree.TreeConfig;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The continual release of modes updates and rows as ingest's {@link IngestTarget}, over either
 * structure of setting {@code continual} ({@link ContinualStream}: the BLT factorization or the
 * binary tree). Updates come from the ingest thread only; epoch closes, snapshots and the lookup
 * of what a release reads (the release thread's prefixes, HTTP threads' ranges) are serialised on
 * one lock, so a release never reads a part being closed; the reading and the noise happen outside
 * the lock (closed parts never change). The release computations themselves, prefix and range, run
 * one at a time ({@link #computing}).
 *
 * <p>Public only so that {@code dplrf bench ingest} drives the very adapter the service uses.
 */
public final class TreeTarget implements IngestTarget {
  private final ContinualStream.Kind kind;
  private final int rank;
  private final SecretKey key;
  private final Object lock = new Object();
  /**
   * One release computation at a time, prefix (the release thread) or range (an HTTP thread): each
   * holds a sum of noisy sketches and one node's noisy copy (≈ 1.2 GB at m = n = 10⁵ with the
   * default sizes), so that concurrent range requests cannot exhaust the heap that ingest and the
   * prefix releases share. Fair: whoever waits longest goes next.
   */
  final Semaphore computing = new Semaphore(1, true);
  /**
   * Range requests waiting for {@link #computing} or holding it, at most {@link #RANGE_SLOTS}:
   * others are refused at once (503), so that most of the public port's threads stay free for the
   * cached endpoints.
   */
  static final int RANGE_SLOTS = 2;
  final Semaphore rangeSlots = new Semaphore(RANGE_SLOTS);
  /** How long a range request waits for another release to finish before it is refused. */
  volatile Duration rangeWait = Duration.ofSeconds(30);
  /** How many range releases are kept: ≈ 8·(m + n)·k bytes each, 16 MB at the default sizes. */
  static final int RECENT_RANGES = 4;
  /** (from, to) → its release, least recently used first. */
  private final Map<List<Integer>, ServedRelease> recentRanges =
      new LinkedHashMap<>(8, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<List<Integer>, ServedRelease> eldest) {
          return size() > RECENT_RANGES;
        }
      };
  private volatile ContinualStream tree;
  /** Epochs whose snapshot is durable: the only ones a release may read (0 before the first). */
  private volatile int releasable;
  /**
   * Which stored files releases read are damaged (the tree's closed-node files, the BLT stream's
   * prefix files; checked at start and when read).
   */
  final NodeFileCheck files;
  /** What every release of this tree says about its guarantee ({@link #describeReleases}). */
  private volatile Map<String, Object> releaseMetadata = Map.of();
  /** The most prefix nodes kept in memory ({@link #keepInMemoryAtMost}), for trees read later too. */
  private int nodesInMemory = Integer.MAX_VALUE;

  private TreeTarget(ContinualStream.Kind kind, int rank, SecretKey key, ContinualStream tree) {
    this.kind = kind;
    this.rank = rank;
    this.key = key;
    this.tree = tree;
    Path stateDir = kind.dir().toAbsolutePath().getParent();
    boolean blt = kind.name().equals("factorization");
    this.files = new NodeFileCheck(stateDir != null ? stateDir : kind.dir(),
        blt ? "prefix file" : "closed-node file",
        blt ? "the releases that end at its epoch or start right after it (the prefix release of"
            + " its epoch among them)" : "range releases that include it");
  }

  /** The binary tree of {@code config} ({@code continual = tree}), its node files in {@code dir}. */
  public static TreeTarget tree(TreeConfig config, SecretKey key, Path dir, boolean snapshotExists)
      throws IOException {
    return open(TreeStream.kind(config, dir), config.sizes(), key, snapshotExists);
  }

  /**
   * The BLT factorization of {@code config} ({@code continual = factorization}), its state files
   * in {@code dir}.
   */
  public static TreeTarget factorization(io.dplrf.sketch.continual.BltConfig config, SecretKey key,
      Path dir, boolean snapshotExists) throws IOException {
    return open(FactorizationStream.kind(config, dir), config.sizes(), key, snapshotExists);
  }

  /**
   * An empty holder that {@link #readState} fills from the snapshot, or, when there is no snapshot
   * and the stream's directory holds no file, a fresh stream: a new run with a new instance label.
   *
   * <p><b>No silent second run.</b> Files of the stream (the tree's closed-node files, the BLT
   * state files) without a snapshot mean an earlier run got at least as far as closing an epoch,
   * and its snapshot is gone (removed by hand, lost with a disk, a partial restore). Starting
   * afresh would re-read the topic from the beginning with new noise: every update the earlier run
   * released would be used by a second, independent mechanism and charged to the privacy budget a
   * second time (the two runs compose). So that is refused; the operator decides a new run by
   * giving an empty state directory. A crash during the first close does not end here: a new run
   * writes its snapshot of epoch 0 before it consumes anything ({@code IngestLoop.start}), so
   * every file of the stream has a snapshot beside it from the start, and the restart restores
   * that snapshot (docs/privacy/recovery.md). Files without a snapshot are therefore a snapshot
   * lost after the fact, or a state directory of a build that wrote no snapshot of epoch 0, which
   * is refused too, the safe side. Temp files of interrupted writes do not count.
   *
   * @throws IOException if there is no snapshot but the stream's directory holds files other
   *     than temp files
   */
  private static TreeTarget open(ContinualStream.Kind kind, SketchSizes sizes, SecretKey key,
      boolean snapshotExists) throws IOException {
    Path nodeStore = kind.dir();
    if (snapshotExists) {
      return new TreeTarget(kind, sizes.k(), key, null);
    }
    if (Files.isDirectory(nodeStore)) {
      long files;
      try (Stream<Path> list = Files.list(nodeStore)) {
        files = list.filter(f -> !f.getFileName().toString().endsWith(".tmp")).count();
      }
      if (files > 0) {
        throw new IOException(nodeStore + " holds " + files + " state file(s) of an earlier"
            + " run but there is no snapshot (" + StateStore.FILE_NAME + ") beside it: starting"
            + " here would start a new run that re-reads the topic from the beginning with new"
            + " noise, charging every update the earlier run released to the privacy budget a"
            + " second time. Restore that run's snapshot and key (docs/operations.md §4), or, to"
            + " start a new run deliberately, use a new, empty state-dir (and a new topic if the new"
            + " budget should cover new data only)");
      }
    }
    StateFiles.createDirectories(nodeStore);
    byte[] id = new byte[8];
    new SecureRandom().nextBytes(id);
    String instance = "stream/" + HexFormat.of().formatHex(id);
    return new TreeTarget(kind, sizes.k(), key, kind.create().create(key, instance));
  }

  /** The sink of mode updates' decoder: A[i][j] += Δ, already validated and bounded. */
  public void update(int i, int j, double delta) {
    tree.update(i, j, delta);
  }

  /**
   * The sink of rows mode's decoder: adds x xᵀ to the d×d matrix AᵀA, for the row with non-zeros
   * {@code x[0..n)} at distinct columns {@code index[0..n)}, validated and clipped; n² updates.
   */
  public void addRow(int[] index, double[] x, int n) {
    for (int a = 0; a < n; a++) {
      double xa = x[a];
      for (int b = 0; b < n; b++) {
        tree.update(index[a], index[b], xa * x[b]);
      }
    }
  }

  /** Applies the buffered updates now, on the ingest thread ({@code bench ingest}). */
  public void applyBufferedUpdates() {
    tree.applyBufferedUpdates();
  }

  @Override
  public void closeEpoch() {
    synchronized (lock) {
      tree.closeEpoch();
    }
  }

  /**
   * Pipelined close where the structure allows it: the epoch ends now, its noisy part is made and
   * written by {@code finish} on the loop's closer thread.
   */
  @Override
  public ClosingEpoch beginCloseEpoch() {
    ContinualStream t = tree;
    ContinualStream.Closing p;
    synchronized (lock) {
      p = t.beginClose();
    }
    if (p == null) {
      return null;
    }
    return new ClosingEpoch() {
      @Override
      public int epoch() {
        return p.epoch();
      }

      @Override
      public void finish() {
        p.finish();
      }

      @Override
      public void writeState(OutputStream out) throws IOException {
        synchronized (lock) {
          t.writeClosedState(out);
        }
      }
    };
  }

  @Override
  public boolean exhausted() {
    ContinualStream t = tree;
    return t != null && t.exhausted();
  }

  /** The instance label of the stream, whose progress the broker records (ReleaseWitness). */
  @Override
  public String streamLabel() {
    ContinualStream t = tree;
    return t == null ? null : t.instance();
  }

  /** The structure's released-epoch guard, raised before the epoch's release (recovery.md §5). */
  @Override
  public void beforeRelease(int epoch) throws IOException {
    try {
      tree.markReleased(epoch);
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause(); // retried by the loop while the state directory refuses it
    }
  }

  @Override
  public int epochsClosed() {
    ContinualStream t = tree;
    return t == null ? 0 : t.epochsClosed();
  }

  @Override
  public void writeState(OutputStream out) throws IOException {
    synchronized (lock) {
      tree.writeTo(out);
    }
  }

  /**
   * Keeps at most {@code nodes} prefix nodes of the tree in memory, now and in a tree {@link
   * #readState} reads ({@link HeapAdvice#nodesInMemory}).
   */
  public void keepInMemoryAtMost(int nodes) {
    synchronized (lock) {
      nodesInMemory = nodes;
      if (tree != null) {
        tree.keepInMemoryAtMost(nodes);
      }
    }
  }

  /**
   * Restores the stream; refuses a snapshot of the other {@code continual} kind or made under other
   * settings (either would change the privacy accounting).
   */
  @Override
  public void readState(InputStream in) throws IOException {
    BufferedInputStream head = new BufferedInputStream(in);
    byte[] magic = kind.magic();
    head.mark(magic.length);
    byte[] found = head.readNBytes(magic.length);
    head.reset();
    if (!java.util.Arrays.equals(found, magic)) {
      throw new IOException("the state directory holds a stream that is not released by continual"
          + " = " + kind.name() + ", which this run sets: a stream is released one way for its"
          + " whole life (its noise and privacy accounting depend on it); set continual as the"
          + " stream was started, or use a new state directory");
    }
    synchronized (lock) {
      tree = kind.read().read(head, key, nodesInMemory);
    }
  }

  /**
   * The release of [1, epoch], factorized to rank k. The nodes are looked up under the lock; their
   * noise (most of the time) is drawn outside it, so the next epoch close does not wait for this
   * release. Waits while a range release is being computed ({@link #computing}).
   */
  public io.dplrf.release.ReportedFactorization prefix(int epoch, int k) {
    Supplier<ReleasedSketches> release;
    List<ContinualSketch.StoredNode> stored;
    synchronized (lock) {
      release = tree.range(1, epoch);
      // The BLT prefix is read from its file; the tree's is decoded at restore or kept in memory.
      stored = tree instanceof FactorizationStream fs ? fs.storedFiles(1, epoch) : List.of();
    }
    files.requireIntact(1, epoch, stored);
    computing.acquireUninterruptibly();
    try {
      return PostProcessing.factorize(files.reading(1, epoch, stored, release), k);
    } finally {
      computing.release();
    }
  }

  /**
   * A release of epochs [from, to], computed on demand for GET /v1/release?from=&to=, or the same
   * release computed earlier: closed nodes never change and their noise is drawn from their keyed
   * labels, so a range's release is the same every time (a cached one keeps its time of
   * computation). The last {@link #RECENT_RANGES} are kept.
   *
   * @throws IllegalStateException if epoch {@code to} has not closed yet, if {@link #RANGE_SLOTS}
   *     range requests are under way, or if another release held {@link #computing} for {@link
   *     #rangeWait} (the client should retry)
   */
  ServedRelease rangeRelease(int from, int to) {
    List<Integer> range = List.of(from, to);
    synchronized (recentRanges) {
      ServedRelease done = recentRanges.get(range);
      if (done != null) {
        return done;
      }
    }
    Supplier<ReleasedSketches> sketches;
    List<ContinualSketch.StoredNode> nodes;
    synchronized (lock) {
      ContinualStream t = tree;
      // Only epochs whose snapshot is durable: a close that is not (yet) durable may be redone
      // on replayed data after a crash, with the same noise (docs/privacy/recovery.md).
      if (t == null || to > Math.min(t.epochsReleasable(), releasable)) {
        throw new IllegalStateException("epochs up to " + to + " have not closed yet");
      }
      sketches = t.range(from, to);
      nodes = t instanceof TreeStream ts ? ts.sketch().storedNodes(from, to)
          : t instanceof FactorizationStream fs ? fs.storedFiles(from, to) : List.of();
    }
    files.requireIntact(from, to, nodes);
    if (!rangeSlots.tryAcquire()) {
      throw new IllegalStateException(RANGE_SLOTS + " range releases are already being computed"
          + " or waiting; retry in a few seconds");
    }
    ServedRelease r;
    try {
      if (!computing.tryAcquire(rangeWait.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("another release has been computed for "
            + rangeWait.toSeconds() + " s (one at a time: each takes memory and CPU of the order"
            + " of the sketches); retry in a few seconds");
      }
      try {
        io.dplrf.release.ReportedFactorization f = PostProcessing.factorize(
            files.reading(from, to, nodes, sketches), rank);
        r = new ServedRelease(from, to, f.factorization(), f.report(), Instant.now(), releaseMetadata);
      } finally {
        computing.release();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for another release", e);
    } finally {
      rangeSlots.release();
    }
    synchronized (recentRanges) {
      recentRanges.put(range, r);
    }
    return r;
  }

  /** The structure of setting {@code continual}, once created or restored. */
  ContinualStream stream() {
    return tree;
  }

  /**
   * The snapshot holding epoch {@code epoch} is durable (the loop's listener, or the restore):
   * ranges up to it may be released.
   */
  void releasable(int epoch) {
    releasable = Math.max(releasable, epoch);
  }

  /**
   * Starts the background check of the closed-node files the restore did not read (every closed
   * node outside the latest prefix's decomposition; {@link NodeFileCheck}), or, for the BLT
   * stream, of every R_t but the restored epoch's.
   */
  void checkNodeFiles() {
    if (tree instanceof FactorizationStream fs) {
      // R_1..R_{e−1}: the restore checked that each exists and read R_e whole. Their lengths are
      // checked now (cheap: a truncated file or a damaged checksum file degrades the health from
      // the start), every byte in the background.
      List<ContinualSketch.StoredNode> earlier = new java.util.ArrayList<>();
      for (int t = 1; t < fs.epochsClosed(); t++) {
        earlier.add(fs.storedRelease(t));
      }
      for (ContinualSketch.StoredNode n : earlier) {
        files.check(n, x -> fs.verify(x, false));
      }
      files.start(earlier, x -> fs.verify(x, true));
      return;
    }
    if (!(tree instanceof TreeStream ts)) {
      return;
    }
    ContinualSketch t = ts.sketch();
    List<ContinualSketch.StoredNode> all = new java.util.ArrayList<>(t.storedNodes());
    if (t.epochsClosed() > 0) {
      all.removeAll(t.storedNodes(1, t.epochsClosed())); // decoded by the restore
    }
    files.start(all, t::verify);
  }

  /** Damaged stored files, for {@code /health}. */
  io.dplrf.deploy.http.Health health() {
    if (files.damagedFiles() == 0) {
      return io.dplrf.deploy.http.Health.OK;
    }
    if (tree instanceof FactorizationStream fs) { // a restart reads R_e (and the buffers) whole
      int closed = fs.epochsClosed();
      return files.health(closed == 0 ? List.of() : List.of(fs.storedRelease(closed)));
    }
    if (!(tree instanceof TreeStream ts)) {
      return io.dplrf.deploy.http.Health.OK;
    }
    ContinualSketch t = ts.sketch();
    int closed = t.epochsClosed();
    return files.health(closed == 0 ? List.of() : t.storedNodes(1, closed));
  }

  /** Damaged closed-node files known now; files the start-up check has read. */
  int damagedFiles() {
    return files.damagedFiles();
  }

  long verifiedFiles() {
    return files.verifiedFiles();
  }

  /** Stops the background check. */
  void close() {
    files.close();
  }

  /** Sets the metadata (mechanism, relation, budget) every release of this tree carries. */
  void describeReleases(Map<String, Object> metadata) {
    releaseMetadata = Map.copyOf(metadata);
  }

  /** The metadata every release of this tree carries. */
  Map<String, Object> releaseMetadata() {
    return releaseMetadata;
  }

  /** Bytes the stream holds in memory. */
  public long sizeInBytes() {
    ContinualStream t = tree;
    return t == null ? 0 : t.sizeInBytes();
  }
}
