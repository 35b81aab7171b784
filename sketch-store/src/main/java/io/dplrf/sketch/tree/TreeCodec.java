package io.dplrf.sketch.tree;

import io.dplrf.sketch.files.DamagedFileException;
import io.dplrf.sketch.files.ReleasedMark;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.lra.NoiseDerivation;
import io.dplrf.sketch.lra.NoisyLinearSketch;

import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.lra.RobustPlan;
import io.dplrf.sketch.lra.SketchCodec;
import io.dplrf.sketch.noise.GaussianSampler;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.tree.Dyadic.NodeId;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * The one owner of the continual-release tree's binary format, which starts with a magic number and
 * a version. Node sketches are embedded as {@link SketchCodec} bytes (their own magic, version and
 * checksum), so their noise parameters round-trip exactly and nothing is ever recalibrated or
 * redrawn on restore.
 *
 * <pre>
 * Format version 6, big-endian (java.io.DataOutput):
 *
 *  field                 type        notes
 *  --------------------  ----------  ----------------------------------------------------------
 *  magic                 8 bytes     ASCII "DPLRFCT1"
 *  version               int32       6
 *  mechanism             int8        1 = priv1, 2 = priv2, 3 = priv2-sparse, 4 = robust-lra,
 *                                    5 = robust-pca
 *  relation              int8        the neighbouring relation the nodes are calibrated for
 *                                    (TreeConfig.relation): 1 = rank-one, 2 = frobenius,
 *                                    3 = one-entry, 4 = entrywise-l1
 *  cacheUpdateColumns    int8        0 / 1
 *  noiseChunk            int32       how the stream's sketches derive their noise: entries per
 *                                    keyed chunk, 0 = one stream per part (NodeFactory)
 *  sampler               int8        and the exact sampler reading each stream: 0 = CKS
 *                                    Algorithm 3, 1 = blocked alias table (GaussianSampler)
 *  keyFingerprint        UTF         SecretKey.fingerprint(); reading with another key fails
 *  instance              UTF         the stream's instance label
 *  m, n, k, t, v         5 × int32   sizes
 *  epsilon, delta, clip  3 × float64 the stream's budget and contribution bound
 *  p                     float64     robust-lra and robust-pca only: the ℓp exponent
 *  epochs                int32       T
 *  epochsClosed          int32       0..T
 *  store                 int8        0 = closed nodes in this snapshot, 1 = files in a nodeStore
 *  accumulator           int32 len, len bytes    SketchCodec of the noiseless epoch accumulator;
 *                                    len 0: empty (no update since the last epoch close)
 *  openCount             int32       then per open node (Priv1 only; Priv2 keeps none):
 *    level, index        2 × int32
 *    sketch              int32 len, len bytes    SketchCodec
 *  closedCount           int32       store 0: every closed node; store 1: the retained prefix
 *    level, index        2 × int32   nodes; sorted by (level, index)
 *    sketch              store 0 only: int32 len, len bytes (SketchCodec); store 1: nothing,
 *                                    the node is read from its file
 *  fileCount             int32       store 1 only: then per closed node's file, sorted by
 *    level, index, crc   3 × int32   (level, index), the CRC32C of the file's bytes: binds each
 *                                    file to the close this snapshot holds
 *  crc                   int32       CRC32C of every byte before it
 * </pre>
 *
 * <p>So a snapshot taken at an epoch close of a Priv2 tree with a node store is a few hundred
 * bytes: the accumulator is empty, no node is open, and the retained nodes are named, not copied.
 *
 * <p>Version 5 (read, never written) is version 6 without fileCount: its node files are bound by
 * their labels only. Version 4 (read, never written) is version 5 without relation: each mechanism's default
 * ({@link TreeConfig#defaultRelation}: priv2 frobenius, priv2-sparse one-entry, as they were
 * calibrated). Version 3 (read, never written) is version 4 without sampler: its streams keep the CKS
 * sampler. Version 2 (read, never written) is version 3 without noiseChunk: its streams keep one
 * noise stream per part. Version 1 (read, never written) differs from version 2 in: no p (a robust
 * tree's p is its accumulator plan's); the accumulator always present; store 1 copies the retained
 * nodes' bytes; a Priv2 tree has open nodes, which are checked and dropped on restore (a version-2
 * tree makes each node from its closed children instead).
 */
final class TreeCodec {
  private static final byte[] MAGIC = "DPLRFCT1".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 6;
  private static final int MAX_NODES = 1 << 24;

  private TreeCodec() {}

  /**
   * @param withAccumulator false to write an empty accumulator whatever it holds (the pipelined
   *     close's snapshot, {@link ContinualSketch#writeClosedState})
   */
  static void write(ContinualSketch tree, OutputStream out, boolean withAccumulator)
      throws IOException {
    TreeConfig c = tree.config;
    CRC32C crc = new CRC32C();
    DataOutputStream d =
        new DataOutputStream(new CheckedOutputStream(new BufferedOutputStream(out, 1 << 16), crc));
    d.write(MAGIC);
    d.writeInt(VERSION);
    d.writeByte(switch (c.mechanism()) {
      case PRIV1 -> 1;
      case PRIV2 -> 2;
      case PRIV2_SPARSE -> 3;
      case ROBUST_LRA -> 4;
      case ROBUST_PCA -> 5;
      default -> throw new IllegalStateException(c.mechanism() + " does not stream");
    });
    d.writeByte(switch (c.relation()) {
      case RANK_ONE -> 1;
      case FROBENIUS -> 2;
      case ONE_ENTRY -> 3;
      case ENTRYWISE_L1 -> 4;
      default -> throw new IllegalStateException("no tree is calibrated for " + c.relation());
    });
    d.writeByte(c.cacheUpdateColumns() ? 1 : 0);
    d.writeInt(tree.factory.derivation.chunk());
    d.writeByte(tree.factory.derivation.sampler().code());
    d.writeUTF(tree.key.fingerprint());
    d.writeUTF(tree.instance);
    SketchSizes s = c.sizes();
    for (int x : new int[] {s.m(), s.n(), s.k(), s.t(), s.v()}) {
      d.writeInt(x);
    }
    d.writeDouble(c.privacy().epsilon());
    d.writeDouble(c.privacy().delta());
    d.writeDouble(c.clip());
    if (c.mechanism().robust()) {
      d.writeDouble(c.p());
    }
    d.writeInt(c.epochs());
    d.writeInt(tree.epochsClosed);
    d.writeByte(tree.archive.inMemory() ? 0 : 1);
    writeBytes(d, !withAccumulator || tree.accumulator == null // none after epoch T
        || tree.accumulator.updateCount() == 0
        ? new byte[0] : bytes(tree.accumulator));
    List<NodeId> openIds = new ArrayList<>();
    for (int level = 0; level < tree.open.length; level++) {
      if (tree.open[level] != null) {
        openIds.add(new NodeId(level, tree.epochsClosed >> level));
      }
    }
    d.writeInt(openIds.size());
    for (NodeId id : openIds) {
      writeNode(d, id, bytes(tree.open[id.level()]));
    }
    List<NodeId> closed = new ArrayList<>(tree.archive instanceof NodeArchive.Memory mem
        ? mem.nodes.keySet() : Dyadic.decomposition(1, tree.epochsClosed)); // kept in memory or not
    closed.sort(Comparator.comparingInt(NodeId::level).thenComparingInt(NodeId::index));
    d.writeInt(closed.size());
    for (NodeId id : closed) {
      if (tree.archive instanceof NodeArchive.Memory mem) {
        writeNode(d, id, mem.nodes.get(id));
      } else {
        d.writeInt(id.level());
        d.writeInt(id.index());
      }
    }
    if (tree.archive instanceof NodeArchive.Directory dir) {
      List<NodeId> files = new ArrayList<>();
      for (NodeId id : dir.crcs.keySet()) {
        if (id.end() <= tree.epochsClosed) { // not a node of a close begun after this state
          files.add(id);
        }
      }
      files.sort(Comparator.comparingInt(NodeId::level).thenComparingInt(NodeId::index));
      d.writeInt(files.size());
      for (NodeId id : files) {
        d.writeInt(id.level());
        d.writeInt(id.index());
        d.writeInt(dir.crcs.get(id));
      }
    }
    d.flush();
    DataOutputStream tail = new DataOutputStream(out);
    tail.writeInt((int) crc.getValue());
    tail.flush();
  }

  /**
   * @param nodeStore required iff the snapshot's closed nodes live in a directory
   * @throws IOException on a bad magic number or version, truncation, checksum mismatch, a
   *     foreign key, inconsistent content, or a missing node file
   */
  static ContinualSketch read(InputStream in, SecretKey key, Path nodeStore, int nodesInMemory)
      throws IOException {
    CRC32C crc = new CRC32C();
    DataInputStream d =
        new DataInputStream(new CheckedInputStream(new BufferedInputStream(in, 1 << 16), crc));
    try {
      byte[] magic = new byte[MAGIC.length];
      d.readFully(magic);
      if (!Arrays.equals(magic, MAGIC)) {
        throw new IOException("not a dplrf continual-release snapshot (bad magic number)");
      }
      int version = d.readInt();
      if (version < 1 || version > VERSION) {
        throw new IOException("unsupported tree snapshot version " + version
            + " (this build reads 1 to " + VERSION + ")");
      }
      int mech = d.readByte();
      int relationCode = version >= 5 ? d.readByte() : 0; // 0: the mechanism's default
      boolean cache = d.readByte() == 1;
      int noiseChunk = version >= 3 ? d.readInt() : 0;
      if (noiseChunk < 0) {
        throw new IOException("corrupt tree snapshot: noise chunk " + noiseChunk);
      }
      int samplerCode = version >= 4 ? d.readByte() : GaussianSampler.CKS.code();
      NoiseDerivation derivation;
      try {
        derivation = new NoiseDerivation(noiseChunk, GaussianSampler.ofCode(samplerCode));
      } catch (IllegalArgumentException e) {
        throw new IOException("corrupt tree snapshot: " + e.getMessage(), e);
      }
      String fingerprint = d.readUTF();
      String instance = d.readUTF();
      SketchSizes sizes =
          new SketchSizes(d.readInt(), d.readInt(), d.readInt(), d.readInt(), d.readInt());
      PrivacyParams privacy = new PrivacyParams(d.readDouble(), d.readDouble());
      double clip = d.readDouble();
      boolean robustCode = mech == 4 || mech == 5;
      double p = version >= 2 && robustCode ? d.readDouble() : Double.NaN; // NaN: the plan's
      int epochs = d.readInt();
      int closedEpochs = d.readInt();
      int store = d.readByte();
      byte[] acc = readBytes(d);
      int openCount = count(d.readInt());
      List<NodeBytes> openNodes = new ArrayList<>();
      for (int x = 0; x < openCount; x++) {
        openNodes.add(readNode(d));
      }
      int closedCount = count(d.readInt());
      List<NodeBytes> closedNodes = new ArrayList<>();
      boolean named = version >= 2 && store == 1; // ids only: the bytes are in the node files
      for (int x = 0; x < closedCount; x++) {
        closedNodes.add(named ? new NodeBytes(readId(d), null) : readNode(d));
      }
      Map<NodeId, Integer> fileCrcs = new HashMap<>();
      if (version >= 6 && store == 1) {
        int files = count(d.readInt());
        for (int x = 0; x < files; x++) {
          fileCrcs.put(readId(d), d.readInt());
        }
      }
      int expected = (int) crc.getValue();
      if (d.readInt() != expected) {
        throw new IOException("tree snapshot checksum mismatch: the file is corrupt");
      }
      if (!fingerprint.equals(key.fingerprint())) {
        throw new IOException("tree snapshot was written under key " + fingerprint
            + " but the key given is " + key.fingerprint() + ": its noise cannot be regenerated");
      }
      Mechanism mechanism = switch (mech) {
        case 1 -> Mechanism.PRIV1;
        case 2 -> Mechanism.PRIV2;
        case 3 -> Mechanism.PRIV2_SPARSE;
        case 4 -> Mechanism.ROBUST_LRA;
        case 5 -> Mechanism.ROBUST_PCA;
        default -> throw new IOException("corrupt tree snapshot: mechanism code " + mech);
      };
      NeighbouringRelation relation = switch (relationCode) {
        case 0 -> TreeConfig.defaultRelation(mechanism);
        case 1 -> NeighbouringRelation.RANK_ONE;
        case 2 -> NeighbouringRelation.FROBENIUS;
        case 3 -> NeighbouringRelation.ONE_ENTRY;
        case 4 -> NeighbouringRelation.ENTRYWISE_L1;
        default -> throw new IOException("corrupt tree snapshot: relation code " + relationCode);
      };
      TreeConfig config = new TreeConfig(mechanism, relation, sizes, privacy, clip, epochs, cache,
          mechanism.robust() && !Double.isNaN(p) ? p : 1);
      if (closedEpochs < 0 || closedEpochs > epochs || (store != 0 && store != 1)) {
        throw new IOException("corrupt tree snapshot: " + closedEpochs + " of " + epochs
            + " epochs closed, store " + store);
      }
      if (store == 1 && nodeStore == null) {
        throw new IOException("this tree snapshot keeps its closed nodes in a node store "
            + "directory: read it with readFrom(in, key, nodeStore)");
      }
      if (store == 0 && nodeStore != null) {
        throw new IOException("this tree snapshot keeps its closed nodes in memory; no node "
            + "store directory applies");
      }
      if (nodeStore != null) {
        NodeArchive.Directory.removeTemporaries(nodeStore);
      }
      NodeArchive archive = store == 0 ? NodeArchive.memory() : NodeArchive.directory(nodeStore);
      if (archive instanceof NodeArchive.Directory dir) {
        dir.crcs.putAll(fileCrcs); // before any node file is read
      }
      return restore(config, p, derivation, key, instance, closedEpochs, acc, openNodes,
          closedNodes, archive, nodesInMemory);
    } catch (EOFException e) {
      throw new IOException("tree snapshot is truncated", e);
    } catch (IllegalArgumentException e) {
      throw new IOException("corrupt tree snapshot: " + e.getMessage(), e);
    }
  }

  /**
   * @param pInHeader the robust mechanisms' p from a version-2 header, else NaN
   * @param nodesInMemory the most decomposition nodes kept in memory (node files only)
   */
  private static ContinualSketch restore(TreeConfig config, double pInHeader,
      NoiseDerivation derivation,
      SecretKey key, String instance, int closedEpochs, byte[] accBytes,
      List<NodeBytes> openNodes, List<NodeBytes> closedNodes, NodeArchive archive,
      int nodesInMemory) throws IOException {
    // The plan is read back, never recalibrated: from the accumulator, else from a stored node
    // (every node of the tree has the same plan; checked() compares each one with it). Only a
    // tree that never closed an epoch nor received an update has neither; it calibrates anew.
    NoisyLinearSketch saved = accBytes.length == 0
        ? null : SketchCodec.read(new ByteArrayInputStream(accBytes), key, false);
    Object plan;
    if (saved != null) {
      if (!saved.isNoiseless() || !saved.nodeLabel().equals(instance + "/accumulator")) {
        throw new IOException("corrupt tree snapshot: the accumulator is not this stream's");
      }
      plan = NodeFactory.planOf(saved);
    } else if (!openNodes.isEmpty() || !closedNodes.isEmpty()) {
      NodeBytes any = openNodes.isEmpty() ? closedNodes.get(0) : openNodes.get(0);
      try (InputStream in = any.bytes() != null
          ? new ByteArrayInputStream(any.bytes()) : archive.open(any.id())) {
        plan = NodeFactory.planOf(SketchCodec.read(in, key, false));
      } catch (DamagedFileException e) {
        throw e;
      } catch (IOException | RuntimeException e) {
        throw any.bytes() != null ? e instanceof IOException io ? io : new IOException(e)
            : ContinualSketch.damaged(archive, any.id(), e);
      }
    } else {
      plan = null; // made below, as for a new stream (the robust plans need the drawn matrices)
    }
    if (plan != null && config.mechanism().robust() != (plan instanceof RobustPlan)) {
      throw new IOException("corrupt tree snapshot: mechanism " + config.mechanism().cliName()
          + " with sketches of another mechanism");
    }
    if (plan instanceof Priv2Plan p2 && (p2.relation() == NeighbouringRelation.FROBENIUS)
        != (config.relation() == NeighbouringRelation.FROBENIUS)) {
      throw new IOException("corrupt tree snapshot: " + config.relation().cliName()
          + " neighbours in the header, sketches calibrated for " + p2.relation().cliName());
    }
    if (plan instanceof RobustPlan rp) {
      if (!Double.isNaN(pInHeader) && rp.p() != pInHeader) {
        throw new IOException("corrupt tree snapshot: p = " + pInHeader + " in the header, "
            + rp.p() + " in the sketches");
      }
      config = new TreeConfig(config.mechanism(), config.relation(), config.sizes(),
          config.privacy(), config.clip(), config.epochs(), config.cacheUpdateColumns(), rp.p());
    }
    NodeFactory factory = plan != null ? new NodeFactory(config, key, instance, plan, derivation)
        : NodeFactory.create(config, key, instance, derivation);
    plan = factory.plan;
    NoisyLinearSketch acc = factory.accumulator();
    if (saved != null) {
      acc.absorb(saved); // checks mechanism, plan, instance and key
    }
    ContinualSketch tree = new ContinualSketch(config, key, instance, factory, acc, archive);
    tree.epochsClosed = closedEpochs;
    tree.epochsEnded = closedEpochs;
    Set<NodeId> expectedOpen = new HashSet<>();
    if (closedEpochs < config.epochs()) {
      for (int level = 0; level < config.depth(); level++) {
        NodeId id = new NodeId(level, closedEpochs >> level);
        if (id.end() <= config.epochs()) {
          expectedOpen.add(id);
        }
      }
    }
    Set<NodeId> gotOpen = new HashSet<>();
    for (NodeBytes o : openNodes) {
      NodeId id = o.id();
      NoisyLinearSketch node = checked(tree, id, new ByteArrayInputStream(o.bytes()), plan);
      if (!factory.nodesStartEmpty()) {
        tree.open[id.level()] = node;
      } // else a version-1 Priv2 snapshot: the node will be made from its children when it closes
      gotOpen.add(id);
    }
    // Priv2 keeps no open node (version 2); a version-1 snapshot lists them all.
    boolean noneKept = factory.nodesStartEmpty() && openNodes.isEmpty();
    if (!gotOpen.equals(noneKept ? Set.of() : expectedOpen)) {
      throw new IOException("corrupt tree snapshot: open nodes " + gotOpen + ", expected "
          + expectedOpen);
    }
    Map<NodeId, byte[]> inline = new HashMap<>();
    for (NodeBytes o : closedNodes) {
      NodeId id = o.id();
      if (id.end() > closedEpochs) {
        throw new IOException("corrupt tree snapshot: node " + id + " is not closed");
      }
      if (o.bytes() != null) {
        inline.put(id, o.bytes());
        if (archive instanceof NodeArchive.Memory) {
          archive.put(id, o.bytes());
        }
      }
    }
    if (nodesInMemory < Integer.MAX_VALUE) {
      tree.keepInMemoryAtMost(nodesInMemory); // before any node is kept
    }
    List<NodeId> decomposition = Dyadic.decomposition(1, closedEpochs);
    for (int x = 0; x < decomposition.size(); x++) {
      NodeId id = decomposition.get(x);
      boolean fromFile = !inline.containsKey(id);
      try (InputStream in = fromFile ? archive.open(id) : new ByteArrayInputStream(inline.get(id))) {
        NoisyLinearSketch node = checked(tree, id, in, plan); // every one is checked
        if (decomposition.size() - x <= nodesInMemory) { // the most recent ones are kept
          tree.retained.put(id, node);
        }
      } catch (DamagedFileException e) {
        throw e;
      } catch (IOException | RuntimeException e) {
        if (!fromFile) {
          throw e;
        }
        // The snapshot is whole (its checksum passed); the node file it names is not.
        throw ContinualSketch.damaged(archive, id, e);
      }
    }
    if (archive instanceof NodeArchive.Directory dir) {
      Set<NodeId> named = new HashSet<>();
      closedNodes.forEach(o -> named.add(o.id()));
      if (!named.equals(new HashSet<>(decomposition))) {
        throw new IOException("corrupt tree snapshot: retained nodes " + named + ", expected "
            + decomposition);
      }
      for (int level = 0; level < config.depth(); level++) {
        for (long idx = 0; ((idx + 1) << level) <= closedEpochs; idx++) {
          Path f = dir.file(new NodeId(level, (int) idx));
          if (!Files.exists(f)) {
            throw new DamagedFileException(f, "missing from the node store", null);
          }
        }
      }
      // recovery.md §5: no snapshot older than a release or than the node files beside it.
      int released = dir.readReleasedMark(tree.instance);
      NodeId newest = dir.newestNode();
      ReleasedMark.requireRestorable(released, dir.releasedMarkFile(), closedEpochs,
          newest == null ? 0 : newest.end(), newest == null ? null : dir.file(newest));
      tree.epochsReleased = released;
    }
    return tree;
  }

  private static NoisyLinearSketch checked(ContinualSketch tree, NodeId id, InputStream in,
      Object plan) throws IOException {
    NoisyLinearSketch node = tree.readNode(id, in);
    if (node.isNoiseless() || !NodeFactory.planOf(node).equals(plan)) {
      throw new IOException("corrupt tree snapshot: node " + id + " has another plan");
    }
    return node;
  }

  static byte[] bytes(NoisyLinearSketch s) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      SketchCodec.write(s, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static int count(int c) throws IOException {
    if (c < 0 || c > MAX_NODES) {
      throw new IOException("corrupt tree snapshot: node count " + c);
    }
    return c;
  }

  private static void writeNode(DataOutputStream d, NodeId id, byte[] b) throws IOException {
    d.writeInt(id.level());
    d.writeInt(id.index());
    writeBytes(d, b);
  }

  private record NodeBytes(NodeId id, byte[] bytes) {}

  private static NodeBytes readNode(DataInputStream d) throws IOException {
    return new NodeBytes(readId(d), readBytes(d));
  }

  private static NodeId readId(DataInputStream d) throws IOException {
    int level = d.readInt();
    int index = d.readInt();
    if (level < 0 || level > 31 || index < 0) {
      throw new IOException("corrupt tree snapshot: node (" + level + ", " + index + ")");
    }
    return new NodeId(level, index);
  }

  private static void writeBytes(DataOutputStream d, byte[] b) throws IOException {
    d.writeInt(b.length);
    d.write(b);
  }

  private static byte[] readBytes(DataInputStream d) throws IOException {
    int len = d.readInt();
    if (len < 0 || len > Integer.MAX_VALUE - 8) {
      throw new IOException("corrupt tree snapshot: length " + len);
    }
    byte[] b = d.readNBytes(len); // grows as it reads: a corrupt length cannot force a huge array
    if (b.length != len) {
      throw new EOFException();
    }
    return b;
  }
}
