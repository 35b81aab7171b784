package io.dplrf.deploy.serve.tree;

import io.dplrf.deploy.http.DamagedStateException;
import io.dplrf.deploy.http.Health;
import io.dplrf.sketch.files.DamagedFileException;
import io.dplrf.sketch.tree.ContinualSketch.StoredNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The integrity of the stored files releases read — the tree's closed-node files, or the BLT
 * stream's prefix files R_t ({@link FactorizationStream#storedRelease}, epochs 1..t) — checked
 * soon after start and whenever one is read: which files are damaged, for {@code /health}, the
 * metrics and the releases that need them. The paragraphs below say it for the tree; the BLT
 * stream's files are checked the same way ({@link TreeTarget#checkNodeFiles}), and its prefix
 * release reads a file too, so it is refused like a range.
 *
 * <p><b>At start</b> a background thread ({@value #THREAD}, lowest priority) reads every closed
 * node's file once ({@link io.dplrf.sketch.tree.ContinualSketch#verify}: exists, checksum, the
 * node's label; no decoding, so a damaged size field costs no memory), so that a damaged node that
 * no release reads yet — one outside the latest prefix's decomposition, which only range releases
 * read — is found within minutes of the start rather than by the first request that needs it. The
 * files of the latest prefix's decomposition are decoded by the restore itself (a damaged one
 * fails the start, naming the file); nodes closed by this run were written by it and are checked
 * when read. <b>When read</b> for a release, a node that fails to decode is recorded too.
 *
 * <p><b>A damaged file</b> makes the range releases that need it answer 500 with a message naming
 * the file and the problem ({@link #requireIntact}), marks the health degraded, and counts in
 * {@code dplrf_state_damaged_files}. The thread checks damaged files again every {@link
 * #RECHECK} and forgets those that are intact again (restored from a backup by the operator).
 *
 * <p>Thread-safety: all methods from any thread.
 */
final class NodeFileCheck implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeFileCheck.class);
  static final String THREAD = "dplrf-node-check";
  /** How often damaged files are checked again. */
  static final String RECHECK = "60 s";
  /** {@link #RECHECK} (tests shorten it). */
  volatile long recheckMillis = TimeUnit.SECONDS.toMillis(60);

  /** A damaged file: which node, what is wrong. */
  record Damage(StoredNode node, String problem) {}

  /** Checks one stored node's file. */
  @FunctionalInterface
  interface Verifier {
    void verify(StoredNode node) throws DamagedFileException;
  }

  /** What the files are, in messages: "closed-node file", "prefix file". */
  private final String fileKind;
  /** Which releases a damaged file stops, in the health reason. */
  private final String refused;
  private final Path stateDir;
  private final Map<Path, Damage> damaged = new ConcurrentHashMap<>();
  private volatile long verified;
  private volatile boolean closed;
  private Thread thread;

  /**
   * @param stateDir the state directory: files are named relative to it in public messages
   * @param fileKind what the files are, e.g. "closed-node file"
   * @param refused which releases a damaged file stops, e.g. "range releases that include it"
   */
  NodeFileCheck(Path stateDir, String fileKind, String refused) {
    this.stateDir = stateDir.toAbsolutePath();
    this.fileKind = fileKind;
    this.refused = refused;
  }

  /**
   * Starts the background check of {@code nodes} (at most once), then of damaged files every
   * {@link #RECHECK}.
   */
  synchronized void start(List<StoredNode> nodes, Verifier verifier) {
    if (thread != null || nodes.isEmpty()) {
      return;
    }
    thread = new Thread(() -> run(nodes, verifier), THREAD);
    thread.setDaemon(true);
    thread.setPriority(Thread.MIN_PRIORITY);
    thread.start();
  }

  private void run(List<StoredNode> nodes, Verifier verifier) {
    for (StoredNode n : nodes) {
      if (closed) {
        return;
      }
      check(n, verifier);
      verified++;
    }
    while (!closed) {
      try {
        Thread.sleep(recheckMillis);
      } catch (InterruptedException e) {
        return;
      }
      for (Damage d : List.copyOf(damaged.values())) {
        try {
          verifier.verify(d.node());
          damaged.remove(d.node().file());
        } catch (DamagedFileException e) {
          // still damaged
        } catch (RuntimeException e) {
          // the tree is being replaced or closed: try again later
        }
      }
    }
  }

  /** Checks one file now; a damaged one is recorded. */
  void check(StoredNode n, Verifier verifier) {
    try {
      verifier.verify(n);
    } catch (DamagedFileException e) {
      damaged(n, e);
    }
  }

  /** Records that {@code n}'s file is damaged, as {@code e} says. */
  void damaged(StoredNode n, DamagedFileException e) {
    Damage d = new Damage(n, e.problem());
    if (damaged.put(n.file(), d) == null) {
      LOG.error("{} {} (epochs {}..{}) is damaged: {}; {} answer 500 until it is restored from a"
          + " backup of the state directory", fileKind, n.file(), n.firstEpoch(), n.lastEpoch(),
          e.problem(), refused);
    }
  }

  /**
   * Refuses the release of [from, to] if one of its nodes is known damaged.
   *
   * @throws DamagedStateException naming the first damaged file of {@code nodes}
   */
  void requireIntact(int from, int to, List<StoredNode> nodes) {
    for (StoredNode n : nodes) {
      Damage d = damaged.get(n.file());
      if (d != null) {
        throw refusal(from, to, d, null);
      }
    }
  }

  /** The 500 of a range release that needs a damaged file. */
  DamagedStateException refusal(int from, int to, Damage d, Throwable cause) {
    return new DamagedStateException("the release of epochs [" + from + ", " + to + "] needs "
        + describe(d) + "; restore it from a backup of the state directory", cause);
  }

  /** Runs a release's reads; a node that fails to decode is recorded and named. */
  <T> T reading(int from, int to, List<StoredNode> nodes, Supplier<T> release) {
    try {
      return release.get();
    } catch (java.io.UncheckedIOException e) {
      if (e.getCause() instanceof DamagedFileException d) {
        for (StoredNode n : nodes) {
          if (n.file().equals(d.file())) {
            damaged(n, d);
            throw refusal(from, to, damaged.get(n.file()), e);
          }
        }
      }
      throw e;
    }
  }

  private String describe(Damage d) {
    StoredNode n = d.node();
    return "the " + fileKind + " " + name(n.file()) + " (epochs " + n.firstEpoch() + ".."
        + n.lastEpoch() + "), which is damaged (" + d.problem().replace(n.file().toString(),
        name(n.file())) + ")";
  }

  /** A file named relative to the state directory (public messages name no host path). */
  String name(Path file) {
    Path f = file.toAbsolutePath();
    return f.startsWith(stateDir) ? stateDir.relativize(f).toString() : f.getFileName().toString();
  }

  /**
   * One reason per damaged file, earliest epochs first; {@code prefix} are the files a restart
   * needs (the latest prefix's decomposition).
   */
  Health health(List<StoredNode> prefix) {
    List<Damage> all = new ArrayList<>(damaged.values());
    if (all.isEmpty()) {
      return Health.OK;
    }
    all.sort(Comparator.comparingLong((Damage d) -> d.node().firstEpoch())
        .thenComparingInt(d -> d.node().level()).thenComparingLong(d -> d.node().lastEpoch()));
    List<Health.Reason> reasons = new ArrayList<>();
    for (Damage d : all) {
      boolean needed = prefix.stream().anyMatch(p -> p.file().equals(d.node().file()));
      reasons.add(new Health.Reason("state-file-damaged", describe(d)
          + ": " + refused + " answer 500"
          + (needed ? "; the latest release's state needs it, so a restart would be refused" : "")
          + "; restore it from a backup of the state directory (checked again every " + RECHECK
          + ")"));
    }
    return new Health(reasons);
  }

  /** Damaged files known now. */
  int damagedFiles() {
    return damaged.size();
  }

  /** Files the start-up check has read so far. */
  long verifiedFiles() {
    return verified;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (thread != null) {
      thread.interrupt();
    }
  }
}
