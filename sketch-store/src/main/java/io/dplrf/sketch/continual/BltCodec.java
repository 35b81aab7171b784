package io.dplrf.sketch.continual;

import io.dplrf.sketch.factorization.BltParameters;
import io.dplrf.sketch.files.DamagedFileException;
import io.dplrf.sketch.files.ReleasedMark;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.lra.NoiseDerivation;
import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.lra.Priv2Matrices;
import io.dplrf.sketch.lra.Priv2Sketch;
import io.dplrf.sketch.lra.SketchCodec;
import io.dplrf.sketch.noise.GaussianSampler;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * The one owner of the BLT stream's snapshot format: the stream's settings, its
 * plan exactly as calibrated (never recalibrated on restore), the accumulator of the epoch in
 * progress, and the names and checksums of the state files of the last close. The arrays
 * themselves are {@code SketchCodec} files in the state store ({@link BltFiles}): a snapshot
 * taken at a close is a few hundred bytes.
 *
 * <pre>
 * Format version 2, big-endian (java.io.DataOutput):
 *
 *  field                 type        notes
 *  --------------------  ----------  ----------------------------------------------------------
 *  magic                 8 bytes     ASCII "DPLRFBT1"
 *  version               int32       2
 *  mechanism             int8        2 = priv2, 3 = priv2-sparse (TreeCodec's codes)
 *  relation              int8        3 = one-entry, 4 = entrywise-l1 (TreeCodec's codes)
 *  cacheUpdateColumns    int8        0 / 1
 *  noiseChunk            int32       entries per keyed noise chunk (&gt; 0)
 *  sampler               int8        the exact sampler reading each chunk's stream: 0 = CKS
 *                                    Algorithm 3, 1 = blocked alias table (GaussianSampler)
 *  keyFingerprint        UTF         SecretKey.fingerprint(); reading with another key fails
 *  instance              UTF         the stream's instance label
 *  m, n, k, t, v         5 × int32   sizes
 *  epsilon, delta, clip  3 × float64 the stream's budget and contribution bound C
 *  epochs                int32       T
 *  epochsClosed          int32       0..T
 *  buffers               int32       d
 *  theta, omega          2d × float64  the BLT encoder C (BltParameters), θ then ω
 *  sensitivity           float64     sens(T), C's largest column norm over T epochs
 *  phiFactor, sFactor    2 × float64 b_Φ, b_S
 *  Y noise, Z noise      2 × (float64 baseSensitivity, int64 changedCoordinates,
 *                        float64 mu, float64 effectiveSigma = s·γ, exact)
 *  accumulator           int32 len, len bytes    SketchCodec of the noiseless accumulator;
 *                                    len 0: empty (no update since the last close, or after T)
 *  files                 int32       0 before epoch 1, 2d + 1 for 1 ≤ e &lt; T, 1 at e = T: the
 *                                    state after epoch epochsClosed = e, in this order:
 *    name                UTF         blt-encoder-e-i.sketch (i = 0..d−1), blt-decoder-e-i.sketch
 *                                    (both only for e &lt; T), blt-release-e.sketch (SketchCodec,
 *                                    noiseless, labels instance/blt/encoder/e/i,
 *                                    instance/blt/decoder/e/i, instance/blt/release/e)
 *    length              int64       the file's bytes
 *    crc                 int32       CRC32C of all of them
 *  releases              int32       e = epochsClosed
 *    crc                 int32       CRC32C of R_t's file, t = 1..e (every R file has R_e's length)
 *  crc                   int32       CRC32C of every byte before it
 * </pre>
 *
 * <p>The releases R_1..R_{e−1} are the files blt-release-t.sketch, by that convention (not named
 * one by one: 4 bytes each, their CRC32C); a restore checks that each exists, and releases check
 * it whole against its header (R_t of this stream) and the recorded CRC32C ({@link
 * BltStream#verifyRelease}), which binds it to the close this snapshot holds. Every state file says its stream, role and epoch in its own
 * checksummed header, so none rests on its name. Version 1, whose R_t files all carried one label
 * and were bound to their epochs by sidecar checksum files only, is refused with the reason. The state
 * sketches' arrays use the accumulator's layout (Y m×t, Zᵀ n×v, row-major). The snapshot holds
 * raw data when the accumulator is not empty, and the encoder files are sums of raw data: both are
 * as secret as the updates (owner-only files).
 *
 * <p>A restore refuses a snapshot with fewer epochs closed than the released-epoch guard beside
 * the state files, state files without a guard, and state files of an epoch after the snapshot's
 * next ({@code ReleasedMark#requireRestorable}, blt-release.md §5); the epochs it names may be
 * released, and the buffer files
 * of earlier epochs, which only an older snapshot could name, are deleted once it has succeeded.
 * A snapshot after epoch T names R_T only; one that also names the buffers of epoch T (written
 * before the last close dropped them) is read too, and those buffers are deleted.
 */
final class BltCodec {
  private static final byte[] MAGIC = "DPLRFBT1".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 2;
  /**
   * Refused: its R_t files carry one label for every epoch, bound to their epochs by sidecar
   * checksum files whose absence it could not tell from damage.
   */
  static final int VERSION_UNBOUND = 1;

  private BltCodec() {}

  /**
   * @param withAccumulator false to write an empty accumulator whatever it holds (the pipelined
   *     close's snapshot, {@link BltStream#writeClosedState})
   */
  static void write(BltStream s, OutputStream out, boolean withAccumulator) throws IOException {
    BltConfig c = s.config;
    BltPlan p = s.plan;
    CRC32C crc = new CRC32C();
    DataOutputStream d =
        new DataOutputStream(new CheckedOutputStream(new BufferedOutputStream(out, 1 << 16), crc));
    d.write(MAGIC);
    d.writeInt(VERSION);
    d.writeByte(c.mechanism() == Mechanism.PRIV2 ? 2 : 3);
    d.writeByte(c.relation() == NeighbouringRelation.ONE_ENTRY ? 3 : 4);
    d.writeByte(c.cacheUpdateColumns() ? 1 : 0);
    d.writeInt(s.derivation.chunk());
    d.writeByte(s.derivation.sampler().code());
    d.writeUTF(s.key.fingerprint());
    d.writeUTF(s.instance);
    SketchSizes z = c.sizes();
    for (int x : new int[] {z.m(), z.n(), z.k(), z.t(), z.v()}) {
      d.writeInt(x);
    }
    d.writeDouble(c.privacy().epsilon());
    d.writeDouble(c.privacy().delta());
    d.writeDouble(c.clip());
    d.writeInt(c.epochs());
    d.writeInt(s.epochsClosed);
    BltParameters bp = p.parameters();
    d.writeInt(bp.buffers());
    for (double x : bp.theta()) {
      d.writeDouble(x);
    }
    for (double x : bp.omega()) {
      d.writeDouble(x);
    }
    d.writeDouble(p.sensitivity());
    d.writeDouble(p.phiFactor());
    d.writeDouble(p.sFactor());
    writeNoise(d, p.yNoise());
    writeNoise(d, p.zNoise());
    Priv2Sketch acc = s.accumulator;
    byte[] accBytes = withAccumulator && acc != null && acc.updateCount() > 0
        ? bytes(acc) : new byte[0];
    d.writeInt(accBytes.length);
    d.write(accBytes);
    List<BltFiles.Written> named = s.stateFiles;
    d.writeInt(named.size());
    for (BltFiles.Written w : named) {
      d.writeUTF(w.name());
      d.writeLong(w.length());
      d.writeInt(w.crc());
    }
    int[] crcs = s.releaseCrcs;
    d.writeInt(crcs.length);
    for (int r : crcs) {
      d.writeInt(r);
    }
    d.flush();
    DataOutputStream tail = new DataOutputStream(out);
    tail.writeInt((int) crc.getValue());
    tail.flush();
  }

  /**
   * @throws IOException on a bad magic number or version, truncation, checksum mismatch, a
   *     foreign key, inconsistent content, or a state file that is missing or not the one named
   */
  static BltStream read(InputStream in, SecretKey key, BltFiles files) throws IOException {
    CRC32C crc = new CRC32C();
    DataInputStream d =
        new DataInputStream(new CheckedInputStream(new BufferedInputStream(in, 1 << 16), crc));
    try {
      byte[] magic = new byte[MAGIC.length];
      d.readFully(magic);
      if (!Arrays.equals(magic, MAGIC)) {
        throw new IOException("not a dplrf BLT stream snapshot (bad magic number)");
      }
      int version = d.readInt();
      if (version == VERSION_UNBOUND) {
        throw new IOException("this BLT snapshot was written by an older dplrf whose prefix"
            + " release files do not say which epoch they hold (format version 1): a swapped or"
            + " replaced file could not be told from a sound one, so this build refuses it."
            + " Finish that stream with the build that wrote it, or start a new run in an empty"
            + " state directory (docs/operations.md §4)");
      }
      if (version != VERSION) {
        throw new IOException("unsupported BLT snapshot version " + version
            + " (this build reads " + VERSION + ")");
      }
      int mech = d.readByte();
      int rel = d.readByte();
      boolean cache = d.readByte() == 1;
      int noiseChunk = d.readInt();
      int samplerCode = d.readByte();
      String fingerprint = d.readUTF();
      String instance = d.readUTF();
      SketchSizes sizes =
          new SketchSizes(d.readInt(), d.readInt(), d.readInt(), d.readInt(), d.readInt());
      PrivacyParams privacy = new PrivacyParams(d.readDouble(), d.readDouble());
      double clip = d.readDouble();
      int epochs = d.readInt();
      int closed = d.readInt();
      int buffers = d.readInt();
      if (buffers < 1 || buffers > BltParameters.MAX_BUFFERS) {
        throw new IOException("corrupt BLT snapshot: " + buffers + " buffers");
      }
      double[] theta = new double[buffers];
      double[] omega = new double[buffers];
      for (int i = 0; i < buffers; i++) {
        theta[i] = d.readDouble();
      }
      for (int i = 0; i < buffers; i++) {
        omega[i] = d.readDouble();
      }
      double sensitivity = d.readDouble();
      double phiFactor = d.readDouble();
      double sFactor = d.readDouble();
      GaussianSketchNoise yNoise = readNoise(d, "Y");
      GaussianSketchNoise zNoise = readNoise(d, "Z");
      byte[] acc = readBytes(d);
      int count = d.readInt();
      if (count < 0 || count > 2 * BltParameters.MAX_BUFFERS + 1) {
        throw new IOException("corrupt BLT snapshot: " + count + " state files");
      }
      List<BltFiles.Written> named = new ArrayList<>();
      for (int x = 0; x < count; x++) {
        named.add(new BltFiles.Written(d.readUTF(), d.readLong(), d.readInt()));
      }
      int releases = d.readInt();
      if (releases != closed || releases < 0 || releases > epochs) {
        throw new IOException("corrupt BLT snapshot: " + releases + " release checksums for "
            + closed + " epochs closed");
      }
      int[] crcs = new int[releases];
      for (int t = 0; t < releases; t++) {
        crcs[t] = d.readInt();
      }
      int expected = (int) crc.getValue();
      if (d.readInt() != expected) {
        throw new IOException("BLT snapshot checksum mismatch: the file is corrupt");
      }
      if (!fingerprint.equals(key.fingerprint())) {
        throw new IOException("BLT snapshot was written under key " + fingerprint
            + " but the key given is " + key.fingerprint() + ": its noise cannot be regenerated");
      }
      Mechanism mechanism = switch (mech) {
        case 2 -> Mechanism.PRIV2;
        case 3 -> Mechanism.PRIV2_SPARSE;
        default -> throw new IOException("corrupt BLT snapshot: mechanism code " + mech);
      };
      NeighbouringRelation relation = switch (rel) {
        case 3 -> NeighbouringRelation.ONE_ENTRY;
        case 4 -> NeighbouringRelation.ENTRYWISE_L1;
        default -> throw new IOException("corrupt BLT snapshot: relation code " + rel);
      };
      BltConfig config = new BltConfig(mechanism, relation, sizes, privacy, clip, epochs, cache);
      if (noiseChunk <= 0) {
        throw new IOException("corrupt BLT snapshot: noise chunk " + noiseChunk);
      }
      NoiseDerivation derivation =
          new NoiseDerivation(noiseChunk, GaussianSampler.ofCode(samplerCode));
      BltPlan plan = new BltPlan(privacy, clip, sizes, config.sparsity(), epochs,
          new BltParameters(theta, omega), sensitivity, phiFactor, sFactor, yNoise, zNoise);
      if (closed < 0 || closed > epochs) {
        throw new IOException("corrupt BLT snapshot: " + closed + " of " + epochs
            + " epochs closed");
      }
      return restore(config, plan, derivation, key, instance, closed, acc, named, crcs, files);
    } catch (EOFException e) {
      throw new IOException("BLT snapshot is truncated", e);
    } catch (IllegalArgumentException e) {
      throw new IOException("corrupt BLT snapshot: " + e.getMessage(), e);
    }
  }

  private static BltStream restore(BltConfig config, BltPlan plan, NoiseDerivation derivation,
      SecretKey key, String instance, int closed, byte[] accBytes, List<BltFiles.Written> named,
      int[] crcs, BltFiles files) throws IOException {
    int d = plan.parameters().buffers();
    int epochs = config.epochs();
    List<String> expected = closed == 0 ? List.of()
        : BltStream.stateFileNames(closed, d, epochs);
    List<String> names = named.stream().map(BltFiles.Written::name).toList();
    if (closed == epochs && names.size() == 2 * d + 1
        && names.equals(BltStream.stateFileNames(closed, d, epochs + 1))) {
      // A snapshot after epoch T that still names the buffers (written before the last close
      // dropped them): only R_T is read, and the buffers are deleted below.
      named = List.of(named.get(2 * d));
    } else if (!names.equals(expected)) {
      throw new IOException("corrupt BLT snapshot: state files " + named + ", expected "
          + expected);
    }
    // §5: a snapshot older than an epoch already released would close it again with its noise.
    int released = BltStream.readReleasedMark(files, instance);
    long newest = 0;
    String newestName = null;
    for (String name : files.names()) {
      long e = BltStream.fileEpoch(name);
      if (e > newest) {
        newest = e;
        newestName = name;
      }
    }
    ReleasedMark.requireRestorable(released, files.fileOf(BltStream.RELEASED_FILE), closed,
        newest, newestName == null ? null : files.fileOf(newestName));
    Priv2Matrices mats = Priv2Matrices.generate(key, instance, config.sizes(),
        config.cacheUpdateColumns(), config.sparsity());
    // The plan's factors are functions of the drawn matrices (blt-release.md §2): a plan that
    // does not match them is not this stream's calibration.
    if (plan.phiFactor() != mats.maxRowNormOfPhi() || plan.sFactor() != mats.maxColumnNormOfS()) {
      throw new IOException("corrupt BLT snapshot: factors " + plan.phiFactor() + ", "
          + plan.sFactor() + " are not those of the drawn matrices");
    }
    Priv2Sketch accumulator;
    if (accBytes.length > 0) {
      NoisyLinearSketch a = SketchCodec.read(new ByteArrayInputStream(accBytes), key, mats);
      if (!(a instanceof Priv2Sketch p) || !a.isNoiseless() || closed == config.epochs()
          || !a.nodeLabel().equals(BltStream.accumulatorLabel(instance))
          || !p.plan().equals(plan.epochPlan())) {
        throw new IOException("corrupt BLT snapshot: the accumulator is not this stream's");
      }
      accumulator = p;
    } else {
      accumulator = closed == config.epochs() ? null
          : BltStream.newAccumulator(plan, mats, key, instance);
    }
    Priv2Sketch[] enc = new Priv2Sketch[d];
    Priv2Sketch[] dec = new Priv2Sketch[d];
    Priv2Sketch release;
    State state = new State(key, mats, plan, files);
    if (closed == config.epochs()) { // no buffers after T; R_T is checked, and read by releases
      enc = new Priv2Sketch[0];
      dec = new Priv2Sketch[0];
      readNamed(state, named.get(0), BltStream.releaseLabel(instance, closed));
      release = null;
    } else if (closed == 0) {
      for (int i = 0; i < d; i++) {
        enc[i] = BltStream.stateSketch(plan, mats, key, BltStream.encoderLabel(instance, 0, i));
        dec[i] = BltStream.stateSketch(plan, mats, key, BltStream.decoderLabel(instance, 0, i));
      }
      release = BltStream.stateSketch(plan, mats, key, BltStream.releaseLabel(instance, 0));
    } else {
      for (int i = 0; i < d; i++) {
        enc[i] = readNamed(state, named.get(i), BltStream.encoderLabel(instance, closed, i));
        dec[i] = readNamed(state, named.get(d + i),
            BltStream.decoderLabel(instance, closed, i));
      }
      release = readNamed(state, named.get(2 * d), BltStream.releaseLabel(instance, closed));
    }
    // R_1..R_{e−1} are read by releases only: here, a check that each exists (as the tree's
    // restore checks its node files), so that a lost one fails the start; their headers and
    // bytes are checked by the service's integrity check and when read (BltStream
    // #verifyRelease, #releasePrefix), which refuse exactly the releases that read a damaged one.
    for (int t = 1; t < closed; t++) {
      if (!files.exists(BltStream.releaseFile(t))) {
        throw new DamagedFileException(files.fileOf(BltStream.releaseFile(t)),
            "missing from the state store (the prefix release of epoch " + t + ")", null);
      }
    }
    // No restore may use older buffers any more (nor any after epoch T).
    BltStream.deleteBuffersBefore(files, closed == epochs ? epochs + 1 : closed);
    return new BltStream(config, key, instance, plan, derivation, mats, files, accumulator, enc,
        dec, release, closed, named, crcs, released);
  }

  /** What reading a state file needs. */
  private record State(SecretKey key, Priv2Matrices mats, BltPlan plan, BltFiles files) {}

  /**
   * A named state file read back whole: its sketch, checked against its length and checksum. The
   * snapshot's own checksum has passed, so a mismatch is the state file's damage: the error names
   * it, and the restore (the start) fails, because the state after the snapshot's epoch cannot be
   * rebuilt without these bytes (computing them again would draw released noise again).
   *
   * @throws DamagedFileException naming the file and the problem
   */
  private static Priv2Sketch readNamed(State st, BltFiles.Written w, String label)
      throws IOException {
    return BltStream.readChecked(st.files(), w.name(), w, "the snapshot names",
        in -> BltStream.readState(in, st.key(), st.mats(), st.plan(), label, w.name()));
  }

  /** Counts the bytes read through it. */
  static final class CountingInput extends java.io.FilterInputStream {
    long count;

    CountingInput(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int r = super.read(b, off, len);
      if (r > 0) {
        count += r;
      }
      return r;
    }

    @Override
    public long skip(long n) throws IOException {
      long r = super.skip(n);
      count += r;
      return r;
    }
  }

  private static void writeNoise(DataOutputStream d, GaussianSketchNoise g) throws IOException {
    d.writeDouble(g.baseSensitivity());
    d.writeLong(g.changedCoordinates());
    d.writeDouble(g.mu());
    d.writeDouble(g.sigma());
  }

  /** A noise part on exactly the stored grid; refuses a scale that does not round-trip. */
  private static GaussianSketchNoise readNoise(DataInputStream d, String name) throws IOException {
    double base = d.readDouble();
    long changed = d.readLong();
    double mu = d.readDouble();
    double sigma = d.readDouble();
    GridGaussian grid = GridGaussian.atLeast(sigma);
    if (grid.effectiveSigma() != sigma) {
      throw new IOException("corrupt BLT snapshot: noise scale of " + name + " is not on its grid");
    }
    return new GaussianSketchNoise(name, base, changed, mu, grid);
  }

  private static byte[] bytes(NoisyLinearSketch s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SketchCodec.write(s, out);
    return out.toByteArray();
  }

  private static byte[] readBytes(DataInputStream d) throws IOException {
    int len = d.readInt();
    if (len < 0 || len > Integer.MAX_VALUE - 8) {
      throw new IOException("corrupt BLT snapshot: length " + len);
    }
    byte[] b = d.readNBytes(len); // grows as it reads: a corrupt length cannot force a huge array
    if (b.length != len) {
      throw new EOFException();
    }
    return b;
  }
}
