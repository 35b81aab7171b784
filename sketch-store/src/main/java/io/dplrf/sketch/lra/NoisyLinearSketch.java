package io.dplrf.sketch.lra;

import io.dplrf.sketch.noise.GaussianSampler;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.SecretKey;

/**
 * A noisy linear sketch of an m×n matrix updated by turnstile updates (Δ, i, j), meaning
 * A[i][j] += Δ.
 *
 * <p>Privacy contract. The noise of a sketch is fixed when the sketch is created: it is a pure
 * function of the secret key and the sketch's node label, drawn by an exact discrete sampler
 * from the keystream of that label. Nothing can redraw it with other values; a restart that
 * recreates the node regenerates the very same noise, so no second independent noisy view can
 * ever exist. Only {@link #release()}-style methods hand out data, and only with the noise in.
 *
 * <p><b>Noise derivation</b> (Gaussian parts, {@link #addNoise}; {@link NoiseDerivation}). A
 * new sketch draws each part's noise in chunks of {@link #NOISE_CHUNK} entries, chunk c from the
 * keystream of the label {@code node/part/chunk/c}, so that a release's chunks can be drawn on
 * several threads, and reads each stream with the blocked alias-table sampler ({@link
 * io.dplrf.sketch.noise.BlockDiscreteGaussian}), 4.2–4.5× faster than CKS Algorithm 3. Two other
 * derivations are kept for sketches recorded with them: the same chunks read with CKS Algorithm 3
 * (sketch format 2), and each part drawn from one stream, {@code node/part}, in entry order
 * (format 1). {@link SketchCodec} records which derivation a sketch uses ({@link
 * #noiseDerivation()}) and a restored sketch keeps it, so a node that has been released releases
 * the same noise after an upgrade. Distinct labels give independent streams
 * (HMAC-SHA256 is a PRF: {@link KeyStream}) and both samplers are exact, so every derivation gives
 * independent samples of the same law; a node made afresh after a restart uses its stream's
 * derivation.
 *
 * <p>Not thread-safe: one writer owns a sketch.
 */
public abstract sealed class NoisyLinearSketch
    permits BufferedSketch, DenseInputPerturbation, RobustSketch {
  final int m;
  final int n;
  final SecretKey key;
  final String nodeLabel;
  final boolean noiseless;
  private long updates;
  /** Set by {@link #intoNode}: the data now belongs to a node; this object must not be used. */
  private boolean handedOver;
  /** Chunks and sampler of this sketch's noise (class comment); a new sketch's is the current. */
  private NoiseDerivation derivation = NoiseDerivation.CURRENT;
  /** Set at the first {@link #addNoise}: from then on the derivation is fixed. */
  private volatile boolean noiseDrawn;

  /** Entries per independently keyed chunk of a new sketch's noise (class comment). */
  public static final int NOISE_CHUNK = 1 << 16;

  NoisyLinearSketch(int m, int n, SecretKey key, String nodeLabel, boolean noiseless) {
    this.m = m;
    this.n = n;
    this.key = key;
    this.nodeLabel = nodeLabel;
    this.noiseless = noiseless;
  }

  /**
   * True for a sketch made by a {@code createWithoutNoise} factory: its releases carry no noise
   * and are NOT private. For sketch-quality studies only; callers must not label them private.
   */
  public final boolean isNoiseless() {
    return noiseless;
  }

  public final int rows() {
    return m;
  }

  public final int cols() {
    return n;
  }

  /** The label that derives this sketch's noise; public, not secret. */
  public final String nodeLabel() {
    return nodeLabel;
  }

  public final long updateCount() {
    return updates;
  }

  /**
   * Applies A[i][j] += Δ in time proportional to the sketch width.
   *
   * @throws IllegalArgumentException if an index is out of range or Δ is not finite; the sketch
   *     is unchanged
   */
  public final void update(int i, int j, double delta) {
    if (i < 0 || i >= m || j < 0 || j >= n) {
      throw new IllegalArgumentException(
          "update index (" + i + ", " + j + ") out of range for a " + m + "x" + n + " matrix");
    }
    if (!Double.isFinite(delta)) {
      throw new IllegalArgumentException("update delta must be finite. Provided value: " + delta);
    }
    apply(i, j, delta);
    updates++;
  }

  abstract void apply(int i, int j, double delta);

  /**
   * The mechanism's output for this node, with its noise (regenerated from the node label, the
   * same every time). Noiseless sketches release their exact accumulators.
   */
  public abstract ReleasedSketches release();

  /**
   * Adds the accumulated data of {@code accumulator} into this sketch: afterwards this sketch is
   * as if it had received the accumulator's updates too. The source is either a {@code
   * createWithoutNoise} sketch of the same mechanism, plan and instance, or a node whose state is
   * data only ({@link #startsEmpty}: its noise is drawn at release), so that nothing but data
   * moves (a noisy Priv1 node holds its σmin padding in its state and is refused; a noiseless
   * Priv1 sketch has σmin = 0, so no padding is added twice). Used by the continual-release tree
   * to fold one epoch into the nodes that contain it, and to build a closed node as the sum of its
   * two closed children, at a cost of one sketch size per node per epoch rather than per update.
   *
   * @throws IllegalArgumentException if the source holds more than data, is this sketch, or
   *     belongs to another mechanism, plan, instance or key
   */
  public final void absorb(NoisyLinearSketch accumulator) {
    requireNotHandedOver();
    accumulator.requireNotHandedOver();
    if (accumulator == this || !(accumulator.noiseless || accumulator.startsEmpty())) {
      throw new IllegalArgumentException("only another sketch holding data only can be absorbed "
          + "(node " + accumulator.nodeLabel + ")");
    }
    if (accumulator.getClass() != getClass() || !accumulator.instance().equals(instance())
        || !accumulator.key.fingerprint().equals(key.fingerprint())
        || !accumulator.planObject().equals(planObject())) {
      throw new IllegalArgumentException("cannot absorb a sketch of another mechanism, plan, "
          + "instance or key: " + accumulator.nodeLabel + " into " + nodeLabel);
    }
    flushPending();
    accumulator.flushPending();
    double[][] dst = state();
    double[][] src = accumulator.state();
    for (int a = 0; a < dst.length; a++) {
      double[] d = dst[a];
      double[] x = src[a];
      for (int e = 0; e < d.length; e++) {
        d[e] += x[e];
      }
    }
    updates += accumulator.updates;
  }

  /**
   * Applies the updates buffered so far now rather than at the next flush point (a full buffer,
   * a snapshot, a release, an absorb): the value changes only in the order of its floating-point
   * sums. For measurements that must end with every update applied.
   */
  public final void applyBufferedUpdates() {
    requireNotHandedOver();
    flushPending();
  }

  /**
   * Empties a noiseless accumulator (all data and the update count back to zero), so that it can
   * collect the next epoch.
   *
   * @throws IllegalStateException for a noisy sketch: its padding and noise must never be wiped
   */
  public final void reset() {
    requireNotHandedOver();
    if (!noiseless) {
      throw new IllegalStateException("only a noiseless accumulator can be reset: " + nodeLabel);
    }
    flushPending();
    for (double[] a : state()) {
      java.util.Arrays.fill(a, 0.0);
    }
    updates = 0;
  }

  /**
   * The node {@code nodeLabel} holding exactly this noiseless accumulator's data, made without a
   * copy: the node takes the accumulator's arrays (its noise is drawn at release from its own
   * label, as for any node of a mechanism whose state is data only). Equivalent to a new node that
   * {@link #absorb}s this accumulator, minus one sketch-size allocation and addition. This object
   * is then spent: {@link #absorb} and {@link #reset} refuse it, and the caller must drop it (and
   * must not {@link #update} it).
   *
   * @throws IllegalStateException unless this is a noiseless sketch of a mechanism whose nodes
   *     hold data only (Priv2, robust; not Priv1, whose nodes hold their padding), not yet handed
   *     over
   */
  public final NoisyLinearSketch intoNode(String nodeLabel) {
    requireNotHandedOver();
    if (!noiseless || !startsEmpty()) {
      throw new IllegalStateException("only a noiseless accumulator whose state is data only can "
          + "become a node: " + this.nodeLabel);
    }
    flushPending();
    NoisyLinearSketch node = withState(java.util.Objects.requireNonNull(nodeLabel, "nodeLabel"));
    node.updates = updates;
    node.derivation = derivation; // the stream's derivation, which its accumulator carries
    handedOver = true;
    dropUpdateBuffers(); // spent: no more updates, and the close that follows allocates the spare
    return node;
  }

  /**
   * The parent node {@code parentLabel}, made in place from this node and its left sibling: this
   * node's arrays {@link #absorb} {@code left}'s and become the parent's. The same values as a new
   * node absorbing both children (x + y = y + x in IEEE arithmetic, and 0 + x = x up to the sign
   * of a zero), minus one sketch-size allocation and addition. For the continual-release tree,
   * which writes the right child out first and never reads this object again: it is then spent,
   * as after {@link #intoNode}. The parent keeps this node's noise derivation (the stream's).
   *
   * @throws IllegalStateException unless this is a node (not a noiseless accumulator: {@link
   *     #intoNode}) whose state is data only, not handed over
   * @throws IllegalArgumentException if {@code left} cannot be absorbed ({@link #absorb})
   */
  public final NoisyLinearSketch intoParent(NoisyLinearSketch left, String parentLabel) {
    requireNotHandedOver();
    if (noiseless || !startsEmpty()) {
      throw new IllegalStateException("only a node whose state is data only can become its "
          + "parent: " + nodeLabel);
    }
    java.util.Objects.requireNonNull(parentLabel, "parentLabel");
    absorb(left);
    NoisyLinearSketch parent = withState(parentLabel);
    parent.updates = updates;
    parent.derivation = derivation;
    handedOver = true;
    return parent;
  }

  /**
   * The live state arrays of a noiseless sketch ({@link #isNoiseless}), after its buffered updates
   * are applied: for Priv2, {Y (m×t), Zᵀ (n×v)}, both row-major. For a mechanism that adds its
   * noise outside the sketch and works on the data in place (the BLT stream of {@code
   * io.dplrf.sketch.continual}, which encodes an epoch's accumulator chunk by chunk and keeps its
   * buffers in noiseless sketches so that {@link SketchCodec} writes them). A noiseless sketch's
   * {@link #release} hands out the same values as copies, so this reveals nothing more; writes to
   * the arrays change the sketch.
   *
   * @throws IllegalStateException for a noisy sketch, whose data leaves only through its release,
   *     with the noise in; or one handed over to a node
   */
  public final double[][] noiselessState() {
    requireNotHandedOver();
    if (!noiseless) {
      throw new IllegalStateException("only a noiseless sketch hands out its state: " + nodeLabel);
    }
    flushPending();
    return state();
  }

  /** Frees the memory this sketch holds for buffering updates (empty; {@link #intoNode}). */
  void dropUpdateBuffers() {}

  /** A noisy sketch labelled {@code nodeLabel} sharing this one's state arrays ({@link #intoNode}). */
  NoisyLinearSketch withState(String nodeLabel) {
    throw new IllegalStateException(getClass().getSimpleName() + " nodes hold more than data");
  }

  private void requireNotHandedOver() {
    if (handedOver) {
      throw new IllegalStateException("accumulator " + nodeLabel + " was handed over to a node");
    }
  }

  /** The mechanism's plan record, for compatibility checks. */
  abstract Object planObject();

  /**
   * True if a new sketch's state is all zero — its randomness (noise, padding) is added at
   * release — so that its state is exactly the sum of the updates it received.
   */
  public abstract boolean startsEmpty();

  /** Applies any buffered updates, so that {@link #state()} is complete. */
  abstract void flushPending();

  /** The accumulators, in a fixed order, for {@link SketchCodec}; live arrays, not copies. */
  abstract double[][] state();

  /** The instance label of the shared sketching matrices ("" when there are none). */
  abstract String instance();

  final void restoreUpdateCount(long count) {
    updates = count;
  }

  /** Bytes of state this sketch keeps (accumulators and cached sketching-matrix rows). */
  public abstract long sizeInBytes();

  /** How this sketch's noise is derived (class comment); for {@link SketchCodec}. */
  final NoiseDerivation noiseDerivation() {
    return derivation;
  }

  /**
   * Sets how this sketch's noise is derived (class comment). For a sketch restored from its bytes
   * ({@link SketchCodec}) and for a stream that keeps the derivation it started with ({@code
   * ContinualSketch}); the caller must persist it with the sketch, as {@link SketchCodec} does.
   *
   * @throws IllegalStateException once this sketch has drawn noise: its noise never changes
   */
  public final void deriveNoise(NoiseDerivation derivation) {
    java.util.Objects.requireNonNull(derivation, "derivation");
    if (noiseDrawn) {
      throw new IllegalStateException("sketch " + nodeLabel + " has drawn its noise already");
    }
    this.derivation = derivation;
  }

  /** One array's share of a release's noise: its part label, its calibration, and the array. */
  record NoisePart(String part, GaussianSketchNoise noise, double[] dst) {}

  /** Adds this node's discrete Gaussian noise for {@code part}, on the plan's grid, to dst. */
  final void addNoise(String part, GaussianSketchNoise noise, double[] dst) {
    addNoise(new NoisePart(part, noise, dst));
  }

  /**
   * Adds this node's discrete Gaussian noise for every part, on {@link NoiseWorkers} threads as
   * well as this one (as many as there are processors): in chunks claimed one at a time, or, for a
   * sketch of format version 1, one part per thread. Every entry gets the same sample whichever
   * thread draws it: a chunk (or a part) is drawn whole, in entry order, from its own stream.
   */
  final void addNoise(NoisePart... parts) {
    if (noiseless) {
      return;
    }
    noiseDrawn = true;
    int threads = Runtime.getRuntime().availableProcessors();
    GaussianSampler sampler = derivation.sampler();
    if (derivation.chunk() == 0) {
      NoiseWorkers.run(parts.length, threads, p -> parts[p].noise().grid().addTo(sampler,
          KeyStream.of(key, nodeLabel + "/" + parts[p].part()).bits(),
          parts[p].dst(), 0, parts[p].dst().length));
      return;
    }
    int chunk = derivation.chunk();
    int[] firstTask = new int[parts.length + 1];
    for (int p = 0; p < parts.length; p++) {
      firstTask[p + 1] = firstTask[p] + (parts[p].dst().length + chunk - 1) / chunk;
    }
    NoiseWorkers.run(firstTask[parts.length], threads, task -> {
      int p = 0;
      while (task >= firstTask[p + 1]) {
        p++;
      }
      NoisePart part = parts[p];
      int c = task - firstTask[p];
      int off = c * chunk;
      part.noise().grid().addTo(sampler, KeyStream.of(key, chunkLabel(part.part(), c)).bits(),
          part.dst(), off, Math.min(chunk, part.dst().length - off));
    });
  }

  /** The label of chunk c of a part's noise (class comment). */
  final String chunkLabel(String part, int c) {
    return nodeLabel + "/" + part + "/chunk/" + c;
  }

  /** Rounds every entry to the noise grid (the query rounding that the slack accounts for). */
  final void roundToGrid(double[] data, double gamma) {
    if (noiseless) {
      return;
    }
    GridGaussian.roundToGrid(data, gamma);
  }

  /** The noise scale as released: zero for a noiseless sketch. */
  final NoiseScale noiseScale(GaussianSketchNoise noise, long entries) {
    return noiseless
        ? new NoiseScale(noise.sketch(), 0, noise.sensitivity(), 0)
        : noise.scale(entries);
  }

  /** dst[off .. off+len) += a·x[xOff .. xOff+len). */
  static void axpy(double a, double[] x, int xOff, double[] dst, int off, int len) {
    for (int e = 0; e < len; e++) {
      dst[off + e] += a * x[xOff + e];
    }
  }
}
