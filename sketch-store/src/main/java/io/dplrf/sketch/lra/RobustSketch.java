package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.noise.GridLaplace;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The noisy sketches of ROBUST-LRA (paper 000, Algorithm 1 lines 3–5) and ROBUST-PCA
 * (Algorithm 2, without Yc; docs/privacy/robust.md §1): Yr = ΦA + N1 (t×n), Yc = AΨ + N2 (m×t),
 * Z = SAT + N3 (v×v), N Laplace ({@link RobustPlan}).
 *
 * <p>Turnstile (§3.2, with the paper's swapped names put right): an update (Δ, i, j) does
 * Yr[:, j] += Δ·Φ[:, i] (O(t)), Yc[i, :] += Δ·Ψ[j, :] (O(t)) and Z += Δ·S[:, i] T[j, :]. The
 * last is O(v²); to keep updates O(t + v) the row (A T)[i, :] += Δ·T[j, :] is collected per
 * distinct row i and folded into Z = Σ_i S[:, i] (AT)[i, :] when {@value #PENDING_ROWS} rows are
 * pending or the sketch is read.
 *
 * <p>Noise: each part's Laplace noise is drawn from the keystream of (node label, part) when the
 * sketch is released, on the grid fixed by the plan; the same every time (NoisyLinearSketch).
 */
public final class RobustSketch extends NoisyLinearSketch {
  static final int PENDING_ROWS = 256;

  private final RobustPlan plan;
  private final RobustMatrices mats;
  private final int tw;
  private final int v;
  private final double[] yrT; // n × t: Yrᵀ, so column j of Yr is contiguous
  private final double[] yc; // m × t (empty for PCA)
  private final double[] z; // v × v
  private final Map<Integer, double[]> pending = new HashMap<>(); // row i → (A T)[i, :] of the batch

  private RobustSketch(RobustPlan plan, RobustMatrices mats, SecretKey key, String nodeLabel,
      boolean noiseless) {
    super(plan.sizes().m(), plan.sizes().n(), key, nodeLabel, noiseless);
    if (!plan.matches(mats)) {
      throw new IllegalArgumentException(
          "plan and sketching matrices disagree (sizes, p, PCA or the drawn sensitivity factors)");
    }
    this.plan = plan;
    this.mats = mats;
    this.tw = plan.sizes().t();
    this.v = plan.sizes().v();
    yrT = new double[Math.multiplyExact(n, tw)];
    yc = new double[plan.pca() ? 0 : Math.multiplyExact(m, tw)];
    z = new double[Math.multiplyExact(v, v)];
  }

  /** A noisy node on {@code data}'s arrays ({@link #intoNode}). */
  private RobustSketch(RobustSketch data, String nodeLabel) {
    super(data.m, data.n, data.key, nodeLabel, false);
    this.plan = data.plan;
    this.mats = data.mats;
    this.tw = data.tw;
    this.v = data.v;
    this.yrT = data.yrT;
    this.yc = data.yc;
    this.z = data.z;
  }

  @Override
  NoisyLinearSketch withState(String nodeLabel) {
    return new RobustSketch(this, nodeLabel);
  }

  public static RobustSketch create(
      RobustPlan plan, RobustMatrices mats, SecretKey key, String nodeLabel) {
    return new RobustSketch(plan, mats, key, nodeLabel, false);
  }

  /** NOT private: no noise. For sketch-quality studies and tree accumulators. */
  public static RobustSketch createWithoutNoise(
      RobustPlan plan, RobustMatrices mats, SecretKey key, String nodeLabel) {
    return new RobustSketch(plan, mats, key, nodeLabel, true);
  }

  static RobustSketch restore(RobustPlan plan, RobustMatrices mats, SecretKey key,
      String nodeLabel, boolean noiseless) {
    return new RobustSketch(plan, mats, key, nodeLabel, noiseless);
  }

  public RobustPlan plan() {
    return plan;
  }

  @Override
  Object planObject() {
    return plan;
  }

  /** The Laplace noise is drawn at release: the state is data only. */
  @Override
  public boolean startsEmpty() {
    return true;
  }

  @Override
  String instance() {
    return mats.instance;
  }

  @Override
  double[][] state() {
    return new double[][] {yrT, yc, z};
  }

  @Override
  void apply(int i, int j, double delta) {
    double[] phi = mats.phi.data();
    axpy(delta, phi, i * tw, yrT, j * tw, tw); // Yr[:, j] += Δ Φ[:, i]
    if (!plan.pca()) {
      axpy(delta, mats.psiT.data(), j * tw, yc, i * tw, tw); // Yc[i, :] += Δ Ψ[j, :]
    }
    double[] row = pending.get(i);
    if (row == null) {
      if (pending.size() >= PENDING_ROWS) {
        flushPending();
      }
      row = new double[v];
      pending.put(i, row);
    }
    axpy(delta, mats.tT.data(), j * v, row, 0, v); // (AT)[i, :] += Δ T[j, :]
  }

  /** Z += Σ_i S[:, i] (AT)[i, :] over the pending rows. */
  @Override
  void flushPending() {
    double[] s = mats.s.data();
    for (Map.Entry<Integer, double[]> e : pending.entrySet()) {
      int i = e.getKey();
      double[] row = e.getValue();
      for (int a = 0; a < v; a++) {
        axpy(s[i * v + a], row, 0, z, a * v, v);
      }
    }
    pending.clear();
  }

  /** Yr, Yc, Z rounded to their grids plus Laplace noise from the node label. */
  @Override
  public RobustSketches release() {
    flushPending();
    double[] yr = new double[tw * n];
    for (int j = 0; j < n; j++) {
      for (int r = 0; r < tw; r++) {
        yr[r * n + j] = yrT[j * tw + r];
      }
    }
    noisy(yr, "N1", plan.yr());
    Dense ycOut = null;
    if (!plan.pca()) {
      double[] c = yc.clone();
      noisy(c, "N2", plan.yc());
      ycOut = new Dense(m, tw, c);
    }
    double[] zOut = z.clone();
    noisy(zOut, "N3", plan.z());
    List<NoiseScale> noise = new ArrayList<>();
    noise.add(scale(plan.yr(), yr.length));
    if (!plan.pca()) {
      noise.add(scale(plan.yc(), yc.length));
    }
    noise.add(scale(plan.z(), zOut.length));
    return new RobustSketches(m, n, plan.p(), new Dense(tw, n, yr), ycOut, new Dense(v, v, zOut),
        mats.s(), mats.tTransposed(), noise);
  }

  private NoiseScale scale(LaplaceSketchNoise noise, long entries) {
    return noiseless
        ? new NoiseScale(noise.sketch(), 0, noise.sensitivityWithSlack(), 0)
        : noise.scale(entries);
  }

  private void noisy(double[] data, String part, LaplaceSketchNoise noise) {
    if (noiseless) {
      return;
    }
    GridLaplace grid = noise.grid();
    double gamma = grid.gamma();
    RandomBits bits = KeyStream.of(key, nodeLabel + "/" + part).bits();
    double[] buf = new double[Math.min(data.length, 1 << 16)];
    for (int off = 0; off < data.length; off += buf.length) {
      int len = Math.min(buf.length, data.length - off);
      grid.fill(bits, buf, 0, len);
      for (int x = 0; x < len; x++) {
        data[off + x] = GridLaplace.roundToGrid(data[off + x], gamma) + buf[x];
      }
    }
  }

  @Override
  public long sizeInBytes() {
    return 8L * (yrT.length + yc.length + z.length + (long) pending.size() * v)
        + mats.sizeInBytes();
  }

  @Override
  public String toString() {
    return "RobustSketch[" + nodeLabel + ", p=" + plan.p() + (plan.pca() ? ", pca" : "") + ", "
        + Arrays.toString(new int[] {m, n, tw, v}) + "]";
  }
}
