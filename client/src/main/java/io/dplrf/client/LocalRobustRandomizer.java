package io.dplrf.client;

import io.dplrf.sketch.lra.LaplaceSketchNoise;
import io.dplrf.sketch.noise.GridLaplace;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.pca.RowClipping;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.Objects;

/**
 * The client side of LOCAL-ROBUST-PCA (paper 001, Algorithm 3 lines 2–6): turns the user's own
 * row into a {@link LocalRobustReport} on the user's machine. Steps (derivation in
 * {@link LocalRobustProtocol}): clip a copy of the row to ‖x‖₁ ≤ C; compute Yr_i = Φ[:, i] xᵀ
 * (t×d) and Z_i = S[:, i] (xᵀT) (v×v) with the protocol's public matrices and the user's slot i;
 * round each to its Laplace grid γℤ; add γ·DLap(s) to every entry with the exact discrete Laplace
 * sampler (line 3's N1_i, N0_i "using its private coin").
 *
 * <p><b>Randomness</b>, as {@link LocalRandomizer}: {@link #create} draws a fresh 256-bit key
 * from {@link java.security.SecureRandom} ({@link SecretKey#ephemeral()}, memory only) and reads
 * its AES-256-CTR stream; nothing derives from the public seed, and every report consumes fresh
 * bits. (Several reports about one row compose: k reports are kε-LDP; the protocol expects one
 * per user.)
 *
 * <p>Thread-safe: {@link #report} is synchronized. Dependencies: the JDK and dplrf-sketch-store.
 */
public final class LocalRobustRandomizer {
  static final String NOISE_LABEL = "local-robust-pca/noise";

  private final LocalRobustProtocol protocol;
  private final RandomBits bits;

  private LocalRobustRandomizer(LocalRobustProtocol protocol, RandomBits bits) {
    this.protocol = Objects.requireNonNull(protocol, "protocol");
    this.bits = Objects.requireNonNull(bits, "bits");
  }

  /** A randomizer whose noise comes from a fresh SecureRandom-seeded CSPRNG (class comment). */
  public static LocalRobustRandomizer create(LocalRobustProtocol protocol) {
    return new LocalRobustRandomizer(
        protocol, KeyStream.of(SecretKey.ephemeral(), NOISE_LABEL).bits());
  }

  /** Tests only: noise from a given (e.g. test-key) bit source, for reproducible checks. */
  static LocalRobustRandomizer withBits(LocalRobustProtocol protocol, RandomBits bits) {
    return new LocalRobustRandomizer(protocol, bits);
  }

  public LocalRobustProtocol protocol() {
    return protocol;
  }

  /**
   * The report of the user in slot {@code user}: clip, sketch, round to the grids, add the
   * calibrated Laplace noise.
   *
   * @param user the user's slot i, 0 ≤ i &lt; m (public: which columns of Φ and S she uses)
   * @param row the user's row, d finite values; not modified
   * @throws IllegalArgumentException for a slot out of range, a row of the wrong length or a
   *     non-finite value
   */
  public synchronized LocalRobustReport report(int user, double[] row) {
    double[][] q = sketch(protocol, user, clipped(protocol, row));
    noisy(q[0], protocol.plan().yr());
    noisy(q[1], protocol.plan().z());
    SketchSizes sz = protocol.sizes();
    return new LocalRobustReport(protocol.id(), user, sz.t(), sz.n(), sz.v(), q[0], q[1]);
  }

  private void noisy(double[] data, LaplaceSketchNoise noise) {
    GridLaplace grid = noise.grid();
    double gamma = grid.gamma();
    double[] n = new double[data.length];
    grid.fill(bits, n, 0, n.length);
    for (int e = 0; e < data.length; e++) {
      data[e] = GridLaplace.roundToGrid(data[e], gamma) + n[e];
    }
  }

  /** An ℓ1-clipped copy of the row (validated). */
  static double[] clipped(LocalRobustProtocol protocol, double[] row) {
    Objects.requireNonNull(row, "row");
    if (row.length != protocol.dimension()) {
      throw new IllegalArgumentException(
          "row has " + row.length + " values, the protocol's dimension is " + protocol.dimension());
    }
    double[] x = row.clone();
    RowClipping.clipL1InPlace(x, protocol.clip()); // rejects non-finite values
    return x;
  }

  /**
   * The noiseless query {Yr_i, Z_i} = {Φ[:, i] xᵀ (t×d), S[:, i] (xᵀT) (v×v)}, row-major.
   * Package-private on purpose: it is the unnoised statistic and exists outside {@link #report}
   * only for tests.
   */
  static double[][] sketch(LocalRobustProtocol protocol, int user, double[] x) {
    SketchSizes sz = protocol.sizes();
    if (user < 0 || user >= sz.m()) {
      throw new IllegalArgumentException(
          "user slot must be in 0.." + (sz.m() - 1) + ". Provided value: " + user);
    }
    int t = sz.t();
    int d = sz.n();
    int v = sz.v();
    double[] phi = new double[t];
    protocol.matrices().phi().columns(user, user + 1, phi);
    double[] s = new double[v];
    protocol.matrices().s().columns(user, user + 1, s);
    double[] tT = protocol.transposedT(); // column j = T[j, :]
    double[] yr = new double[t * d];
    for (int r = 0; r < t; r++) {
      for (int j = 0; j < d; j++) {
        yr[r * d + j] = phi[r] * x[j];
      }
    }
    double[] xt = new double[v]; // xᵀT
    for (int j = 0; j < d; j++) {
      double xj = x[j];
      if (xj != 0) {
        for (int b = 0; b < v; b++) {
          xt[b] += xj * tT[j * v + b];
        }
      }
    }
    double[] z = new double[v * v];
    for (int a = 0; a < v; a++) {
      for (int b = 0; b < v; b++) {
        z[a * v + b] = s[a] * xt[b];
      }
    }
    return new double[][] {yr, z};
  }
}
