package io.dplrf.sketch.tree;

import io.dplrf.sketch.files.DamagedFileException;
import io.dplrf.sketch.files.ReleasedMark;
import io.dplrf.sketch.lra.NoiseDerivation;
import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.lra.ReleasedSketches;
import io.dplrf.sketch.lra.SketchCodec;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.tree.Dyadic.NodeId;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The binary tree mechanism for continual release (docs/design.md §5) over epochs
 * 1..T with noisy linear sketches as nodes.
 *
 * <p><b>Updates.</b> {@link #update} writes ONE sketch: a noiseless accumulator of the current
 * epoch (same mechanism, plan and shared matrices as the nodes), O(t + v), independent of the
 * depth L. {@link #closeEpoch} makes the nodes whose interval ends at that epoch from it (per
 * epoch, not per update: for Priv2 about two sketch-size additions on average, for Priv1 one per
 * open node) and empties it.
 *
 * <p><b>Noise.</b> Each node has its own label {@code instance/node/ℓ/k}; its noise is a pure
 * function of (key, label) and cannot be redrawn. Releases read closed nodes only, never a node
 * still being written. The node plan is calibrated over the L nodes an update lands
 * in by exact Gaussian-DP composition
 * (docs/privacy/continual-release.md): the whole stream, with every prefix and range released,
 * meets the configured (ε, δ). {@code instance} must be unique per stream under a key: two
 * streams with one instance label would share node noise.
 *
 * <p><b>Memory.</b> Live objects: the accumulator, ≤ L open nodes (Priv1 only) and the ≤ L closed
 * nodes of the prefix decomposition of [1, epochsClosed] (every future prefix release needs only
 * these or nodes not yet closed; fewer with node files and {@link #keepInMemoryAtMost}); while a
 * close runs, one node it makes (each lower node of its chain is written, then becomes its
 * parent); with the pipelined close, one more accumulator (the next epoch's, while the
 * set-aside one becomes the leaf). Every closed node is also archived as {@code SketchCodec} bytes
 * for range releases and releases of earlier prefixes: in memory by default (O(T) sketches, part
 * of the snapshot), or as files in {@code nodeStore} (O(L) sketches in memory, or O(1)).
 *
 * <p><b>Pipelined close</b> ({@link #beginClose}, {@link #finishClose}): where nodes are made from
 * their children and archived as files, an epoch can end at once — its accumulator is set aside
 * and an empty spare takes its place, so updates of the next epoch continue — while another thread
 * makes and writes its nodes. Same nodes, same noise labels, same releases as {@link
 * #closeEpoch}; one more accumulator in memory.
 *
 * <p>Thread-safety: one thread owns the tree (the ingest loop: {@link #update}, {@link
 * #closeEpoch}, {@link #beginClose}, snapshots); {@link #finishClose} of a begun close may run on
 * one other thread while the owner goes on updating. A caller serialises {@link #closeEpoch} with
 * the node lookup of {@link #rangeRelease} (TreeTarget's lock); {@link #finishClose} installs its
 * nodes under the tree's own monitor, which that lookup also takes. The supplier the lookup returns
 * may run on any thread (closed nodes never change).
 */
public final class ContinualSketch {
  static final String EXHAUSTED = "all T epochs are closed; the privacy budget is spent";

  final TreeConfig config;
  final SecretKey key;
  final String instance;
  final NodeFactory factory;
  /** The current epoch's updates; the spare once a pipelined close begins; null after epoch T. */
  NoisyLinearSketch accumulator;
  /** Pipelined close: the empty accumulator made by the last finished close, or null (tests). */
  NoisyLinearSketch spare;
  /** Pipelined close: the close begun and not finished, or null. */
  private volatile PendingClose pending;
  final NodeArchive archive;
  /** Priv1 only: open[ℓ], the level-ℓ node containing the current epoch, or null. */
  final NoisyLinearSketch[] open;
  /** Closed nodes of the prefix decomposition of [1, epochsClosed] kept in memory. */
  final PrefixNodes retained = new PrefixNodes();
  /** Epochs whose nodes are made and archived (releasable once the caller has made them durable). */
  volatile int epochsClosed;
  /**
   * Epochs ended: closed, plus a pipelined close begun. Written by the owner's thread only (at a
   * close or its start), so that {@link #exhausted} never sees a close half-installed by the
   * closer thread (epochsClosed advanced, pending not yet cleared).
   */
  int epochsEnded;
  /**
   * The released-epoch guard of a node directory (recovery.md §5): the last epoch any release has
   * covered, durable in {@link NodeArchive#RELEASED_FILE}; −1 until the guard is written, before
   * the first node file. Unused where nodes are kept in memory (they live in the snapshot).
   */
  volatile int epochsReleased = -1;

  ContinualSketch(TreeConfig config, SecretKey key, String instance, NodeFactory factory,
      NoisyLinearSketch accumulator, NodeArchive archive) {
    this.config = config;
    this.key = key;
    this.instance = instance;
    this.factory = factory;
    this.accumulator = accumulator;
    this.archive = archive;
    this.open = new NoisyLinearSketch[config.depth()];
  }

  /**
   * The node-level plan a new stream of {@code config} under {@code key} and {@code instance}
   * calibrates ({@link NodeFactory#create}, the same code), without making the stream: for
   * planning before any data ({@code dplrf plan}). Priv2 under one-entry or entrywise-ℓ1
   * neighbours draws its matrices for their factors (exactly 1 when sparse); pass a config with
   * {@code cacheUpdateColumns} false to keep that small.
   */
  public static Object nodePlan(TreeConfig config, SecretKey key, String instance) {
    return NodeFactory.create(config, key, instance, NoiseDerivation.CURRENT).plan;
  }

  /**
   * How many nodes the release of the prefix [1, e] sums (its dyadic decomposition: one per set
   * bit of e), each with its own independent noise.
   */
  public static int prefixNodes(int e) {
    return Dyadic.decomposition(1, e).size();
  }

  /** A new stream whose closed nodes are archived in memory. */
  public static ContinualSketch create(TreeConfig config, SecretKey key, String instance) {
    return create(config, key, instance, NodeArchive.memory(), NoiseDerivation.CURRENT);
  }

  /**
   * A new stream whose closed nodes are written as files to {@code nodeStore} (created if
   * needed). Refuses a directory that already holds node files, which could belong to a stream
   * whose nodes carry the same noise; deletes left-over temp files of interrupted node writes.
   */
  public static ContinualSketch create(TreeConfig config, SecretKey key, String instance,
      Path nodeStore) throws IOException {
    NodeArchive.Directory.removeTemporaries(nodeStore);
    if (NodeArchive.Directory.hasNodeFiles(nodeStore)) {
      throw new IOException("node store " + nodeStore + " already holds node files; a new stream "
          + "needs an empty directory");
    }
    return create(config, key, instance, NodeArchive.directory(nodeStore), NoiseDerivation.CURRENT);
  }

  /** {@code derivation}: {@link NoisyLinearSketch#deriveNoise} for its sketches. */
  static ContinualSketch create(TreeConfig config, SecretKey key, String instance,
      NodeArchive archive, NoiseDerivation derivation) {
    if (instance == null || instance.isEmpty()) {
      throw new IllegalArgumentException("instance must be a non-empty label. Provided value: "
          + instance);
    }
    NodeFactory f = NodeFactory.create(config, key, instance, derivation);
    ContinualSketch tree = new ContinualSketch(config, key, instance, f, f.accumulator(), archive);
    if (!f.nodesStartEmpty()) {
      f.openStartingAt(tree.open, 1, config.epochs());
    }
    return tree;
  }

  /**
   * A[i][j] += Δ in the current epoch.
   *
   * @throws IllegalArgumentException on an index out of range or a non-finite Δ (nothing changes)
   * @throws IllegalStateException once all T epochs are closed
   */
  public void update(int i, int j, double delta) {
    if (exhausted()) {
      throw new IllegalStateException(EXHAUSTED);
    }
    accumulator.update(i, j, delta);
  }

  /**
   * Applies the current epoch's buffered updates to its accumulator now ({@link
   * NoisyLinearSketch#applyBufferedUpdates}); owner's thread.
   */
  public void applyBufferedUpdates() {
    if (accumulator != null) {
      accumulator.applyBufferedUpdates();
    }
  }

  /**
   * Ends the current epoch: the closed nodes ending here are made and archived, then kept in
   * memory if a future prefix release needs them.
   *
   * <p>Two ways, one result (a node holds the data of its epochs): where a node's state is data
   * only ({@link NoisyLinearSketch#startsEmpty}: Priv2 and the robust sketches, whose noise is
   * added at release), the leaf [e, e] is the epoch's accumulator and each node ending at e is the
   * sum of its two children, made bottom-up: the left child is a retained node of the prefix decomposition of [1, e − 1]
   * (binary-counter argument), the right one was made just before. No node is open between
   * epochs, so the state after a close is the retained nodes — already archived — and the empty
   * accumulator, and a snapshot at an epoch close names the node files instead of copying them
   * ({@link TreeCodec}). A Priv1 node starts with its σmin padding, so two nodes cannot be added;
   * its nodes stay open, created when their interval starts, and absorb each epoch.
   *
   * @throws IllegalStateException once all T epochs are closed
   * @throws UncheckedIOException if a closed node cannot be written to the node store; nothing
   *     has changed then, and closeEpoch may be retried
   */
  public void closeEpoch() {
    if (exhausted()) {
      throw new IllegalStateException(EXHAUSTED);
    }
    requireNoPendingClose();
    int e = epochsClosed + 1;
    // Archive every closing node before changing any state: if a write fails, closeEpoch can be
    // retried and computes the same nodes again.
    Map<NodeId, NoisyLinearSketch> justClosed;
    if (factory.nodesStartEmpty()) {
      NodeId leaf = new NodeId(0, e - 1);
      NoisyLinearSketch leafNode = factory.node(leaf);
      leafNode.absorb(accumulator);
      justClosed = mergeUpAndArchive(new MergeUp(leaf, leafNode));
      accumulator.reset();
    } else {
      justClosed = foldIntoOpenNodes(e); // Priv1: empties the accumulator
      for (Map.Entry<NodeId, NoisyLinearSketch> c : justClosed.entrySet()) {
        store(c.getKey(), c.getValue());
      }
      for (NodeId id : justClosed.keySet()) {
        open[id.level()] = null;
      }
    }
    install(e, justClosed);
    epochsEnded = e;
    if (e < config.epochs() && !factory.nodesStartEmpty()) {
      factory.openStartingAt(open, e + 1, config.epochs());
    }
  }

  /** True if epochs can be closed in two steps ({@link #beginClose}): Priv2 or robust, node files. */
  public boolean closesInBackground() {
    return factory.nodesStartEmpty() && !archive.inMemory();
  }

  /**
   * Ends the current epoch now: its accumulator is set aside for {@link #finishClose} and an empty
   * one takes its place, so that {@link #update} goes on with the next epoch. The epoch's nodes
   * are not made yet: {@link #epochsClosed} stays, {@link #exhausted} counts the epoch. Call
   * {@link #finishClose} (on any one thread) before the next close or snapshot.
   *
   * @throws IllegalStateException once all T epochs have ended, while a close is pending, or if
   *     this tree cannot close in the background ({@link #closesInBackground})
   */
  public PendingClose beginClose() {
    if (exhausted()) {
      throw new IllegalStateException(EXHAUSTED);
    }
    requireNoPendingClose();
    if (!closesInBackground()) {
      throw new IllegalStateException("only trees whose nodes are made from their children and "
          + "kept as files close in the background");
    }
    PendingClose p = new PendingClose(epochsClosed + 1, accumulator);
    accumulator = p.epoch() == config.epochs() ? null // nothing is applied after epoch T
        : spare != null ? spare : factory.accumulator();
    spare = null;
    pending = p;
    epochsEnded = p.epoch();
    return p;
  }

  /**
   * Makes and archives the nodes of a begun close (the heavy part: applying the epoch's buffered
   * updates, the parent sums, the node-file writes), then installs them: {@link #epochsClosed}
   * advances. The set-aside accumulator becomes the leaf itself ({@link
   * NoisyLinearSketch#intoNode}: no copy), and a new empty accumulator is made as the spare for the
   * next close (none if the epoch after that would be beyond T). May run on another thread than
   * the owner's, concurrently with {@link #update}: it reads only the closed nodes and the
   * set-aside accumulator, which the owner no longer touches.
   *
   * <p>A failed node write (no space left, an I/O error) leaves the close pending and resumable:
   * call {@code finishClose} again, and it goes on at the write that failed (the nodes written
   * before it are written, and nothing is added twice).
   *
   * @throws UncheckedIOException if a node cannot be written, or a closed node needed as a left
   *     sibling cannot be read back; the close stays pending then
   */
  public void finishClose(PendingClose p) {
    if (p != pending || p.finished()) {
      throw new IllegalStateException("not the pending close: " + p);
    }
    if (p.progress() == null) {
      NodeId leaf = new NodeId(0, p.epoch() - 1);
      p.progress(new MergeUp(leaf, p.epochData().intoNode(factory.label(leaf))));
    }
    install(p.epoch(), mergeUpAndArchive(p.progress()));
    p.finish();
    // Off the owner's thread, once unkept nodes are dropped; it will hold epoch e + 2, if any.
    spare = p.epoch() + 2 <= config.epochs() ? factory.accumulator() : null;
    pending = null;
  }

  private void requireNoPendingClose() {
    if (pending != null) {
      throw new IllegalStateException("epoch " + pending.epoch() + " is still closing");
    }
  }

  /** Epoch e is closed: the retained nodes become those of the decomposition of [1, e]. */
  private synchronized void install(int e, Map<NodeId, NoisyLinearSketch> justClosed) {
    retained.install(e, justClosed);
    epochsClosed = e;
  }

  /**
   * Keeps at most {@code nodes} closed nodes of the prefix decomposition in memory (the most
   * recent ones) and reads the others from the node store when a release or a close needs them:
   * the same releases, for one sketch read per node not kept instead of its memory.
   *
   * @throws IllegalStateException if the closed nodes are not files ({@link #create(TreeConfig,
   *     SecretKey, String, Path)})
   */
  public synchronized void keepInMemoryAtMost(int nodes) {
    if (archive.inMemory()) {
      throw new IllegalStateException("closed nodes archived in memory are all in memory");
    }
    retained.keepAtMost(nodes);
    install(epochsClosed, Map.of());
  }

  /**
   * Makes and archives the nodes ending at the leaf's epoch e, bottom-up: each parent is the sum of
   * its retained left sibling and the node just made. Of these only the topmost belongs to the
   * prefix decomposition of [1, e] (a node ending at e whose parent also ends at e is covered by
   * that parent), so each lower node is written, then becomes its parent in place ({@link
   * NoisyLinearSketch#intoParent}: no new sketch, one addition): one new node in memory at a
   * time. A node made here is seen by no release before {@link #install}. A failed write leaves
   * {@code at} at the node it failed to write (the left siblings and the accumulator untouched),
   * so calling this again with {@code at} resumes there.
   *
   * @param at the leaf and its id, or where an earlier, failed call stopped; advanced as nodes are
   *     written
   * @return the topmost node, the only one to retain
   */
  private Map<NodeId, NoisyLinearSketch> mergeUpAndArchive(MergeUp at) {
    while ((at.id.index() & 1) == 1) { // a right child: its parent ends at e too
      NodeId leftId = new NodeId(at.id.level(), at.id.index() - 1);
      NoisyLinearSketch left = retained.get(leftId);
      if (left == null && !retained.limited()) {
        throw new IllegalStateException("node " + at.id + " closes but its left sibling is not kept");
      }
      left = left != null ? left : archived(leftId);
      NodeId parentId = new NodeId(at.id.level() + 1, at.id.index() >> 1);
      store(at.id, at.node); // written as itself before its arrays become the parent's
      at.node = at.node.intoParent(left, factory.label(parentId));
      at.id = parentId;
    }
    store(at.id, at.node);
    return Map.of(at.id, at.node);
  }

  /** Archives a closed node; in a node directory, the guard is written before the first one. */
  private void store(NodeId id, NoisyLinearSketch node) {
    if (epochsReleased < 0 && !archive.inMemory()) {
      writeReleasedMark(0);
    }
    archive.put(id, node);
  }

  /**
   * Before a release covering epoch e is computed: records e durably in the guard of a node
   * directory, so that no restore can close e again (recovery.md §5). The service raises it once
   * the epoch's snapshot is durable, before releasing; every release raises it too. Idempotent.
   *
   * @throws UncheckedIOException if the guard cannot be written
   */
  public void markReleased(int e) {
    if (e > epochsClosed) {
      throw new IllegalArgumentException("released epoch must be at most " + epochsClosed
          + " (epochs closed). Provided value: " + e);
    }
    if (e > epochsReleased && !archive.inMemory()) {
      writeReleasedMark(e);
    }
  }

  private synchronized void writeReleasedMark(int e) {
    if (e > epochsReleased) {
      archive.putReleasedMark(ReleasedMark.encode(instance, e));
      epochsReleased = e;
    }
  }

  /**
   * Priv1: the open nodes absorb the epoch, which is then emptied (so that a retry after a failed
   * archive write adds nothing twice); those ending at e close.
   */
  private Map<NodeId, NoisyLinearSketch> foldIntoOpenNodes(int e) {
    for (NoisyLinearSketch node : open) {
      if (node != null) {
        node.absorb(accumulator);
      }
    }
    accumulator.reset();
    Map<NodeId, NoisyLinearSketch> closing = new LinkedHashMap<>();
    for (int level = 0; level < open.length; level++) {
      NodeId id = new NodeId(level, (int) ((e - 1L) >> level));
      if (open[level] != null && id.end() == e) {
        closing.put(id, open[level]);
      }
    }
    return closing;
  }

  public int epochs() {
    return config.epochs();
  }

  public int epochsClosed() {
    return epochsClosed;
  }

  /** True once all T epochs have ended (closed, or a pipelined close begun for the last). */
  public boolean exhausted() {
    return epochsEnded() == config.epochs();
  }

  /** Epochs closed plus a pipelined close begun and not finished (owner's thread). */
  public int epochsEnded() {
    return epochsEnded;
  }

  /** L = ⌈log₂T⌉ + 1. */
  public int depth() {
    return config.depth();
  }

  /** The sum of the released closed nodes of the dyadic decomposition of [1, e]. */
  public ReleasedSketches releasePrefix(int e) {
    return releaseRange(1, e);
  }

  /**
   * The sum of the released closed nodes of the dyadic decomposition of [s, e]: the sketch of
   * the updates of epochs s..e plus the noise of ≤ 2⌈log₂(e−s+1)⌉ nodes. Post-processing of
   * released nodes; calling it any number of times costs no further privacy.
   *
   * @throws IllegalArgumentException unless 1 ≤ s ≤ e ≤ epochsClosed
   * @throws UncheckedIOException if an archived node cannot be read back
   */
  public ReleasedSketches releaseRange(int s, int e) {
    return rangeRelease(s, e).get();
  }

  /**
   * {@link #releaseRange} in two steps: the closed nodes of the decomposition are looked up now;
   * when the supplier is called, each is released in turn (a node not retained in memory read from
   * the node store first) and added into the sum before the next, so that a release holds the sum,
   * one node and its noisy copy at most ({@link ReleasedSketches#sumInTurn}), not every node of
   * the decomposition. Closed nodes and their files never change, so a caller that serialises
   * epoch closes with a lock need hold it for the lookup only, not for the reads and noise
   * (TreeTarget).
   *
   * @throws IllegalArgumentException unless 1 ≤ s ≤ e ≤ epochsClosed
   * @throws UncheckedIOException from the supplier, if an archived node cannot be read back
   */
  public Supplier<ReleasedSketches> rangeRelease(int s, int e) {
    if (s < 1 || s > e || e > epochsClosed) {
      throw new IllegalArgumentException("release range must satisfy 1 <= from <= to <= "
          + epochsClosed + " (epochs closed). Provided value: [" + s + ", " + e + "]");
    }
    markReleased(e);
    List<Supplier<ReleasedSketches>> parts = new ArrayList<>();
    synchronized (this) { // against finishClose's install on another thread
      for (NodeId id : Dyadic.decomposition(s, e)) { // each ends by e <= epochsClosed: closed
        NoisyLinearSketch kept = retained.get(id);
        parts.add(kept != null ? kept::release : () -> archived(id).release());
      }
    }
    return () -> ReleasedSketches.sumInTurn(parts);
  }

  /** One closed node's release (package-private: tests check the decomposition with it). */
  ReleasedSketches releaseNode(NodeId id) {
    return closedNode(id).release();
  }

  private NoisyLinearSketch closedNode(NodeId id) {
    if (id.end() > epochsClosed) {
      throw new IllegalArgumentException("node " + id + " is not closed");
    }
    NoisyLinearSketch node = retained.get(id);
    return node != null ? node : archived(id);
  }

  /**
   * A closed node read back from the node store (any thread: closed node files never change).
   *
   * @throws UncheckedIOException with a {@link DamagedFileException} naming the node's file if it
   *     is missing or cannot be decoded, else with the read error
   */
  private NoisyLinearSketch archived(NodeId id) {
    try {
      return readArchived(id);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }

  /** {@link #archived}, checked. */
  NoisyLinearSketch readArchived(NodeId id) throws IOException {
    try (InputStream in = archive.open(id)) {
      return readNode(id, in);
    } catch (DamagedFileException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw damaged(archive, id, e);
    }
  }

  /**
   * {@code e}, a failure to decode a stored node, as a {@link DamagedFileException} naming the
   * node's file (or as it is for nodes kept in memory, which have no file).
   */
  static IOException damaged(NodeArchive archive, NodeId id, Exception e) {
    Path f = archive.fileOf(id);
    if (f == null) {
      return e instanceof IOException io ? io : new IOException(e.getMessage(), e);
    }
    return new DamagedFileException(f, String.valueOf(e.getMessage()), e);
  }

  /**
   * A closed node as stored: the epochs it covers and its file.
   *
   * @param firstEpoch the first epoch of its dyadic interval (1-based)
   * @param lastEpoch the last one: the node closed with this epoch
   */
  public record StoredNode(int level, int index, long firstEpoch, long lastEpoch, Path file) {}

  /**
   * Every closed node's file — the dyadic intervals inside [1, epochsClosed], lowest level
   * first — for integrity checks ({@link #verify}); empty where closed nodes are kept in memory
   * (their bytes come from the snapshot, whose checksum covers them).
   */
  public List<StoredNode> storedNodes() {
    int closed = epochsClosed;
    List<StoredNode> out = new ArrayList<>();
    if (archive.inMemory()) {
      return out;
    }
    for (int level = 0; level < config.depth(); level++) {
      for (long idx = 0; ((idx + 1) << level) <= closed; idx++) {
        out.add(stored(new NodeId(level, (int) idx)));
      }
    }
    return out;
  }

  private StoredNode stored(NodeId id) {
    return new StoredNode(id.level(), id.index(), id.start(), id.end(), archive.fileOf(id));
  }

  /**
   * The stored nodes a release of [s, e] reads (its dyadic decomposition); empty where closed
   * nodes are kept in memory.
   */
  public List<StoredNode> storedNodes(int s, int e) {
    List<StoredNode> out = new ArrayList<>();
    if (!archive.inMemory()) {
      for (NodeId id : Dyadic.decomposition(s, e)) {
        out.add(stored(id));
      }
    }
    return out;
  }

  /**
   * Checks a closed node's file without decoding it ({@link SketchCodec#verify}): it exists, is
   * whole (checksum) and holds this node (its label). Any thread (closed node files never
   * change); reads the file once.
   *
   * @throws DamagedFileException naming the file and the problem
   */
  public void verify(StoredNode n) throws DamagedFileException {
    NodeId id = new NodeId(n.level(), n.index());
    Path f = archive.fileOf(id);
    if (f == null || !f.equals(n.file())) {
      throw new IllegalArgumentException("not a stored node of this tree: " + n);
    }
    try (InputStream in = archive.open(id)) {
      String label = SketchCodec.verify(in);
      if (!label.equals(factory.label(id))) {
        throw new DamagedFileException(f, "holds node " + label + ", expected "
            + factory.label(id), null);
      }
      if (in instanceof NodeArchive.Directory.Recorded r) {
        r.requireRecorded(); // the whole file, against the CRC32C its snapshot records
      }
    } catch (DamagedFileException e) {
      throw e;
    } catch (IOException e) {
      throw new DamagedFileException(f, String.valueOf(e.getMessage()), e);
    }
  }

  NoisyLinearSketch readNode(NodeId id, InputStream in) throws IOException {
    NoisyLinearSketch node = SketchCodec.read(in, key, factory.robust);
    if (!node.nodeLabel().equals(factory.label(id))) {
      throw new IOException("stored node " + id + " has label " + node.nodeLabel() + ", expected "
          + factory.label(id));
    }
    if (in instanceof NodeArchive.Directory.Recorded r) {
      r.requireRecorded(); // the whole file, against the CRC32C its snapshot records
    }
    return node;
  }

  /** The node-level {@code Priv1Plan} or {@code Priv2Plan}: every node's noise scales. */
  public Object plan() {
    return factory.plan;
  }

  public TreeConfig config() {
    return config;
  }

  /** The instance label of the stream (public, not secret). */
  public String instance() {
    return instance;
  }

  /**
   * Bytes held in memory: accumulator (with cached columns), the pipelined close's second
   * accumulator, live nodes and in-memory archive.
   */
  public long sizeInBytes() {
    NoisyLinearSketch idle = spare;
    PendingClose p = pending;
    NoisyLinearSketch second = idle != null ? idle : p != null ? p.epochData() : null;
    long b = (accumulator == null ? 0 : accumulator.sizeInBytes()) + archive.bytesInMemory()
        + (second == null ? 0 : second.sizeInBytes());
    for (NoisyLinearSketch n : open) {
      b += n == null ? 0 : n.sizeInBytes();
    }
    for (NoisyLinearSketch n : retained.values()) {
      b += n.sizeInBytes();
    }
    return b;
  }

  /**
   * Writes the full state ({@link TreeCodec}). Does not close {@code out}.
   *
   * @throws IllegalStateException while a pipelined close is pending
   */
  public void writeTo(OutputStream out) throws IOException {
    requireNoPendingClose();
    TreeCodec.write(this, out, true);
  }

  /**
   * Writes the state as it was when the last finished close began ({@link #beginClose}): its
   * nodes and an empty accumulator. The updates applied since belong to the next epoch, beyond
   * the offsets of the snapshot this goes into; they are not written. Call it after {@link
   * #finishClose} and before the next {@link #beginClose} (the pipelined close's snapshot).
   *
   * @throws IllegalStateException while a close is pending
   */
  public void writeClosedState(OutputStream out) throws IOException {
    requireNoPendingClose();
    TreeCodec.write(this, out, false);
  }

  /** Reads a snapshot of a tree whose closed nodes are archived in memory. */
  public static ContinualSketch readFrom(InputStream in, SecretKey key) throws IOException {
    return TreeCodec.read(in, key, null, Integer.MAX_VALUE);
  }

  /**
   * Reads a snapshot of a tree whose closed nodes are files in {@code nodeStore}; deletes
   * left-over temp files of interrupted node writes there. A closed node file that is missing
   * or damaged fails with a {@link DamagedFileException} naming it.
   */
  public static ContinualSketch readFrom(InputStream in, SecretKey key, Path nodeStore)
      throws IOException {
    return readFrom(in, key, nodeStore, Integer.MAX_VALUE);
  }

  /** As above, keeping at most that many closed nodes in memory ({@link #keepInMemoryAtMost}). */
  public static ContinualSketch readFrom(InputStream in, SecretKey key, Path nodeStore,
      int nodesInMemory) throws IOException {
    return TreeCodec.read(in, key, nodeStore, nodesInMemory);
  }
}
