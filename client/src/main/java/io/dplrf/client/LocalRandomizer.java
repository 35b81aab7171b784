package io.dplrf.client;

import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.pca.RowClipping;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.Objects;

/**
 * The client side of local-DP PCA: turns the user's own row into a {@link LocalReport} on the
 * user's machine. Steps (derivation in {@link LocalPcaProtocol}): clip a copy of the row to
 * ‖x‖₂ ≤ C; compute the sketch x (Φᵀx)ᵀ (d×t) with the protocol's public Φ; round it to the
 * noise grid γℤ; add γ·N_ℤ(0, s²) to every entry with the exact discrete Gaussian sampler.
 *
 * <p><b>Randomness.</b> The noise is the user's own: {@link #create} draws a fresh 256-bit key
 * from the platform's {@link java.security.SecureRandom} ({@link SecretKey#ephemeral()}), kept in
 * memory only, and reads the AES-256-CTR stream of that key — a CSPRNG. Nothing about it derives
 * from the public seed, and every report consumes fresh bits of the stream, so two reports of the
 * same row carry independent noise. (Sending several reports about one row composes: k reports
 * are together only as private as k Gaussian mechanisms; the protocol expects one per user.)
 *
 * <p>Thread-safe: {@link #report} is synchronized (the bit stream is sequential). Dependencies:
 * the JDK and dplrf-sketch-store only.
 */
public final class LocalRandomizer {
  static final String NOISE_LABEL = "local-pca/noise";

  private final LocalPcaProtocol protocol;
  private final RandomBits bits;

  private LocalRandomizer(LocalPcaProtocol protocol, RandomBits bits) {
    this.protocol = Objects.requireNonNull(protocol, "protocol");
    this.bits = Objects.requireNonNull(bits, "bits");
  }

  /** A randomizer whose noise comes from a fresh SecureRandom-seeded CSPRNG (class comment). */
  public static LocalRandomizer create(LocalPcaProtocol protocol) {
    return new LocalRandomizer(protocol, KeyStream.of(SecretKey.ephemeral(), NOISE_LABEL).bits());
  }

  /** Tests only: noise from a given (e.g. test-key) bit source, for reproducible checks. */
  static LocalRandomizer withBits(LocalPcaProtocol protocol, RandomBits bits) {
    return new LocalRandomizer(protocol, bits);
  }

  public LocalPcaProtocol protocol() {
    return protocol;
  }

  /**
   * The user's report: clip, sketch, round to the grid, add the calibrated noise.
   *
   * @param row the user's row, d finite values; not modified
   * @throws IllegalArgumentException if the row has the wrong length or a non-finite value
   */
  public synchronized LocalReport report(double[] row) {
    double[] y = sketch(protocol, clipped(protocol, row));
    GridGaussian grid = protocol.noise().grid();
    double gamma = grid.gamma();
    for (int e = 0; e < y.length; e++) {
      y[e] = GridGaussian.roundToGrid(y[e], gamma) + grid.sample(bits);
    }
    return new LocalReport(protocol.id(), protocol.dimension(), protocol.sketchCols(), y);
  }

  /** A clipped copy of the row (validated). */
  static double[] clipped(LocalPcaProtocol protocol, double[] row) {
    Objects.requireNonNull(row, "row");
    if (row.length != protocol.dimension()) {
      throw new IllegalArgumentException(
          "row has " + row.length + " values, the protocol's dimension is " + protocol.dimension());
    }
    double[] x = row.clone();
    RowClipping.clipInPlace(x, protocol.clip()); // rejects non-finite values
    return x;
  }

  /**
   * The noiseless query q(x) = x (Φᵀx)ᵀ = x xᵀ Φ, row-major d×t. Package-private on purpose:
   * it is the unnoised statistic and exists outside {@link #report} only for tests.
   */
  static double[] sketch(LocalPcaProtocol protocol, double[] x) {
    int d = protocol.dimension();
    int t = protocol.sketchCols();
    double[] phi = protocol.phi();
    double[] p = new double[t]; // Φᵀx
    for (int i = 0; i < d; i++) {
      double xi = x[i];
      if (xi != 0) {
        int o = i * t;
        for (int c = 0; c < t; c++) {
          p[c] += xi * phi[o + c];
        }
      }
    }
    double[] y = new double[d * t];
    for (int i = 0; i < d; i++) {
      double xi = x[i];
      int o = i * t;
      for (int c = 0; c < t; c++) {
        y[o + c] = xi * p[c];
      }
    }
    return y;
  }
}
