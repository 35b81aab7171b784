package io.dplrf.sketch.continual;

import static io.dplrf.sketch.params.Preconditions.check;

import io.dplrf.sketch.factorization.BltDecoder;
import io.dplrf.sketch.factorization.BltEncoder;
import io.dplrf.sketch.factorization.BltOptimizer;
import io.dplrf.sketch.factorization.BltParameters;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.lra.NoiseDerivation;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.lra.NoiseWorkers;
import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.lra.Priv2Matrices;
import io.dplrf.sketch.lra.Priv2Sketch;
import io.dplrf.sketch.lra.Priv2Sketches;
import io.dplrf.sketch.lra.SketchCodec;
import io.dplrf.sketch.noise.GaussianSampler;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.files.DamagedFileException;
import io.dplrf.sketch.files.ReleasedMark;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;

/**
 * Continual release of the Priv2 sketches through a buffered linear Toeplitz (BLT) factorization
 * A = B·C of the prefix-sum matrix, instead of the binary tree (docs/privacy/blt-release.md, the
 * specification of this class; the factorization math is {@code io.dplrf.sketch.factorization}).
 * Epochs 1..T, T fixed at the start; after epoch t it releases R_t, a noisy sketch of the updates
 * of epochs [1, t], with per-entry noise σ²·Σ_{k&lt;t} b_k² (10.74 one-shot σ² at T = 1024 with
 * d = 3 buffers, against 110 for the tree).
 *
 * <p><b>Updates</b> go to one noiseless Priv2 accumulator, the epoch's sketch x_t = (Y_t, Z_t)
 * (exactly the tree's leaf): O(s) per update for priv2-sparse, O(t + v) for priv2, independent of
 * T and d.
 *
 * <p><b>Closing epoch t</b> (blt-release.md §1), for every entry of Y_t and Z_t, element-wise:
 *
 * <ol>
 *   <li>encode (secret): c_t = x_t + Σ_i ω_i S^x_i, then S^x_i ← θ_i S^x_i + x_t ({@link
 *       BltEncoder});
 *   <li>noise (released): ŷ_t = round_γ(c_t) + γ·N_t, N_t ~ N_ℤ(0, s²) exact, chunk c of part
 *       {@code N1} (Y) or {@code N2} (Z) drawn from the key stream labelled {@code
 *       <instance>/blt/<t>/<part>/chunk/<c>} by the stream's {@link NoiseDerivation} sampler;
 *   <li>decode (public): v_t = ŷ_t − Σ_i ω_i S^v_i, then S^v_i ← θ_i S^v_i + v_t; R_t = R_{t−1} +
 *       v_t ({@link BltDecoder}).
 * </ol>
 *
 * The three steps run chunk by chunk (the derivation's 2^16 entries, the noise's chunks) on every
 * core ({@link NoiseWorkers}), in place in the accumulator's arrays; every entry's result is a
 * function of its own history, so threads and chunk order do not change it. Chunks number the
 * entries of each part in the accumulator's layout: Y row-major (m×t), Z transposed, Zᵀ row-major
 * (n×v); the buffers, R and the state files use the same layout, and a release transposes back.
 * Then R_t = P_t + (B(e + γN))_t: the exact prefix P_t plus the decoder applied to the rounding e
 * and the noise, a function of the released ŷ_1..ŷ_t and public parameters (post-processing).
 *
 * <p><b>Noise lifetime, snapshots and restarts</b> (blt-release.md §5). N_t is a function of
 * (key, instance, t, part, chunk), drawn at the close of epoch t. A close writes, crash-safely,
 * the encoder and decoder buffers after epoch t and R_t ({@code SketchCodec} files in the state
 * directory, {@code BltFiles}) before {@link #epochsClosed} advances; the caller then writes the
 * snapshot that names them ({@link #writeTo} or {@link #writeClosedState}, {@code BltCodec}) and
 * makes it durable before it releases epoch t (the ingest loop's order: close, snapshot,
 * release). The stream enforces what it can see of that order: {@link #releasePrefix} and {@link
 * #releaseRange} serve only epochs that a written snapshot names ({@link #epochsSnapshotted}), so
 * the files of a close are never served before a snapshot names them. It sees the snapshot
 * written to its stream, not made durable (fsync, rename): the durability gate is the caller's
 * (the service releases an epoch only once the loop reports its snapshot durable,
 * {@code TreeTarget.releasable}). A crash before the snapshot
 * is durable restores epoch t − 1's state; epoch t is consumed and closed again, with the same
 * N_t but possibly other updates (an epoch-seconds boundary, the interleaving of partitions), and
 * overwrites the files of the first close, which nothing has served.
 *
 * <p><b>The released-epoch guard.</b> Restoring a snapshot older than an epoch already released
 * would draw that epoch's N_t again on possibly other data: a second view under the same noise.
 * So the stream writes the guard {@link #RELEASED_FILE} ({@link ReleasedMark}: checksummed, bound
 * to the instance) with epoch 0 before its first state file, and the first release of epoch e
 * durably records e in it, outside every snapshot, before it returns. A restore refuses a
 * snapshot with fewer epochs closed than the guard, state files without a guard, and state files
 * of an epoch after the snapshot's next ({@link ReleasedMark#requireRestorable}). Once e is
 * marked, no restore can use the buffers of an
 * earlier epoch, and they are deleted; a close also deletes the buffers of epoch t − 2 (the
 * caller has made epoch t − 1's snapshot durable before closing epoch t). After epoch T no buffer
 * is needed: the last close writes only R_T and drops the buffers from memory, and the release of
 * epoch T deletes the last buffer files, so no encoder state outlives the stream. Every R_t is
 * kept (public): ranges are R_e − R_{s−1}, R_0 = 0 (§6). Every state file says in its own
 * checksummed header which stream, role and epoch it holds (its {@code SketchCodec} label:
 * {@link #releaseLabel}, {@link #encoderLabel}, {@link #decoderLabel}); a release refuses an R_t
 * whose label is not epoch t's or whose checksum fails, naming the file ({@link
 * DamagedFileException}), and so does a restore for every file its snapshot names: nothing is
 * released from, or computed again for, a damaged file (blt-release.md §5). {@code instance} must be unique per
 * stream under a key (two streams with one instance would share their noise): a new stream
 * refuses a directory that holds BLT files.
 *
 * <p><b>Memory</b>: 2d + 2 sketch-sized arrays — d encoder buffers (secret), d decoder buffers, R
 * (public) and the accumulator (secret: the epoch's raw updates) — plus the sketching matrices.
 * At m = n = 10⁵, t = 100, v = 400 one array is 8·(m·t + v·n) bytes = 400 MB, so 3.2 GB with
 * d = 3 (T ≤ 2^12, e.g. T = 1024) and 4.8 GB with d = 5 (T &gt; 2^16); one more accumulator
 * (400 MB) while a pipelined close runs. Each state sketch also carries an idle update buffer of
 * 0.5 MB. On disk: the 2d buffer files of the last close and, until epoch t is released or
 * epoch t + 1 closes, of the one before (two generations), and every R_t, 400 MB each.
 *
 * <p><b>Work per epoch</b>: per entry, O(d) to encode and to decode, one rounding and one exact
 * discrete Gaussian sample. Measured CPU per entry on one core of the 2-core development host (a
 * scratch program over 10⁷ entries in chunks of 2^16): encode 4 ns, round 1.6, noise 20, decode
 * 6, 32 ns in all at d = 3 (38 at d = 5), so 1.6 CPU-s per epoch for the 5·10⁷ entries above,
 * shared by every core; then 2d + 1 files of 400 MB are written and fsynced (7 at d = 3). A
 * release draws no noise: it reads one R file (a range, two). Per update: as the accumulator,
 * independent of T and d.
 *
 * <p><b>Pipelined close</b> ({@link #beginClose}, {@link #finishClose}): the epoch's accumulator
 * is set aside and an empty one takes its place, so updates of the next epoch continue while
 * another thread encodes, noises, decodes and writes the closing one; the same state, files and
 * releases as {@link #closeEpoch}.
 *
 * <p><b>A failed close.</b> A state file that cannot be written leaves the close's state in
 * memory and the epoch not closed: the same close, called again, writes the files and never
 * recomputes ({@link #close}); the ingest loop retries it until the disk takes it. Any other
 * failure makes the stream refuse further use; the caller restores its last snapshot.
 *
 * <p>Thread-safety: one thread owns the stream ({@link #update}, {@link #closeEpoch}, {@link
 * #beginClose}, snapshots); {@link #finishClose} of a begun close may run on one other thread
 * while the owner goes on updating. Releases run on any thread: they read the stored R files,
 * which never change once a snapshot names them, never the buffers a close is writing, and the
 * first release of an epoch writes the released-epoch mark under the stream's lock.
 */
public final class BltStream {
  static final String EXHAUSTED = "all T epochs are closed; the privacy budget is spent";
  /** The released-epoch mark's file in the state directory (not a snapshot's: §5). */
  static final String RELEASED_FILE = BltFiles.PREFIX + "released.mark";
  /** Noise part names (the Priv2 sketches' own: N1 is Y's noise, N2 is Z's). */
  static final String[] PARTS = {"N1", "N2"};

  final BltConfig config;
  final SecretKey key;
  final String instance;
  final BltPlan plan;
  final NoiseDerivation derivation;
  /** Φ and S of the instance: the accumulator's, and shared by every state sketch. */
  final Priv2Matrices mats;
  final BltFiles files;
  /** No buffers: the state after epoch T, when nothing is encoded or decoded any more. */
  private static final Priv2Sketch[] NO_BUFFERS = {};
  /** The names of {@link #encoderFile} and {@link #decoderFile}; group 1 is the epoch. */
  private static final Pattern BUFFER_FILE = Pattern.compile(
      Pattern.quote(BltFiles.PREFIX) + "(?:encoder|decoder)-(\\d{1,10})-\\d{1,10}\\.sketch");
  /** The names of every state file: buffers and {@link #releaseFile}; group 1 is the epoch. */
  private static final Pattern STATE_FILE = Pattern.compile(Pattern.quote(BltFiles.PREFIX)
      + "(?:(?:encoder|decoder)-(\\d{1,10})-\\d{1,10}|release-(\\d{1,10}))\\.sketch");

  /** The current epoch's updates (secret: raw data); null after epoch T has ended. */
  Priv2Sketch accumulator;
  /** Pipelined close: the emptied (all-zero) accumulator of the last finished close, or null. */
  volatile Priv2Sketch spare;
  private volatile PendingBltClose pending;
  /**
   * S^x_i: d noiseless sketches holding the encoder buffers (secret: sums of the data); none
   * after epoch T.
   */
  volatile Priv2Sketch[] encoder;
  /** S^v_i: the decoder buffers (public); none after epoch T. */
  volatile Priv2Sketch[] decoder;
  /** R_{epochsClosed} (public); null after epoch T (releases read the R files). */
  volatile Priv2Sketch release;
  /** Epochs whose ŷ is drawn and whose state files are written. */
  volatile int epochsClosed;
  /** Epochs closed as named by the last snapshot written, or the one restored: releasable. */
  private volatile int epochsSnapshotted;
  /**
   * The released-epoch guard: the last epoch any release has covered, durable in its file; −1
   * until the guard file is written (before the first state file).
   */
  private volatile int epochsReleased;
  /** Test seam: sees ŷ_t at every close; null in production. */
  volatile EncodedTap encodedTap;
  /** Epochs closed plus a pipelined close begun; written by the owner's thread only. */
  int epochsEnded;
  /** The state files of epoch {@link #epochsClosed} ({@link #stateFileNames}); none before 1. */
  volatile List<BltFiles.Written> stateFiles;
  /**
   * The CRC32C of every R_t written, t = 1..{@link #epochsClosed} (index t − 1), recorded by every
   * snapshot: a file's label binds it to its epoch, this to the close the snapshot holds, so that
   * an R_t of a close a crash undid (same label and length, possibly other data under the same
   * noise) is never served, even put back from a backup (docs/privacy/recovery.md §5).
   */
  volatile int[] releaseCrcs;
  /**
   * The epoch whose steps 1–3 are done in memory, its state files possibly not yet written: a
   * close retried after a failed write skips them ({@link #close}).
   */
  private volatile int computedEpoch;
  /** Why the stream refuses further use after a close failed other than on a write, or null. */
  private volatile String broken;

  BltStream(BltConfig config, SecretKey key, String instance, BltPlan plan,
      NoiseDerivation derivation, Priv2Matrices mats, BltFiles files, Priv2Sketch accumulator,
      Priv2Sketch[] encoder, Priv2Sketch[] decoder, Priv2Sketch release, int epochsClosed,
      List<BltFiles.Written> stateFiles, int[] releaseCrcs, int epochsReleased) {
    this.config = config;
    this.key = key;
    this.instance = instance;
    this.plan = plan;
    this.derivation = derivation;
    this.mats = mats;
    this.files = files;
    this.accumulator = accumulator;
    this.encoder = encoder;
    this.decoder = decoder;
    this.release = release;
    this.epochsClosed = epochsClosed;
    this.epochsEnded = epochsClosed;
    // A new stream has no epoch to release; a restored one was read from a snapshot.
    this.epochsSnapshotted = epochsClosed;
    this.epochsReleased = epochsReleased;
    this.stateFiles = List.copyOf(stateFiles);
    this.releaseCrcs = releaseCrcs.clone();
  }

  /** What a test may observe of a close: the released encoded stream ŷ_t. */
  @FunctionalInterface
  interface EncodedTap {
    /** {@code yHat} = {Y, Zᵀ} in the accumulator's layout; live arrays, emptied afterwards. */
    void encoded(int t, double[][] yHat);
  }

  /**
   * A new stream whose state files are written to {@code dir} (created if needed, owner-only),
   * with the BLT parameters {@link BltOptimizer#optimize}(T) (public) and the noise of {@link
   * BltPlan}.
   *
   * @throws IOException if {@code dir} already holds BLT files, which could belong to a stream
   *     whose noise this one would share
   */
  public static BltStream create(BltConfig config, SecretKey key, String instance, Path dir)
      throws IOException {
    return create(config, key, instance, BltFiles.directory(dir),
        BltOptimizer.optimize(config.epochs()));
  }

  /** A new stream on {@code files} with the given (validated) BLT parameters. */
  static BltStream create(BltConfig config, SecretKey key, String instance, BltFiles files,
      BltParameters parameters) throws IOException {
    check(instance != null && !instance.isEmpty(), "instance", "a non-empty label", instance);
    if (files.holdsStreamFiles()) {
      throw new IOException("the state store already holds BLT files; a new stream needs an "
          + "empty one");
    }
    Priv2Matrices mats = Priv2Matrices.generate(key, instance, config.sizes(),
        config.cacheUpdateColumns(), config.sparsity());
    BltPlan plan = BltPlan.calibrate(config, parameters, mats);
    int d = parameters.buffers();
    Priv2Sketch[] enc = new Priv2Sketch[d];
    Priv2Sketch[] dec = new Priv2Sketch[d];
    for (int i = 0; i < d; i++) {
      enc[i] = stateSketch(plan, mats, key, encoderLabel(instance, 0, i));
      dec[i] = stateSketch(plan, mats, key, decoderLabel(instance, 0, i));
    }
    return new BltStream(config, key, instance, plan, NoiseDerivation.CURRENT, mats, files,
        newAccumulator(plan, mats, key, instance), enc, dec,
        stateSketch(plan, mats, key, releaseLabel(instance, 0)), 0, List.of(), new int[0], -1);
  }

  static Priv2Sketch newAccumulator(BltPlan plan, Priv2Matrices mats, SecretKey key,
      String instance) {
    return stateSketch(plan, mats, key, accumulatorLabel(instance));
  }

  /**
   * A noiseless sketch on the epoch plan: the accumulator, or a holder of encoder, decoder or R
   * arrays. Noiseless, so its label never derives a key stream; the labels name the arrays' role
   * in their {@code SketchCodec} files.
   */
  static Priv2Sketch stateSketch(BltPlan plan, Priv2Matrices mats, SecretKey key, String label) {
    return Priv2Sketch.createWithoutNoise(plan.epochPlan(), mats, key, label);
  }

  static String accumulatorLabel(String instance) {
    return instance + "/accumulator";
  }

  /**
   * The label of encoder buffer i after epoch e, in its file's header: stream, role and epoch, so
   * that a file of another epoch or role under this one's name is refused (a state sketch is
   * noiseless: its label derives no noise).
   */
  static String encoderLabel(String instance, int e, int i) {
    return instance + "/blt/encoder/" + epoch(e) + "/" + i;
  }

  static String decoderLabel(String instance, int e, int i) {
    return instance + "/blt/decoder/" + epoch(e) + "/" + i;
  }

  /**
   * The label of R_t in its file's header ({@link #encoderLabel}). The epoch has a fixed width, so
   * every R file of a stream has the same length: the snapshot's record of R_e's length checks
   * every other R cheaply ({@link #verifyRelease}).
   */
  static String releaseLabel(String instance, int t) {
    return instance + "/blt/release/" + epoch(t);
  }

  private static String epoch(int e) {
    return String.format(Locale.ROOT, "%010d", e);
  }

  /** File of encoder buffer i after epoch e. */
  static String encoderFile(int e, int i) {
    return BltFiles.PREFIX + "encoder-" + e + "-" + i + ".sketch";
  }

  static String decoderFile(int e, int i) {
    return BltFiles.PREFIX + "decoder-" + e + "-" + i + ".sketch";
  }

  /** File of R_t. */
  static String releaseFile(int t) {
    return BltFiles.PREFIX + "release-" + t + ".sketch";
  }

  /**
   * The state files a snapshot after epoch e ≥ 1 of a T-epoch stream names: d encoder, d decoder,
   * R_e; after epoch T only R_T (nothing is encoded or decoded after it).
   */
  static List<String> stateFileNames(int e, int d, int epochs) {
    List<String> names = new ArrayList<>(2 * d + 1);
    for (int i = 0; e < epochs && i < d; i++) {
      names.add(encoderFile(e, i));
    }
    for (int i = 0; e < epochs && i < d; i++) {
      names.add(decoderFile(e, i));
    }
    names.add(releaseFile(e));
    return names;
  }

  /**
   * The released-epoch guard of {@code files} (§5): the last epoch released by the stream
   * {@code instance}, 0 if none, −1 if there is no guard file.
   *
   * @throws DamagedFileException naming the guard if it is damaged or another stream's
   */
  static int readReleasedMark(BltFiles files, String instance) throws IOException {
    if (!files.exists(RELEASED_FILE)) {
      return -1;
    }
    try (InputStream in = files.open(RELEASED_FILE)) {
      return ReleasedMark.decode(in, files.fileOf(RELEASED_FILE), instance);
    }
  }

  /**
   * The epoch a state file of this format belongs to ({@link #encoderFile}, {@link
   * #decoderFile}, {@link #releaseFile}), or −1 for any other name.
   */
  static long fileEpoch(String name) {
    Matcher m = STATE_FILE.matcher(name);
    return !m.matches() ? -1 : Long.parseLong(m.group(1) != null ? m.group(1) : m.group(2));
  }

  /** Reads a state file's content; the caller checks what it is. */
  @FunctionalInterface
  interface StateReader<T> {
    T read(InputStream in) throws IOException;
  }

  /**
   * Reads the state file {@code name} to its end through {@code reader}, and checks its length and
   * CRC32C against {@code expected} if given (as {@code recordedBy}, the snapshot, records them).
   *
   * @throws DamagedFileException naming the file and what is wrong: missing, truncated, its own
   *     checksum, its content, or not the file {@code expected} describes
   */
  static <T> T readChecked(BltFiles files, String name, BltFiles.Written expected,
      String recordedBy, StateReader<T> reader) throws DamagedFileException {
    return readChecked(files, name, expected, recordedBy, reader, true);
  }

  /** As above; {@code toTheEnd} false reads only what {@code reader} needs (no expected record). */
  private static <T> T readChecked(BltFiles files, String name, BltFiles.Written expected,
      String recordedBy, StateReader<T> reader, boolean toTheEnd) throws DamagedFileException {
    Path f = files.fileOf(name);
    CRC32C crc = new CRC32C();
    try (BltCodec.CountingInput in =
        new BltCodec.CountingInput(new CheckedInputStream(files.open(name), crc))) {
      T value = reader.read(in);
      if (toTheEnd) {
        in.transferTo(OutputStream.nullOutputStream()); // the checksum covers the whole file
      }
      if (expected != null
          && (in.count != expected.length() || (int) crc.getValue() != expected.crc())) {
        throw new DamagedFileException(f, "not the one " + recordedBy + " ("
            + in.count + " bytes, CRC " + Integer.toHexString((int) crc.getValue())
            + "; expected " + expected.length() + " bytes, CRC "
            + Integer.toHexString(expected.crc()) + ")", null);
      }
      return value;
    } catch (DamagedFileException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw new DamagedFileException(f, String.valueOf(e.getMessage()), e);
    }
  }

  /** R_t's file, as errors and health reasons name it. */
  public Path releasePath(int t) {
    return files.fileOf(releaseFile(t));
  }

  /**
   * Checks R_t's file without decoding it (any thread: the file never changes once a snapshot
   * names epoch t). Cheap ({@code whole} false): it exists, has the length of every R file of
   * this stream (the snapshot records R_e's), and its header says it is R_t of this stream
   * ({@link SketchCodec#label}: a few hundred bytes read). Whole: also every byte, against the
   * format's own checksum and the CRC32C the snapshot records for R_t ({@link #releaseCrcs}).
   *
   * @throws DamagedFileException naming R_t's file and what is wrong
   */
  public void verifyRelease(int t, boolean whole) throws DamagedFileException {
    String name = releaseFile(t);
    String label = releaseLabel(instance, t);
    List<BltFiles.Written> named = stateFiles;
    if (!whole && !named.isEmpty()) {
      long want = named.get(named.size() - 1).length(); // R_e's, as the snapshot records it
      long length;
      try {
        length = files.length(name);
      } catch (IOException e) {
        throw new DamagedFileException(files.fileOf(name), String.valueOf(e.getMessage()), e);
      }
      if (length >= 0 && length != want) {
        throw new DamagedFileException(files.fileOf(name), length + " bytes, but every prefix"
            + " release file of this stream has " + want, null);
      }
    }
    readChecked(files, name, whole ? recordedRelease(t) : null, "the snapshot records", in -> {
      String found = whole ? SketchCodec.verify(in) : SketchCodec.label(in);
      if (!found.equals(label)) {
        throw new IOException("holds " + found + ", expected " + label);
      }
      return null;
    }, whole);
  }

  /** R_t's length and CRC32C as the stream's snapshots record them, or null if not recorded. */
  private BltFiles.Written recordedRelease(int t) {
    int[] crcs = releaseCrcs;
    List<BltFiles.Written> named = stateFiles;
    if (t < 1 || t > crcs.length || named.isEmpty()) {
      return null;
    }
    return new BltFiles.Written(releaseFile(t), named.get(named.size() - 1).length(), crcs[t - 1]);
  }

  /** The epoch of an encoder or decoder buffer file ({@link #encoderFile}), or −1 otherwise. */
  static long bufferFileEpoch(String name) {
    Matcher m = BUFFER_FILE.matcher(name);
    return m.matches() ? Long.parseLong(m.group(1)) : -1;
  }

  /**
   * A[i][j] += Δ in the current epoch.
   *
   * @throws IllegalArgumentException on an index out of range or a non-finite Δ (nothing changes)
   * @throws IllegalStateException once all T epochs have ended, or after a failed close
   */
  public void update(int i, int j, double delta) {
    requireUsable();
    if (exhausted()) {
      throw new IllegalStateException(EXHAUSTED);
    }
    accumulator.update(i, j, delta);
  }

  /** Applies the current epoch's buffered updates to its accumulator now; owner's thread. */
  public void applyBufferedUpdates() {
    if (accumulator != null) {
      accumulator.applyBufferedUpdates();
    }
  }

  /**
   * Ends the current epoch t: encodes, noises and decodes its sketch, writes the state after t
   * and R_t, and empties the accumulator. R_t may be released once a snapshot naming it is written
   * ({@link #writeTo}) and durable. After epoch T the stream refuses more.
   *
   * @throws IllegalStateException once all T epochs have ended, while a pipelined close is
   *     pending, or after a failed close
   * @throws UncheckedIOException if a state file cannot be written; the stream is then unusable
   *     (restore the last snapshot)
   */
  public void closeEpoch() {
    requireUsable();
    if (exhausted()) {
      throw new IllegalStateException(EXHAUSTED);
    }
    requireNoPendingClose();
    int t = epochsClosed + 1;
    close(t, accumulator);
    epochsEnded = t;
    if (t == config.epochs()) {
      accumulator = null; // nothing is applied after epoch T
    }
  }

  /** True: a BLT stream can always close in two steps ({@link #beginClose}). */
  public boolean closesInBackground() {
    return true;
  }

  /**
   * Ends the current epoch now: its accumulator is set aside for {@link #finishClose} and an
   * empty one takes its place, so that {@link #update} goes on with the next epoch. {@link
   * #epochsClosed} stays until the close is finished; {@link #exhausted} counts the epoch. Call
   * {@link #finishClose} (on any one thread) before the next close or snapshot.
   *
   * @throws IllegalStateException once all T epochs have ended, while a close is pending, or
   *     after a failed close
   */
  public PendingBltClose beginClose() {
    requireUsable();
    if (exhausted()) {
      throw new IllegalStateException(EXHAUSTED);
    }
    requireNoPendingClose();
    PendingBltClose p = new PendingBltClose(epochsClosed + 1, accumulator);
    Priv2Sketch idle = spare;
    accumulator = p.epoch() == config.epochs() ? null // nothing is applied after epoch T
        : idle != null ? idle : newAccumulator(plan, mats, key, instance);
    spare = null;
    pending = p;
    epochsEnded = p.epoch();
    return p;
  }

  /**
   * Encodes, noises, decodes and writes a begun close (the heavy part), then installs it: {@link
   * #epochsClosed} advances. The emptied accumulator is kept as the spare of the close after the
   * next (none if that epoch would be beyond T). May run on another thread than the owner's,
   * concurrently with {@link #update}: it touches only the set-aside accumulator, the buffers
   * and R, which the owner does not.
   *
   * @throws UncheckedIOException if a state file cannot be written; the stream is then unusable
   */
  public void finishClose(PendingBltClose p) {
    if (p != pending || p.finished()) {
      throw new IllegalStateException("not the pending close: " + p);
    }
    close(p.epoch(), p.epochData());
    p.finish();
    spare = p.epoch() + 2 <= config.epochs() ? p.epochData() : null;
    pending = null;
  }

  /**
   * §1 steps 1–3 for epoch t on {@code epoch}'s data, the state files, then the install; then
   * the buffer files of epoch t − 2 go (the snapshot after t − 1 is durable: the caller's order).
   * Epoch t − 1's stay until epoch t is released: a crash before its snapshot is durable restores
   * the one after t − 1, which needs them.
   *
   * <p>A state file that cannot be written (disk full, an I/O error) leaves steps 1–3 done in
   * memory and the epoch not closed. The same call again ({@link #closeEpoch}, or {@link
   * #finishClose} of the same pending close: the ingest loop retries it) writes the files of that
   * state and never repeats steps 1–3, which would encode the noisy ŷ_t again and add z_t twice.
   * Every write replaces its file whole and every delete is idempotent, so a retry leaves what one
   * successful attempt would. Any other failure makes the stream unusable.
   */
  private void close(int t, Priv2Sketch epoch) {
    if (computedEpoch != t) {
      try { // steps 1–3 change the buffers in place: a failure midway cannot be retried
        encodeNoiseDecode(t, epoch);
        EncodedTap tap = encodedTap;
        if (tap != null) {
          tap.encoded(t, epoch.noiselessState());
        }
        epoch.reset();
      } catch (RuntimeException | Error e) {
        broken = "the close of epoch " + t + " failed while encoding: " + e;
        throw e;
      }
      computedEpoch = t;
    }
    try {
      boolean last = t == config.epochs();
      List<BltFiles.Written> written = new ArrayList<>();
      List<String> names = stateFileNames(t, encoder.length, config.epochs());
      int f = 0;
      if (epochsReleased < 0) { // the guard comes before the stream's first state file
        writeReleasedMark(0);
      }
      for (int i = 0; !last && i < encoder.length; i++) {
        written.add(store(names.get(f++), encoder[i], encoderLabel(instance, t, i)));
      }
      for (int i = 0; !last && i < decoder.length; i++) {
        written.add(store(names.get(f++), decoder[i], decoderLabel(instance, t, i)));
      }
      BltFiles.Written r = store(names.get(f), release, releaseLabel(instance, t));
      written.add(r);
      int[] crcs = Arrays.copyOf(releaseCrcs, t);
      crcs[t - 1] = r.crc();
      deleteBuffersBefore(files, t - 1);
      if (last) { // no epoch is encoded or decoded after T: the secret buffers leave memory
        encoder = NO_BUFFERS;
        decoder = NO_BUFFERS;
        release = null;
      }
      stateFiles = List.copyOf(written);
      releaseCrcs = crcs;
      epochsClosed = t;
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a write or a delete: retried by the same call
    } catch (UncheckedIOException e) {
      throw e;
    } catch (RuntimeException | Error e) {
      broken = "the close of epoch " + t + " failed: " + e;
      throw e;
    }
  }

  /** Writes a state sketch to {@code name} with {@code label} (its stream, role and epoch). */
  private BltFiles.Written store(String name, Priv2Sketch sketch, String label) {
    return files.put(name, out -> SketchCodec.write(sketch, out, label));
  }

  /**
   * Steps 1–3 of blt-release.md §1 for every entry of x_t = {@code epoch}'s arrays, in place, one
   * task per noise chunk: afterwards the buffers and R hold the state after epoch t, and
   * {@code epoch}'s arrays hold ŷ_t.
   */
  private void encodeNoiseDecode(int t, Priv2Sketch epoch) {
    int chunk = derivation.chunk();
    GaussianSampler sampler = derivation.sampler();
    BltParameters p = plan.parameters();
    double[][] x = epoch.noiselessState();
    GaussianSketchNoise[] noise = {plan.yNoise(), plan.zNoise()};
    BltEncoder[] enc = new BltEncoder[2];
    BltDecoder[] dec = new BltDecoder[2];
    for (int part = 0; part < 2; part++) {
      double[][] s = new double[encoder.length][];
      double[][] v = new double[decoder.length][];
      for (int i = 0; i < encoder.length; i++) {
        s[i] = encoder[i].noiselessState()[part];
        v[i] = decoder[i].noiselessState()[part];
      }
      enc[part] = new BltEncoder(p, s);
      dec[part] = new BltDecoder(p, v, release.noiselessState()[part]);
    }
    int yChunks = chunks(x[0].length, chunk);
    int tasks = yChunks + chunks(x[1].length, chunk);
    NoiseWorkers.run(tasks, Runtime.getRuntime().availableProcessors(), task -> {
      int part = task < yChunks ? 0 : 1;
      int c = part == 0 ? task : task - yChunks;
      double[] a = x[part];
      int from = c * chunk;
      int to = Math.min(a.length, from + chunk);
      GridGaussian grid = noise[part].grid();
      enc[part].step(a, a, from, to); // 1. c_t
      GridGaussian.roundToGrid(a, from, to, grid.gamma()); // 2. round_γ(c_t)
      grid.addTo(sampler, KeyStream.of(key, noiseLabel(instance, t, PARTS[part], c)).bits(), a,
          from, to - from); // + γ·N_t = ŷ_t
      dec[part].step(a, from, to); // 3. v_t, R_t
    });
  }

  private static int chunks(int length, int chunk) {
    return (length + chunk - 1) / chunk;
  }

  /** The key-stream label of chunk c of part N1 or N2 of epoch t's noise (blt-release.md §1, §5). */
  static String noiseLabel(String instance, int t, String part, int c) {
    return instance + "/blt/" + t + "/" + part + "/chunk/" + c;
  }

  private void requireNoPendingClose() {
    if (pending != null) {
      throw new IllegalStateException("epoch " + pending.epoch() + " is still closing");
    }
  }

  private void requireUsable() {
    if (broken != null) {
      throw new IllegalStateException(broken + "; restore the last snapshot");
    }
  }

  public int epochs() {
    return config.epochs();
  }

  /**
   * Epochs whose ŷ is drawn and whose R_t is written; released only once a written snapshot
   * names them ({@link #epochsSnapshotted}).
   */
  public int epochsClosed() {
    return epochsClosed;
  }

  /**
   * Epochs named by the last snapshot written ({@link #writeTo}, {@link #writeClosedState}), or by
   * the snapshot this stream was restored from: the epochs {@link #releasePrefix} and {@link
   * #releaseRange} serve (a caller checks a request against it rather than {@link
   * #epochsClosed}). Any thread.
   */
  public int epochsSnapshotted() {
    return epochsSnapshotted;
  }

  /**
   * The released-epoch guard (§5): the last epoch a release has covered, 0 if none, −1 before
   * the guard file is written.
   */
  int epochsReleased() {
    return epochsReleased;
  }

  /**
   * Before the first release covering epoch e: records e durably in {@link #RELEASED_FILE} (a
   * restore then refuses every snapshot of fewer epochs), then deletes the buffer files of the
   * epochs before e, which no restore may use any more. The service calls it once the snapshot
   * of e is durable, before releasing; every release calls it too. Idempotent; any thread.
   *
   * @throws IllegalArgumentException unless e ≤ the epochs a written snapshot names
   * @throws UncheckedIOException if the guard cannot be written or a buffer file deleted (a
   *     retry writes what is missing)
   */
  public void markReleased(int e) {
    check(e <= epochsSnapshotted, "released epoch", "at most " + epochsSnapshotted
        + " (epochs named by a snapshot)", e);
    if (e <= epochsReleased) {
      return;
    }
    synchronized (this) {
      if (e <= epochsReleased) {
        return;
      }
      writeReleasedMark(e);
      try {
        deleteBuffersBefore(files, e);
      } catch (IOException x) {
        throw new UncheckedIOException(x);
      }
    }
  }

  /** Writes the guard ({@link ReleasedMark}) with epoch {@code e}, durably, and records it. */
  private synchronized void writeReleasedMark(int e) {
    byte[] bytes = ReleasedMark.encode(instance, e);
    files.put(RELEASED_FILE, out -> out.write(bytes));
    epochsReleased = e;
  }

  /** Deletes every encoder and decoder buffer file of an epoch before {@code epoch}. */
  static void deleteBuffersBefore(BltFiles files, int epoch) throws IOException {
    for (String name : files.names()) {
      long e = bufferFileEpoch(name);
      if (e >= 0 && e < epoch) {
        files.delete(name);
      }
    }
  }

  /** Epochs closed plus a pipelined close begun and not finished (owner's thread). */
  public int epochsEnded() {
    return epochsEnded;
  }

  /** True once all T epochs have ended (closed, or a pipelined close begun for the last). */
  public boolean exhausted() {
    return epochsEnded == config.epochs();
  }

  /**
   * R_t: the noisy sketch of the updates of epochs [1, t], read from its file, with the noise
   * {@link BltPlan#prefixNoise}(t). Post-processing of released values; any number of calls cost
   * no further privacy. Any thread.
   *
   * @throws IllegalArgumentException unless 1 ≤ t ≤ the epochs a written snapshot names
   * @throws UncheckedIOException if the file cannot be read back, or the released-epoch mark
   *     cannot be written
   */
  public Priv2Sketches releasePrefix(int t) {
    int named = epochsSnapshotted;
    check(t >= 1 && t <= named, "release prefix", "in [1, " + named
        + "] (epochs closed and named by a snapshot)", t);
    markReleased(t);
    return withNoise(storedRelease(t), plan.prefixNoise(t));
  }

  /**
   * R_e − R_{s−1} (R_0 = 0): the noisy sketch of the updates of epochs [s, e], with the noise
   * {@link BltPlan#rangeNoise}(s, e) (blt-release.md §6). Post-processing; any thread.
   *
   * @throws IllegalArgumentException unless 1 ≤ s ≤ e ≤ the epochs a written snapshot names
   * @throws UncheckedIOException if a file cannot be read back, or the released-epoch mark
   *     cannot be written
   */
  public Priv2Sketches releaseRange(int s, int e) {
    int named = epochsSnapshotted;
    check(s >= 1 && s <= e && e <= named, "release range", "1 <= from <= to <= "
        + named + " (epochs closed and named by a snapshot)", "[" + s + ", " + e + "]");
    markReleased(e);
    Priv2Sketches hi = storedRelease(e);
    if (s > 1) {
      Priv2Sketches lo = storedRelease(s - 1);
      subtract(hi.y().data(), lo.y().data());
      subtract(hi.z().data(), lo.z().data());
    }
    return withNoise(hi, plan.rangeNoise(s, e));
  }

  private static void subtract(double[] a, double[] b) {
    for (int i = 0; i < a.length; i++) {
      a[i] -= b[i];
    }
  }

  private static Priv2Sketches withNoise(Priv2Sketches r, List<NoiseScale> noise) {
    return new Priv2Sketches(r.m(), r.n(), r.y(), r.z(), r.s(), noise);
  }

  /**
   * R_t as stored: Y and Z in the release layout (Z v×n), noise scales still zero; checked
   * against its own checksum and its label (R_t of this stream), so that nothing is released
   * from a damaged file or another epoch's.
   *
   * @throws UncheckedIOException with a {@link DamagedFileException} naming the damaged file
   */
  private Priv2Sketches storedRelease(int t) {
    String name = releaseFile(t);
    try {
      return readChecked(files, name, recordedRelease(t), "the snapshot records",
          in -> readState(in, key, mats, plan, releaseLabel(instance, t), name)).release();
    } catch (DamagedFileException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A state sketch read back, sharing {@code mats}: it must be noiseless, on {@code plan}'s epoch
   * plan, and labelled {@code label} (instance and role).
   */
  static Priv2Sketch readState(InputStream in, SecretKey key, Priv2Matrices mats, BltPlan plan,
      String label, String name) throws IOException {
    NoisyLinearSketch s = SketchCodec.read(in, key, mats);
    if (!s.nodeLabel().equals(label)) {
      throw new IOException("holds " + s.nodeLabel() + ", expected " + label);
    }
    if (!(s instanceof Priv2Sketch p) || !s.isNoiseless() || !p.plan().equals(plan.epochPlan())) {
      throw new IOException("state file " + name + " is not " + label + " of this stream's plan");
    }
    return p;
  }

  /** The stream's noise: the factorization, sens(T), the factors and σ_Y, σ_Z. */
  public BltPlan plan() {
    return plan;
  }

  public BltConfig config() {
    return config;
  }

  /** The instance label (public, not secret). */
  public String instance() {
    return instance;
  }

  /**
   * Bytes held in memory: the accumulator (with its update buffers and the sketching matrices),
   * a second accumulator while a pipelined close runs or as its spare, the 2d + 1 state arrays
   * (none after epoch T), and an in-memory file store.
   */
  public long sizeInBytes() {
    long state = Priv2Sketch.stateBytes(config.sizes());
    Priv2Sketch acc = accumulator;
    long b = acc != null ? acc.sizeInBytes() : 0;
    if (spare != null || pending != null) {
      b += state;
    }
    long arrays = (long) encoder.length + decoder.length + (release != null ? 1 : 0);
    return b + arrays * state + files.bytesInMemory();
  }

  /**
   * Writes the snapshot ({@code BltCodec}): the state files of the last close by name and
   * checksum, and the accumulator's updates since (secret: raw data, like the encoder files).
   * Does not close {@code out}. The epochs it names may be released once it is durable.
   *
   * @throws IllegalStateException while a pipelined close is pending, or after a failed close
   */
  public void writeTo(OutputStream out) throws IOException {
    requireUsable();
    requireNoPendingClose();
    int e = epochsClosed;
    BltCodec.write(this, out, true);
    epochsSnapshotted = e;
  }

  /**
   * Writes the snapshot as of the last finished close, with an empty accumulator: the updates
   * applied since belong to the next epoch, beyond the offsets of the snapshot this goes into.
   * Call it after {@link #finishClose} and before the next {@link #beginClose}.
   *
   * @throws IllegalStateException while a close is pending, or after a failed close
   */
  public void writeClosedState(OutputStream out) throws IOException {
    requireUsable();
    requireNoPendingClose();
    int e = epochsClosed;
    BltCodec.write(this, out, false);
    epochsSnapshotted = e;
  }

  /** Reads a snapshot whose state files are in {@code dir}. */
  public static BltStream readFrom(InputStream in, SecretKey key, Path dir) throws IOException {
    return BltCodec.read(in, key, BltFiles.directory(dir));
  }

  static BltStream readFrom(InputStream in, SecretKey key, BltFiles files) throws IOException {
    return BltCodec.read(in, key, files);
  }
}
