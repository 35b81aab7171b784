package io.dplrf.client;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.pca.RowClipping;
import io.dplrf.sketch.randomness.GaussianMatrices;
import io.dplrf.sketch.randomness.PublicSeed;
import io.dplrf.sketch.randomness.RandomBits;
import java.util.List;
import java.util.Objects;

/**
 * The public parameters of local-DP PCA, everything a client needs to randomize its row and a
 * server needs to aggregate the reports: the public seed, the dimension d, the sketch width t,
 * the row bound C and (ε, δ). The server publishes them; every client derives the same public
 * sketching matrix Φ and the same noise scale from them. Immutable and thread-safe.
 *
 * <h2>The protocol (paper 002, §5, Theorem 5, read with Corollary 1)</h2>
 *
 * <p>Paper 002 states Theorem 5 (non-interactive local-DP PCA, one message per user, error
 * O(v√(m log(1/δ))/ε) for m users) without the algorithm; its text says the protocol "exploits
 * the fact that our meta algorithm only stores differentially private sketches" and, citing
 * Dwork et al. (Analyze Gauss), that PCA — a function of AᵀA — is where a local algorithm can be
 * non-trivial. Our reading: Corollary 1 (the sketch of AᵀA) in the local model. AᵀA = Σ_users
 * x xᵀ is a sum of per-user terms, and so is any linear sketch of it; so user i computes the
 * sketch of its own term and noises it:
 *
 * <pre>
 *   report_i = round_γ( x_i x_iᵀ Φ ) + N_i        (d×t),   N_i ~ γ·N_ℤ(0, s²) i.i.d.
 *   server:  Y = Σ_i report_i = AᵀA Φ + Σ_i N_i   (d×t)
 *   release: V = top-k left singular vectors of Y (d×k, orthonormal)
 * </pre>
 *
 * Φ (d×t, t ≤ d) has orthonormal columns: a Gaussian matrix from the public seed,
 * orthonormalized (a uniformly random t-frame, the range-finder sketch of Halko et al. that
 * the paper's Gaussian Φ ~ N(0, 1/t) approximates). The left singular vectors of AᵀAΦ span the
 * top eigenvectors of AᵀA when t ≥ k (with t = d, AᵀAΦ·Φᵀ = AᵀA exactly). This is the paper's
 * single-sketch "vanilla" estimate [B]_k of §3 (one sketch, no second sketch Z): in the local
 * model every sketch's noise is summed over all m users, so splitting the budget over a second
 * sketch would only add noise. Communication: d·t numbers per user (Theorem 5's O(v²) counts a
 * v×v sketch SÂTᵀ, which alone cannot give a d×k basis). Theorem 5 claims pure ε-LDP through
 * the generic transformation of Bun, Nelson, Stemmer; we do not apply it: each report is
 * (ε, δ)-DP.
 *
 * <h2>Privacy (local model): the exact sensitivity of one report</h2>
 *
 * <p>Neighbours in the local model are any two rows x, x' of the user's domain, ‖x‖₂ ≤ C and
 * ‖x'‖₂ ≤ C (the client clips its row to C first, {@code RowClipping}). The report's query is
 * q(x) = x xᵀ Φ, and with D = x xᵀ − x'x'ᵀ:
 *
 * <ol>
 *   <li>‖q(x) − q(x')‖_F = ‖DΦ‖_F ≤ ‖D‖_F·‖Φ‖₂.
 *   <li>‖D‖_F² = ‖x‖⁴ + ‖x'‖⁴ − 2(xᵀx')² ≤ 2C⁴.
 *   <li>‖Φ‖₂² = λ_max(ΦᵀΦ) ≤ 1 + ‖ΦᵀΦ − I‖₂ ≤ 1 + η with η = ‖ΦᵀΦ − I‖_F, computed here for
 *       the actual floating-point Φ, plus a bound ({@link #roundingSlack}) on the rounding of that
 *       computation.
 * </ol>
 *
 * Hence Δ₂ = C²·√(2(1 + η + slack)). The bound is attained (up to η) whenever t ≥ 2: x = Cφ₁,
 * x' = Cφ₂ (two columns of Φ) give ‖DΦ‖_F² = 2C⁴. The trivial 2C·‖sketch‖ bound of a linear
 * report does not apply: the report is quadratic in x, and its sensitivity is in C².
 *
 * <p>Calibration: one Gaussian mechanism per report, σ = (Δ₂ + γ√(dt))/μ(ε, δ) with μ from the
 * exact analytic Gaussian (Balle–Wang 2018 Thm 8), realised as the exact discrete Gaussian on a
 * power-of-two grid (Canonne–Kamath–Steinke 2020) exactly as every central mechanism of dplrf
 * ({@link GaussianSketchNoise}; γ√(dt) is the grid-rounding slack). The noise comes from the
 * client's own randomness ({@link LocalRandomizer}), never from the public seed.
 *
 * <p>A report has one part, Y (d×t, on the Gaussian grid), and no user slot; its wire format is
 * {@link LocalReportCodec}'s "DPLP".
 *
 * <h2>Utility</h2>
 *
 * <p>The aggregate is AᵀAΦ + N with N's entries independent, mean 0, variance m·σ². With t = d,
 * YΦᵀ = AᵀA + NΦᵀ has the same left singular vectors as Y, and NΦᵀ has i.i.d. entries of
 * variance m·σ², so ‖NΦᵀ‖₂ ≈ 2σ√(md) and Wedin's sin Θ theorem bounds the subspace error by
 * about 2σ√(md)/(λ_k − λ_{k+1}) (λ the eigenvalues of AᵀA). The central Analyze Gauss adds
 * noise of scale C²/μ once, giving ≈ 2(C²/μ)√d; here each of the m users adds √2·C²/μ, so the
 * noise is ≈ √(2m) times larger. The error still falls relative to λ_k ∝ m, like 1/√m instead of
 * 1/m: the local model needs about 2m² users for the accuracy the central model has with m.
 */
public final class LocalPcaProtocol extends LocalProtocol {
  /** Name and version of the protocol; part of the {@link #id()}. */
  public static final String FORMAT = "dplrf-local-pca/1";

  static final String PHI_LABEL = "local-pca/phi";
  static final String NOISE_LABEL = "local-pca/noise";

  private final PublicSeed seed;
  private final int d;
  private final int t;
  private final double clip;
  private final PrivacyParams privacy;
  private final double[] phi; // d×t, row-major, orthonormal columns
  private final double defect;
  private final double slack;
  private final GaussianSketchNoise noise;
  private final List<ReportPart> parts;
  private final String id;

  private LocalPcaProtocol(PublicSeed seed, int d, int t, double clip, PrivacyParams privacy) {
    this.seed = seed;
    this.d = d;
    this.t = t;
    this.clip = clip;
    this.privacy = privacy;
    this.phi = orthonormalColumns(seed, d, t);
    this.defect = orthonormalityDefect(phi, d, t);
    this.slack = roundingSlack(d, t);
    double base = clip * clip * Math.sqrt(2 * (1 + defect + slack));
    this.noise = GaussianSketchNoise.calibrate(
        "Y", base, (long) d * t, AnalyticGaussian.mu(privacy.epsilon(), privacy.delta()));
    this.parts = List.of(new ReportPart("Y", d, t, noise.grid().gamma()));
    this.id = fingerprint(seed, d, t, clip, privacy);
  }

  /**
   * The protocol for rows of dimension d.
   *
   * @param seed the public seed the server publishes (not a secret)
   * @param dimension d, the length of every row (public: the schema)
   * @param sketchCols t, 1 ≤ t ≤ d, the width of each report (d·t numbers)
   * @param clip C, rows are clipped to ‖x‖₂ ≤ C before anything else
   * @param privacy (ε, δ) of each report
   */
  public static LocalPcaProtocol of(
      PublicSeed seed, int dimension, int sketchCols, double clip, PrivacyParams privacy) {
    Objects.requireNonNull(seed, "seed");
    Objects.requireNonNull(privacy, "privacy");
    Preconditions.checkPositive("dimension (d)", dimension);
    Preconditions.checkPositive("sketch-cols (t)", sketchCols);
    Preconditions.check(sketchCols <= dimension, "sketch-cols (t)", "<= d = " + dimension,
        sketchCols);
    Preconditions.check((long) dimension * sketchCols <= Integer.MAX_VALUE / 2,
        "d * t", "<= 2^30", (long) dimension * sketchCols);
    Preconditions.checkPositiveFinite("clip", clip);
    return new LocalPcaProtocol(seed, dimension, sketchCols, clip, privacy);
  }

  @Override
  public String format() {
    return FORMAT;
  }

  @Override
  public String mechanism() {
    return "local";
  }

  @Override
  public PublicSeed seed() {
    return seed;
  }

  @Override
  public int dimension() {
    return d;
  }

  public int sketchCols() {
    return t;
  }

  /** C, the ℓ2 row bound. */
  @Override
  public double clip() {
    return clip;
  }

  @Override
  public PrivacyParams privacy() {
    return privacy;
  }

  /** 0: a report carries no slot (every user uses the same Φ). */
  @Override
  public int slots() {
    return 0;
  }

  /** Y, d×t, on the Gaussian noise grid. */
  @Override
  public List<ReportPart> parts() {
    return parts;
  }

  /** ‖x‖₂. */
  @Override
  public double rowNorm(double[] row) {
    return RowClipping.norm(row);
  }

  /** The noise of one report: grid, σ_eff, Δ₂ (with the grid slack), μ. */
  public GaussianSketchNoise noise() {
    return noise;
  }

  /** η = ‖ΦᵀΦ − I‖_F of the floating-point Φ (class comment, step 3). */
  public double orthonormalityDefect() {
    return defect;
  }

  /**
   * 16 hex digits identifying every parameter (format, seed, d, t, C, ε, δ): reports carry it,
   * and an aggregate refuses reports of another protocol.
   */
  @Override
  public String id() {
    return id;
  }

  /** Φ (d×t) as a fresh row-major array: public, for servers and tests that want to check it. */
  public double[] sketchMatrix() {
    return phi.clone();
  }

  @Override
  String noiseLabel() {
    return NOISE_LABEL;
  }

  /** To ‖x‖₂ ≤ C (step 2 of the class comment needs the ℓ2 bound). */
  @Override
  void clipInPlace(double[] x) {
    RowClipping.clipInPlace(x, clip);
  }

  /** q(x) = x (Φᵀx)ᵀ = x xᵀ Φ, row-major d×t; no slot. */
  @Override
  double[][] query(int slot, double[] x) {
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
    return new double[][] {y};
  }

  /** round_γ(q) + γ·N_ℤ(0, s²) per entry, the exact discrete Gaussian of {@link #noise()}. */
  @Override
  void addNoise(double[][] query, RandomBits bits) {
    GridGaussian grid = noise.grid();
    double gamma = grid.gamma();
    double[] y = query[0];
    for (int e = 0; e < y.length; e++) {
      y[e] = GridGaussian.roundToGrid(y[e], gamma) + grid.sample(bits);
    }
  }

  @Override
  LocalReportCodec.Format wireFormat() {
    return LocalReportCodec.DPLP;
  }

  /**
   * A bound on the rounding error of the computed η: each entry of ΦᵀΦ is a dot product of d
   * terms of columns of norm ≈ 1, off by at most 1.01·d·2⁻⁵³ (Higham, Accuracy and Stability,
   * §3.1, with ‖φ_a‖‖φ_b‖ ≤ 1 + η ≈ 1); t² entries put the Frobenius error under t·that. We use
   * twice as much, plus 10⁻¹², and add it to η.
   */
  static double roundingSlack(int d, int t) {
    return 2.02 * d * (double) t * 0x1.0p-53 + 1e-12;
  }

  /**
   * Φ: the d×t Gaussian matrix of the public seed (label {@value #PHI_LABEL}), its columns
   * orthonormalized by modified Gram–Schmidt applied twice ("twice is enough", Giraud et al.
   * 2005), which makes ΦᵀΦ = I to working precision. Row-major d×t.
   */
  static double[] orthonormalColumns(PublicSeed seed, int d, int t) {
    double[] g = new double[d * t];
    GaussianMatrices.gaussian(seed, PHI_LABEL, d, t, 1).columns(0, t, g); // column-major
    for (int c = 0; c < t; c++) {
      int oc = c * d;
      for (int pass = 0; pass < 2; pass++) {
        for (int b = 0; b < c; b++) {
          int ob = b * d;
          double r = 0;
          for (int i = 0; i < d; i++) {
            r += g[ob + i] * g[oc + i];
          }
          for (int i = 0; i < d; i++) {
            g[oc + i] -= r * g[ob + i];
          }
        }
      }
      double n = 0;
      for (int i = 0; i < d; i++) {
        n += g[oc + i] * g[oc + i];
      }
      n = Math.sqrt(n);
      if (!(n > 1e-8)) {
        // Probability zero for Gaussian columns with t ≤ d; refuse rather than divide.
        throw new ArithmeticException("public sketch column " + c + " is degenerate; use another seed");
      }
      for (int i = 0; i < d; i++) {
        g[oc + i] /= n;
      }
    }
    double[] rowMajor = new double[d * t];
    for (int c = 0; c < t; c++) {
      for (int i = 0; i < d; i++) {
        rowMajor[i * t + c] = g[c * d + i];
      }
    }
    return rowMajor;
  }

  /** ‖ΦᵀΦ − I‖_F for a row-major d×t Φ. */
  static double orthonormalityDefect(double[] phi, int d, int t) {
    double s = 0;
    for (int a = 0; a < t; a++) {
      for (int b = a; b < t; b++) {
        double dot = 0;
        for (int i = 0; i < d; i++) {
          dot += phi[i * t + a] * phi[i * t + b];
        }
        double e = dot - (a == b ? 1 : 0);
        s += (a == b ? 1 : 2) * e * e;
      }
    }
    return Math.sqrt(s);
  }

  private static String fingerprint(
      PublicSeed seed, int d, int t, double clip, PrivacyParams privacy) {
    return fingerprint(FORMAT + "|seed=" + seed + "|d=" + d + "|t=" + t + "|clip="
        + Double.doubleToLongBits(clip) + "|epsilon=" + Double.doubleToLongBits(privacy.epsilon())
        + "|delta=" + Double.doubleToLongBits(privacy.delta()));
  }

  @Override
  public String toString() {
    return "LocalPcaProtocol[id=" + id + ", d=" + d + ", t=" + t + ", C=" + clip + ", eps="
        + privacy.epsilon() + ", delta=" + privacy.delta() + ", sigma=" + noise.sigma() + "]";
  }
}
