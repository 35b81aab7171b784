package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.randomness.GaussianMatrices;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.List;

/**
 * PRIVATE-OPTIMAL-LRF sketches (paper 002, Algorithm 1 step 2) for Â = (A σmin·I_m):
 *
 * <pre>
 *   Yc = ÂΦ = A Φ_top + σmin G          m × t     G = Φ_bottom, this node's own m×t Gaussian
 *   Yr = ΨÂ + N1 = (ΨA, σmin Ψ) + N1     t × (m+n)
 *   Z  = SÂTᵀ + N2 = S W + N2            v × v     W = ÂTᵀ = A T_leftᵀ + σmin T_rightᵀ (m × v)
 * </pre>
 *
 * Per update (Δ, i, j): Yc row i += Δ·Φ_top row j and Yr column j += Δ·Ψ column i (O(t)), and
 * W row i += Δ·T column j (O(v), buffered so that each T column is generated once per flush).
 * Keeping W (m×v) instead of Z (v×v) turns the O(v²) outer-product update into an O(v) one; Z
 * is formed as S·W when the sketch is released.
 *
 * <p>Privacy: see {@link Priv1Plan}. G, N1 and N2 are this node's randomness, derived from the
 * node label; Φ_top, Ψ, S, T are shared by all nodes of the instance ({@link Priv1Matrices}).
 */
public final class Priv1Sketch extends BufferedSketch {
  private final Priv1Plan plan;
  private final Priv1Matrices mats;
  private final int tw;
  private final int v;
  private final double[] yc; // m × t row-major: Â Φ
  private final double[] yrT; // (m+n) × t row-major: (ΨÂ)ᵀ, so a column of Yr is contiguous
  private final double[] w; // m × v row-major: Â Tᵀ

  private Priv1Sketch(
      Priv1Plan plan, Priv1Matrices mats, SecretKey key, String nodeLabel, boolean noiseless) {
    super(plan.sizes().m(), plan.sizes().n(), key, nodeLabel, noiseless);
    if (!mats.sizes.equals(plan.sizes())) {
      throw new IllegalArgumentException("plan and sketching matrices disagree on sizes");
    }
    this.plan = plan;
    this.mats = mats;
    this.tw = plan.sizes().t();
    this.v = plan.sizes().v();
    double sigmaMin = sigmaMin();
    // Yc starts as σmin·G: the node's padding Gaussian, regenerated from its own label.
    SketchMatrix gT = GaussianMatrices.gaussian(key, nodeLabel + "/G", tw, m, 1 / Math.sqrt(tw));
    yc = new double[Math.multiplyExact(m, tw)];
    gT.columns(0, m, yc); // column i of Gᵀ = row i of G
    scale(yc, sigmaMin);
    // Yr's padding columns: Ψ·σmin·I_m, i.e. column n+i of Yr is σmin·(column i of Ψ).
    yrT = new double[Math.multiplyExact(m + n, tw)];
    double[] psiAll = new double[Math.multiplyExact(m, tw)];
    mats.psi.columns(0, m, psiAll);
    for (int x = 0; x < psiAll.length; x++) {
      yrT[n * tw + x] = sigmaMin * psiAll[x];
    }
    // W's padding part: σmin·T_rightᵀ, i.e. row i of W is σmin·(column n+i of T).
    w = new double[Math.multiplyExact(m, v)];
    mats.t.columns(n, n + m, w);
    scale(w, sigmaMin);
  }

  /** A sketch with its noise, for the node {@code nodeLabel} of an instance. */
  public static Priv1Sketch create(
      Priv1Plan plan, Priv1Matrices mats, SecretKey key, String nodeLabel) {
    return new Priv1Sketch(plan, mats, key, nodeLabel, false);
  }

  /** NOT private: σmin = 0 and no noise. For sketch-quality studies ({@code --no-noise}). */
  public static Priv1Sketch createWithoutNoise(
      Priv1Plan plan, Priv1Matrices mats, SecretKey key, String nodeLabel) {
    return new Priv1Sketch(plan, mats, key, nodeLabel, true);
  }

  private double sigmaMin() {
    return noiseless ? 0 : plan.sigmaMin();
  }

  private static void scale(double[] a, double c) {
    for (int x = 0; x < a.length; x++) {
      a[x] *= c;
    }
  }

  public Priv1Plan plan() {
    return plan;
  }

  @Override
  Object planObject() {
    return plan;
  }

  /** A noisy Priv1 node starts with its σmin padding (Â = (A σmin·I)) in its state. */
  @Override
  public boolean startsEmpty() {
    return noiseless;
  }

  @Override
  double[][] state() {
    return new double[][] {yc, yrT, w};
  }

  @Override
  String instance() {
    return mats.instance;
  }

  Priv1Matrices matrices() {
    return mats;
  }

  static Priv1Sketch restore(Priv1Plan plan, Priv1Matrices mats, SecretKey key, String nodeLabel,
      boolean noiseless) {
    return new Priv1Sketch(plan, mats, key, nodeLabel, noiseless);
  }

  /**
   * Applies the buffered updates, generating each needed sketching-matrix column once: per
   * distinct j, row j of Φ_top (Yc row i += Δ·Φ_top[j,:]) and column j of T (W row i += Δ·T[:,j]);
   * per distinct i, column i of Ψ (Yr column j += Δ·Ψ[:,i]).
   */
  @Override
  void applyBuffered() {
    scatter(buffer.cols, buffer.rows, new Scatter(mats.phiTopT, yc, tw), new Scatter(mats.t, w, v));
    scatter(buffer.rows, buffer.cols, new Scatter(mats.psi, yrT, tw));
  }

  /**
   * The mechanism's output for this node: Yc, Yr = round(ΨÂ) + N1, Z = round(SÂTᵀ) + N2, with
   * the discrete noise regenerated from the node label. Call as often as needed: the noise is
   * the same every time.
   */
  @Override
  public Priv1Sketches release() {
    flush();
    Dense ycOut = new Dense(m, tw, yc.clone());
    // Yr: transpose back to t × (m+n), round to the grid, add N1.
    GaussianSketchNoise yrNoise = plan.yrNoise();
    double[] yr = new double[yrT.length];
    int cols = m + n;
    for (int j = 0; j < cols; j++) {
      for (int a = 0; a < tw; a++) {
        yr[a * cols + j] = yrT[j * tw + a];
      }
    }
    roundToGrid(yr, yrNoise.grid().gamma());
    addNoise("N1", yrNoise, yr);
    // Z = S·W (v × v), streaming S by column blocks: Z += S[:, i] ⊗ W[i, :].
    double[] z = new double[v * v];
    int block = 256;
    double[] sCols = new double[block * v];
    for (int from = 0; from < m; from += block) {
      int to = Math.min(m, from + block);
      mats.s.columns(from, to, sCols);
      for (int i = from; i < to; i++) {
        int so = (i - from) * v;
        int wo = i * v;
        for (int a = 0; a < v; a++) {
          double sa = sCols[so + a];
          if (sa == 0) {
            continue;
          }
          int zo = a * v;
          for (int b = 0; b < v; b++) {
            z[zo + b] += sa * w[wo + b];
          }
        }
      }
    }
    GaussianSketchNoise zNoise = plan.zNoise();
    roundToGrid(z, zNoise.grid().gamma());
    addNoise("N2", zNoise, z);
    List<NoiseScale> noise = List.of(
        // Yc carries no additive noise; its randomness is the padding σmin·G, N(0, σmin²/t).
        new NoiseScale("Yc", sigmaMin() / Math.sqrt(tw), plan.clip(), (long) m * tw),
        noiseScale(yrNoise, (long) tw * cols),
        noiseScale(zNoise, (long) v * v));
    return new Priv1Sketches(
        m, n, sigmaMin(), ycOut, new Dense(tw, cols, yr), new Dense(v, v, z), mats.s, mats.t,
        noise);
  }

  @Override
  public long sizeInBytes() {
    return 8L * (yc.length + yrT.length + w.length) + buffer.sizeInBytes() + mats.sizeInBytes();
  }
}
