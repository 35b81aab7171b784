package io.dplrf.sketch.lra;

import io.dplrf.sketch.noise.GaussianSampler;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.noise.GridLaplace;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * The one owner of the sketch binary format, which starts with a magic number and a version. A
 * snapshot holds a sketch's accumulators and the exact parameters of its noise — never the noise
 * itself, which is regenerated from the key and the node label, and never a recalibration: a
 * restored sketch uses exactly the grid and scale it was created with, so a restart can never
 * release a second, differently-drawn noisy view.
 *
 * <pre>
 * Format version 3, big-endian (java.io.DataOutput). Version 2 (read, not written) lacks sampler
 * and reads its noise streams with CKS Algorithm 3; version 1 (read, not written) also lacks noiseChunk and derives each part's noise from one stream (NoisyLinearSketch, "Noise
 * derivation"):
 *
 *  field                 type        notes
 *  --------------------  ----------  ----------------------------------------------------------
 *  magic                 8 bytes     ASCII "DPLRFSK1"
 *  version               int32       3
 *  mechanism             int8        1 = priv1, 2 = priv2, 3 = dense input perturbation,
 *                                    4 = priv2 with sparse sign embeddings,
 *                                    5 = robust-lra, 6 = robust-pca (paper 000)
 *  noiseless             int8        1 for a --no-noise sketch (not private), else 0
 *  noiseChunk            int32       entries per keyed chunk of each Gaussian part's noise
 *                                    (labels node/part/chunk/c); 0 = one stream per part
 *  sampler               int8        the exact sampler reading each noise stream: 0 = CKS
 *                                    Algorithm 3, 1 = blocked alias table (GaussianSampler)
 *  keyFingerprint        UTF         SecretKey.fingerprint(); reading with another key fails
 *  instance              UTF         label of the shared sketching matrices ("" for dense)
 *  node                  UTF         label of this sketch's own randomness
 *  m, n, k, t, v         5 × int32   sizes (dense: t = v = k)
 *  epsilon, delta, clip  3 × float64
 *  plan                  float64[]   mechanism-specific numbers, count int32 first (below)
 *  updates               int64       updates applied so far
 *  arrays                int32 count, then per array: int32 length, length × float64
 *  crc                   int32       CRC32C of every byte before it
 *
 *  plan, priv1: jlDeltaShare, ycShare, sigmaMin, covarianceR, achievedMechanismDelta,
 *               psiNormBound, sNormBound, tNormBound, then Yr and Z noise (4 each below)
 *  plan, priv2: jlDeltaShare, phiFactor, sFactor, then Y and Z noise
 *  plan, priv2 sparse (mechanism 4): as priv2 (share 0, factors 1), then the sparsity s
 *  plan, dense: the A+N noise
 *  plan, robust (5, 6): p, compositions, roundedNodes, phiFactor, psiFactor, stFactor, then the
 *               Yr, Yc (robust-lra only) and Z Laplace noise: l1Sensitivity, entries,
 *               roundedNodes, epsilon, effectiveScale (b = s·γ, exact); then stableClip (the
 *               clip level factor, may be ∞); the sketching matrices are regenerated and must
 *               reproduce the stored factors exactly
 *  noise:       baseSensitivity, changedCoordinates, mu, effectiveSigma (σ = s·γ, exact)
 * </pre>
 */
public final class SketchCodec {
  private static final byte[] MAGIC = "DPLRFSK1".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  static final int VERSION = 3;
  /** Still read: no sampler field (its sketches read their streams with CKS Algorithm 3). */
  static final int VERSION_CKS = 2;
  /** The first version, still read: no noiseChunk field (its sketches draw one stream per part). */
  static final int VERSION_ONE_STREAM = 1;

  private SketchCodec() {}

  /** Writes {@code sketch} (flushing its buffered updates first). Does not close {@code out}. */
  public static void write(NoisyLinearSketch sketch, OutputStream out) throws IOException {
    write(sketch, out, sketch.nodeLabel());
  }

  /**
   * As {@link #write(NoisyLinearSketch, OutputStream)}, with {@code label} in the node-label
   * field: for a noiseless state sketch (whose label derives no noise) kept in files of several
   * epochs, so that each file says which epoch and role it holds (the BLT stream's buffers and
   * prefix releases).
   *
   * @throws IllegalArgumentException if the sketch is noisy and {@code label} is not its own: a
   *     noisy sketch's label is its randomness
   */
  public static void write(NoisyLinearSketch sketch, OutputStream out, String label)
      throws IOException {
    if (!sketch.isNoiseless() && !label.equals(sketch.nodeLabel())) {
      throw new IllegalArgumentException("a noisy sketch keeps its own label " + sketch.nodeLabel()
          + ". Provided value: " + label);
    }
    sketch.flushPending();
    CRC32C crc = new CRC32C();
    DataOutputStream d =
        new DataOutputStream(new CheckedOutputStream(new BufferedOutputStream(out, 1 << 16), crc));
    d.write(MAGIC);
    d.writeInt(VERSION);
    SketchSizes sz;
    PrivacyParams privacy;
    double clip;
    double[] plan;
    int mechanism;
    if (sketch instanceof Priv1Sketch p1) {
      Priv1Plan p = p1.plan();
      mechanism = 1;
      sz = p.sizes();
      privacy = p.privacy();
      clip = p.clip();
      plan = concat(new double[] {p.jlDeltaShare(), p.ycShare(), p.sigmaMin(), p.covarianceR(),
          p.achievedMechanismDelta(), p.psiNormBound(), p.sNormBound(), p.tNormBound()},
          noise(p.yrNoise()), noise(p.zNoise()));
    } else if (sketch instanceof Priv2Sketch p2) {
      Priv2Plan p = p2.plan();
      mechanism = p.sparse() ? 4 : 2;
      sz = p.sizes();
      privacy = p.privacy();
      clip = p.clip();
      plan = concat(new double[] {p.jlDeltaShare(), p.phiFactor(), p.sFactor()},
          noise(p.yNoise()), noise(p.zNoise()),
          p.sparse() ? new double[] {p.sparsity()} : new double[0]);
    } else if (sketch instanceof RobustSketch rs) {
      RobustPlan p = rs.plan();
      mechanism = p.pca() ? 6 : 5;
      sz = p.sizes();
      privacy = p.privacy();
      clip = p.clip();
      plan = concat(new double[] {p.p(), p.compositions(), p.roundedNodes(), p.phiFactor(),
          p.psiFactor(), p.stFactor()}, laplace(p.yr()),
          p.pca() ? new double[0] : laplace(p.yc()), laplace(p.z()),
          new double[] {p.stableClip()});
    } else {
      DensePlan p = ((DenseInputPerturbation) sketch).plan();
      mechanism = 3;
      sz = null;
      privacy = p.privacy();
      clip = p.clip();
      plan = noise(p.noise());
    }
    d.writeByte(mechanism);
    d.writeByte(sketch.isNoiseless() ? 1 : 0);
    d.writeInt(sketch.noiseDerivation().chunk());
    d.writeByte(sketch.noiseDerivation().sampler().code());
    d.writeUTF(sketch.key.fingerprint());
    d.writeUTF(sketch.instance());
    d.writeUTF(label);
    d.writeInt(sketch.rows());
    d.writeInt(sketch.cols());
    d.writeInt(sz == null ? 0 : sz.k());
    d.writeInt(sz == null ? 0 : sz.t());
    d.writeInt(sz == null ? 0 : sz.v());
    d.writeDouble(privacy.epsilon());
    d.writeDouble(privacy.delta());
    d.writeDouble(clip);
    writeArray(d, plan);
    d.writeLong(sketch.updateCount());
    double[][] state = sketch.state();
    d.writeInt(state.length);
    for (double[] a : state) {
      writeArray(d, a);
    }
    d.flush();
    // The checksum covers everything above; write it outside the checked stream.
    DataOutputStream tail = new DataOutputStream(out);
    tail.writeInt((int) crc.getValue());
    tail.flush();
  }

  /**
   * Reads a sketch written by {@link #write}, regenerating its sketching matrices and noise from
   * {@code key}.
   *
   * @throws IOException if the bytes are not a version-1 or -2 snapshot, are truncated or corrupt
   *     (checksum), or were written under another key
   */
  public static NoisyLinearSketch read(InputStream in, SecretKey key, boolean cacheUpdateColumns)
      throws IOException {
    return read(in, key, cacheUpdateColumns, null);
  }

  /**
   * As {@link #read(InputStream, SecretKey, boolean)}, reusing {@code shared} for a robust sketch
   * of the same instance, sizes, p and kind (a tree's nodes share one held copy) instead of
   * regenerating them; the plan must still match them exactly.
   */
  public static NoisyLinearSketch read(InputStream in, SecretKey key, RobustMatrices shared)
      throws IOException {
    return read(in, key, false, shared, null);
  }

  /**
   * As {@link #read(InputStream, SecretKey, boolean)}, reusing {@code shared} for a Priv2 sketch of
   * the same instance, sizes and sparsity (the BLT stream's state sketches share one copy) instead
   * of regenerating them.
   */
  public static NoisyLinearSketch read(InputStream in, SecretKey key, Priv2Matrices shared)
      throws IOException {
    return read(in, key, false, null, shared);
  }

  private static NoisyLinearSketch read(InputStream in, SecretKey key, boolean cacheUpdateColumns,
      RobustMatrices shared) throws IOException {
    return read(in, key, cacheUpdateColumns, shared, null);
  }

  private static NoisyLinearSketch read(InputStream in, SecretKey key, boolean cacheUpdateColumns,
      RobustMatrices shared, Priv2Matrices sharedPriv2) throws IOException {
    CRC32C crc = new CRC32C();
    DataInputStream d =
        new DataInputStream(new CheckedInputStream(new BufferedInputStream(in, 1 << 16), crc));
    try {
      int version = readVersion(d);
      int mechanism = d.readByte();
      boolean noiseless = d.readByte() == 1;
      int noiseChunk = version == VERSION_ONE_STREAM ? 0 : d.readInt();
      if (noiseChunk < 0) {
        throw new IOException("corrupt sketch snapshot: noise chunk " + noiseChunk);
      }
      int samplerCode = version >= VERSION ? d.readByte() : GaussianSampler.CKS.code();
      NoiseDerivation derivation = new NoiseDerivation(noiseChunk,
          GaussianSampler.ofCode(samplerCode)); // a bad code: IllegalArgumentException, below
      String fingerprint = d.readUTF();
      String instance = d.readUTF();
      String node = d.readUTF();
      int m = d.readInt();
      int n = d.readInt();
      int k = d.readInt();
      int t = d.readInt();
      int v = d.readInt();
      PrivacyParams privacy = new PrivacyParams(d.readDouble(), d.readDouble());
      double clip = d.readDouble();
      double[] plan = readArray(d, 64);
      long updates = d.readLong();
      int count = d.readInt();
      if (!fingerprint.equals(key.fingerprint())) {
        throw new IOException("sketch snapshot was written under key " + fingerprint
            + " but the key given is " + key.fingerprint() + ": its noise cannot be regenerated");
      }
      // The arrays are read straight into the new sketch's own: one copy of the state in memory
      // while reading, not two (a node is hundreds of MB at the service's sizes).
      NoisyLinearSketch sketch =
          build(mechanism, noiseless, key, instance, node, m, n, k, t, v, privacy, clip, plan,
              cacheUpdateColumns, shared, sharedPriv2);
      double[][] live = sketch.state();
      if (count != live.length) {
        throw new IOException("corrupt sketch snapshot: " + count + " arrays, expected " + live.length);
      }
      for (int a = 0; a < live.length; a++) {
        int length = d.readInt();
        if (length != live[a].length) {
          throw new IOException("corrupt sketch snapshot: array " + a + " has " + length
              + " numbers, expected " + live[a].length);
        }
        readInto(d, live[a]);
      }
      int expected = (int) crc.getValue(); // before the stored checksum's own bytes
      int stored = d.readInt();
      if (stored != expected) {
        throw new IOException("sketch snapshot checksum mismatch: the file is corrupt");
      }
      sketch.restoreUpdateCount(updates);
      sketch.deriveNoise(derivation);
      return sketch;
    } catch (EOFException e) {
      throw new IOException("sketch snapshot is truncated", e);
    } catch (IllegalArgumentException e) {
      throw new IOException("corrupt sketch snapshot: " + e.getMessage(), e);
    }
  }

  /** The magic number and a version this build reads; the version. */
  private static int readVersion(DataInputStream d) throws IOException {
    byte[] magic = new byte[MAGIC.length];
    d.readFully(magic);
    if (!java.util.Arrays.equals(magic, MAGIC)) {
      throw new IOException("not a dplrf sketch snapshot (bad magic number)");
    }
    int version = d.readInt();
    if (version < VERSION_ONE_STREAM || version > VERSION) {
      throw new IOException("unsupported sketch snapshot version " + version
          + " (this build reads " + VERSION_ONE_STREAM + " to " + VERSION + ")");
    }
    return version;
  }

  /**
   * Checks that {@code in} holds exactly one whole, uncorrupted sketch in this format — magic, a
   * known version, every field up to the checksum, the checksum, and nothing after it — without
   * building the sketch: no matrix is generated, no array allocated, so a damaged size field
   * cannot cost memory. Reads {@code in} to its end. For integrity checks of stored nodes.
   *
   * @return the sketch's node label (its own randomness: which node of which stream it is)
   * @throws IOException naming the problem (bad magic, unknown version, truncated, checksum
   *     mismatch), without the file: the caller knows it
   */
  public static String verify(InputStream in) throws IOException {
    CRC32C crc = new CRC32C();
    DataInputStream d =
        new DataInputStream(new CheckedInputStream(new BufferedInputStream(in, 1 << 16), crc));
    try {
      String node = readLabel(d);
      d.readFully(new byte[5 * 4 + 3 * 8]); // m, n, k, t, v; epsilon, delta, clip
      skipArray(d, 64); // plan
      d.readLong(); // updates
      int count = d.readInt();
      if (count < 0 || count > 64) {
        throw new IOException("corrupt sketch snapshot: " + count + " arrays");
      }
      for (int a = 0; a < count; a++) {
        skipArray(d, Integer.MAX_VALUE);
      }
      int expected = (int) crc.getValue(); // before the stored checksum's own bytes
      if (d.readInt() != expected) {
        throw new IOException("sketch snapshot checksum mismatch: the file is corrupt");
      }
      if (d.read() >= 0) {
        throw new IOException("bytes after the sketch snapshot's checksum");
      }
      return node;
    } catch (EOFException e) {
      throw new IOException("sketch snapshot is truncated", e);
    }
  }

  /**
   * The node label in the header of {@code in}, read without the rest of the sketch and without
   * its checksum (which covers the whole file): a cheap check of which node, epoch and role a file
   * holds ({@link #verify} reads and checks all of it).
   *
   * @throws IOException on a bad magic number, an unknown version or a truncated header
   */
  public static String label(InputStream in) throws IOException {
    DataInputStream d = new DataInputStream(new BufferedInputStream(in, 512));
    try {
      return readLabel(d);
    } catch (EOFException e) {
      throw new IOException("sketch snapshot is truncated", e);
    }
  }

  /** Reads the header from the magic number through the node label; returns the label. */
  private static String readLabel(DataInputStream d) throws IOException {
    int version = readVersion(d);
    d.readByte(); // mechanism
    d.readByte(); // noiseless
    if (version != VERSION_ONE_STREAM) {
      d.readInt(); // noiseChunk
    }
    if (version >= VERSION) {
      d.readByte(); // sampler
    }
    d.readUTF(); // key fingerprint
    d.readUTF(); // instance
    return d.readUTF();
  }

  /** Reads past one array of at most {@code max} numbers, through the checksum. */
  private static void skipArray(DataInputStream d, int max) throws IOException {
    int length = d.readInt();
    if (length < 0 || length > max) {
      throw new IOException("corrupt sketch snapshot: array length " + length);
    }
    byte[] scratch = new byte[1 << 16];
    for (long left = 8L * length; left > 0; ) { // read, not skipped: the checksum covers them
      int n = (int) Math.min(scratch.length, left);
      d.readFully(scratch, 0, n);
      left -= n;
    }
  }

  private static NoisyLinearSketch build(int mechanism, boolean noiseless, SecretKey key,
      String instance, String node, int m, int n, int k, int t, int v, PrivacyParams privacy,
      double clip, double[] p, boolean cache, RobustMatrices shared, Priv2Matrices sharedPriv2)
      throws IOException {
    switch (mechanism) {
      case 1 -> {
        expect(p, 16);
        SketchSizes sz = new SketchSizes(m, n, k, t, v);
        Priv1Plan plan = new Priv1Plan(privacy, clip, sz, p[0], p[1], p[2], p[3], p[4], p[5], p[6],
            p[7], noise("Yr", p, 8), noise("Z", p, 12));
        return Priv1Sketch.restore(plan, Priv1Matrices.generate(key, instance, sz, cache), key,
            node, noiseless);
      }
      case 2 -> {
        expect(p, 11);
        SketchSizes sz = new SketchSizes(m, n, k, t, v);
        Priv2Plan plan = new Priv2Plan(privacy, clip, sz, p[0], p[1], p[2], noise("Y", p, 3),
            noise("Z", p, 7), 0);
        return Priv2Sketch.restore(plan, priv2(sharedPriv2, key, instance, sz, cache, 0), key,
            node, noiseless);
      }
      case 4 -> {
        expect(p, 12);
        SketchSizes sz = new SketchSizes(m, n, k, t, v);
        int sparsity = (int) p[11];
        if (sparsity != p[11] || sparsity < 1 || sparsity > t) {
          throw new IOException("corrupt sketch snapshot: sparsity " + p[11]);
        }
        Priv2Plan plan;
        try {
          plan = new Priv2Plan(privacy, clip, sz, p[0], p[1], p[2], noise("Y", p, 3),
              noise("Z", p, 7), sparsity);
        } catch (IllegalArgumentException e) {
          throw new IOException("corrupt sketch snapshot: " + e.getMessage(), e);
        }
        return Priv2Sketch.restore(plan, priv2(sharedPriv2, key, instance, sz, cache, sparsity),
            key, node, noiseless);
      }
      case 5, 6 -> {
        boolean pca = mechanism == 6;
        expect(p, pca ? 17 : 22);
        double stableClip = p[p.length - 1];
        SketchSizes sz = new SketchSizes(m, n, k, t, v);
        RobustPlan plan;
        RobustMatrices mats;
        try {
          plan = new RobustPlan(privacy, clip, sz, p[0], pca, (int) p[1], (long) p[2], p[3], p[4],
              p[5], stableClip, laplace("Yr", p, 6), pca ? null : laplace("Yc", p, 11),
              laplace("Z", p, pca ? 11 : 16));
          mats = shared != null && shared.instance().equals(instance) && shared.sizes().equals(sz)
              && shared.p() == p[0] && shared.pca() == pca && shared.stableClip() == stableClip
              ? shared : RobustMatrices.generate(key, instance, sz, p[0], pca, stableClip);
          return RobustSketch.restore(plan, mats, key, node, noiseless);
        } catch (IllegalArgumentException e) {
          throw new IOException("corrupt sketch snapshot: " + e.getMessage(), e);
        }
      }
      case 3 -> {
        expect(p, 4);
        return DenseInputPerturbation.create(
            new DensePlan(privacy, clip, m, n, noise("A+N", p, 0)), key, node);
      }
      default -> throw new IOException("unknown mechanism code " + mechanism + " in sketch snapshot");
    }
  }

  /** {@code shared} if it is the instance's matrices of these sizes and sparsity, else new ones. */
  private static Priv2Matrices priv2(Priv2Matrices shared, SecretKey key, String instance,
      SketchSizes sz, boolean cache, int sparsity) {
    return shared != null && shared.instance.equals(instance) && shared.sizes.equals(sz)
        && shared.sparsity == sparsity
        ? shared : Priv2Matrices.generate(key, instance, sz, cache, sparsity);
  }

  private static double[] noise(GaussianSketchNoise g) {
    return new double[] {g.baseSensitivity(), g.changedCoordinates(), g.mu(), g.sigma()};
  }

  /** Rebuilds a noise part on exactly the stored grid; refuses if the grid does not round-trip. */
  private static GaussianSketchNoise noise(String name, double[] p, int at) throws IOException {
    GridGaussian grid = GridGaussian.atLeast(p[at + 3]);
    if (grid.effectiveSigma() != p[at + 3]) {
      throw new IOException("corrupt sketch snapshot: noise scale of " + name + " is not on its grid");
    }
    return new GaussianSketchNoise(name, p[at], (long) p[at + 1], p[at + 2], grid);
  }

  private static double[] laplace(LaplaceSketchNoise g) {
    return new double[] {g.l1Sensitivity(), g.entries(), g.roundedNodes(), g.epsilon(), g.scale()};
  }

  /** Rebuilds a Laplace part on exactly the stored grid; refuses if the grid does not round-trip. */
  private static LaplaceSketchNoise laplace(String name, double[] p, int at) throws IOException {
    GridLaplace grid = GridLaplace.atLeast(p[at + 4]);
    if (grid.effectiveScale() != p[at + 4]) {
      throw new IOException("corrupt sketch snapshot: noise scale of " + name + " is not on its grid");
    }
    return new LaplaceSketchNoise(name, p[at], (long) p[at + 1], (long) p[at + 2], p[at + 3], grid);
  }

  private static void expect(double[] plan, int length) throws IOException {
    if (plan.length != length) {
      throw new IOException("corrupt sketch snapshot: plan has " + plan.length + " numbers, expected " + length);
    }
  }

  private static double[] concat(double[]... parts) {
    int len = 0;
    for (double[] p : parts) {
      len += p.length;
    }
    double[] out = new double[len];
    int at = 0;
    for (double[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  private static void writeArray(DataOutputStream d, double[] a) throws IOException {
    d.writeInt(a.length);
    byte[] buf = new byte[8 * Math.min(a.length, 8192)];
    java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(buf);
    for (int off = 0; off < a.length; off += 8192) {
      int len = Math.min(8192, a.length - off);
      bb.clear();
      bb.asDoubleBuffer().put(a, off, len);
      d.write(buf, 0, 8 * len);
    }
  }

  private static double[] readArray(DataInputStream d, int max) throws IOException {
    int length = d.readInt();
    if (length < 0 || length > max) {
      throw new IOException("corrupt sketch snapshot: array length " + length);
    }
    double[] a = new double[length];
    readInto(d, a);
    return a;
  }

  /** Reads {@code a.length} big-endian doubles into {@code a}. */
  private static void readInto(DataInputStream d, double[] a) throws IOException {
    byte[] buf = new byte[8 * Math.min(Math.max(a.length, 1), 8192)];
    java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(buf);
    for (int off = 0; off < a.length; off += 8192) {
      int len = Math.min(8192, a.length - off);
      d.readFully(buf, 0, 8 * len);
      bb.clear();
      bb.asDoubleBuffer().get(a, off, len);
    }
  }
}
