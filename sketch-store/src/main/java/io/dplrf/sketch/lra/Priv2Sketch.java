package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.List;
import java.util.concurrent.Future;

/**
 * Priv2 sketches (paper 002 §3): Y = AΦ + N1 (m×t) and Z = SA + N2 (v×n), private for any
 * change of Frobenius norm ≤ C or of entrywise ℓ1 norm ≤ C, as the {@link Priv2Plan} says; with
 * sparse embeddings (ℓ1 only) at O(s) per update ({@link Priv2Plan#calibrateL1}).
 *
 * <p>Per update (Δ, i, j): Y row i += Δ·Φ row j (O(t)); Z column j += Δ·S column i (O(v),
 * buffered so each S column is generated once per flush). Z is kept transposed so that a
 * column is contiguous.
 */
public final class Priv2Sketch extends BufferedSketch {
  private final Priv2Plan plan;
  private final Priv2Matrices mats;
  private final int tw;
  private final int v;
  private final double[] y; // m × t
  private final double[] zT; // n × v: (SA)ᵀ
  private final BandedUpdates banded; // sparse embeddings only

  private Priv2Sketch(
      Priv2Plan plan, Priv2Matrices mats, SecretKey key, String nodeLabel, boolean noiseless) {
    super(plan.sizes().m(), plan.sizes().n(), key, nodeLabel, noiseless);
    if (!mats.sizes.equals(plan.sizes())) {
      throw new IllegalArgumentException("plan and sketching matrices disagree on sizes");
    }
    if (mats.sparsity != plan.sparsity()) {
      throw new IllegalArgumentException("plan and sketching matrices disagree on sparsity: "
          + plan.sparsity() + " vs " + mats.sparsity);
    }
    this.plan = plan;
    this.mats = mats;
    this.tw = plan.sizes().t();
    this.v = plan.sizes().v();
    y = new double[Math.multiplyExact(m, tw)];
    zT = new double[Math.multiplyExact(n, v)];
    banded = mats.sparsity > 0 ? new BandedUpdates((long) y.length + zT.length) : null;
  }

  /** A noisy node on {@code data}'s arrays ({@link #intoNode}); nodes take no updates, no buffer. */
  private Priv2Sketch(Priv2Sketch data, String nodeLabel) {
    super(data.m, data.n, data.key, nodeLabel, false);
    this.plan = data.plan;
    this.mats = data.mats;
    this.tw = data.tw;
    this.v = data.v;
    this.y = data.y;
    this.zT = data.zT;
    this.banded = null;
  }

  @Override
  NoisyLinearSketch withState(String nodeLabel) {
    return new Priv2Sketch(this, nodeLabel);
  }

  public static Priv2Sketch create(
      Priv2Plan plan, Priv2Matrices mats, SecretKey key, String nodeLabel) {
    return new Priv2Sketch(plan, mats, key, nodeLabel, false);
  }

  /** NOT private: no noise. For sketch-quality studies ({@code --no-noise}). */
  public static Priv2Sketch createWithoutNoise(
      Priv2Plan plan, Priv2Matrices mats, SecretKey key, String nodeLabel) {
    return new Priv2Sketch(plan, mats, key, nodeLabel, true);
  }

  public Priv2Plan plan() {
    return plan;
  }

  @Override
  Object planObject() {
    return plan;
  }

  /** Priv2's noise N1, N2 is drawn at release: the state is data only. */
  @Override
  public boolean startsEmpty() {
    return true;
  }

  @Override
  double[][] state() {
    return new double[][] {y, zT};
  }

  @Override
  String instance() {
    return mats.instance;
  }

  static Priv2Sketch restore(Priv2Plan plan, Priv2Matrices mats, SecretKey key, String nodeLabel,
      boolean noiseless) {
    return new Priv2Sketch(plan, mats, key, nodeLabel, noiseless);
  }

  /**
   * Sparse embeddings: O(s) per update, buffered and applied in cache-sized bands of rows
   * ({@link BandedUpdates}); dense: buffered so that each column is generated once per flush.
   */
  @Override
  void apply(int i, int j, double delta) {
    if (banded == null) {
      super.apply(i, j, delta);
    } else if (banded.add(i, j, delta)) {
      banded.flushInBackground(mats.phiTSparse, y, tw, mats.sSparse, zT, v);
    }
  }

  @Override
  void dropUpdateBuffers() {
    if (banded != null) {
      banded.drop();
    }
  }

  /** Y row i += Δ·Φ[j,:] and Z column j += Δ·S[:,i] for every buffered sparse update. */
  @Override
  void flushOwnBuffer() {
    if (banded != null) {
      banded.flush(mats.phiTSparse, y, tw, mats.sSparse, zT, v);
    }
  }

  /**
   * Applies the buffered updates, generating each needed sketching-matrix column once: per
   * distinct j, row j of Φ (Y row i += Δ·Φ[j,:]); per distinct i, column i of S
   * (Z column j += Δ·S[:,i]).
   */
  @Override
  void applyBuffered() {
    scatter(buffer.cols, buffer.rows, new Scatter(mats.phiT, y, tw));
    scatter(buffer.rows, buffer.cols, new Scatter(mats.s, zT, v));
  }

  /** Bytes of a Priv2 sketch's state: Y (m×t) and Zᵀ (n×v). */
  public static long stateBytes(SketchSizes s) {
    return 8L * ((long) s.m() * s.t() + (long) s.n() * s.v());
  }

  /** Bytes of a sparse-embedding accumulator's update buffers ({@link BandedUpdates}). */
  public static long updateBufferBytes(SketchSizes s) {
    return BandedUpdates.bytesFor(stateBytes(s) / 8);
  }

  /**
   * Y = round(AΦ) + N1 and Z = round(SA) + N2, noise regenerated from the node label. Y's copy is
   * made on a {@link NoiseWorkers} thread while this one transposes Zᵀ; then every thread draws
   * noise chunks of both ({@link #addNoise(NoisePart...)}). Each entry's noise is a function of
   * its node, part and position alone, so the release does not depend on which thread drew what.
   */
  @Override
  public Priv2Sketches release() {
    flush();
    Future<double[]> yPart = NoiseWorkers.submit(() -> {
      double[] yOut = y.clone();
      roundToGrid(yOut, plan.yNoise().grid().gamma());
      return yOut;
    });
    double[] z = new double[v * n];
    for (int j = 0; j < n; j++) {
      for (int b = 0; b < v; b++) {
        z[b * n + j] = zT[j * v + b];
      }
    }
    roundToGrid(z, plan.zNoise().grid().gamma());
    double[] yOut = NoiseWorkers.join(yPart);
    addNoise(new NoisePart("N1", plan.yNoise(), yOut), new NoisePart("N2", plan.zNoise(), z));
    List<NoiseScale> noise =
        List.of(noiseScale(plan.yNoise(), (long) m * tw), noiseScale(plan.zNoise(), (long) v * n));
    return new Priv2Sketches(m, n, new Dense(m, tw, yOut), new Dense(v, n, z), mats.s, noise);
  }

  @Override
  public long sizeInBytes() {
    return 8L * (y.length + zT.length) + buffer.sizeInBytes() + mats.sizeInBytes()
        + (banded == null ? 0 : banded.sizeInBytes());
  }
}
