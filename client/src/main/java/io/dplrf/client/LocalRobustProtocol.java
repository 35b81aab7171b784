package io.dplrf.client;

import io.dplrf.sketch.lra.LaplaceSketchNoise;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.lra.RobustPlan;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.noise.GridLaplace;
import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.pca.RowClipping;
import io.dplrf.sketch.randomness.PublicSeed;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.StableMatrices;
import java.util.List;
import java.util.Objects;

/**
 * The public parameters of LOCAL-ROBUST-PCA (paper 001 = the supplement of paper 000, Appendix C,
 * Algorithm 3 / Figure 3, Theorem 24): the public seed, the number of user slots m, the row
 * dimension d, the rank k, the sketch sizes t ≤ v, the stability index p, the row bound C (ℓ1)
 * and ε. Every client and the server derive from them the same public p-stable matrices and the
 * same Laplace scales. Immutable and thread-safe. Derivation: docs/privacy/local-pca.md §4.
 *
 * <h2>The protocol, in dplrf's orientation</h2>
 *
 * <p>Algorithm 3 is ROBUST-PCA (paper 000, Algorithm 2) with each user computing her own share
 * of its two sketches. In dplrf's orientation (docs/privacy/robust.md §1: A is m×d, one row per
 * user) ROBUST-PCA keeps Yr = ΦA (t×d) and Z = SAT (v×v), with Φ (t×m) and S (v×m) acting on
 * the users and T (d×v) on the features. Line 4's A⁽ⁱ⁾ (the matrix whose only non-zero row is
 * user i's row x) makes both sums of per-user terms, so user i (slot i ∈ [0, m)) sends
 *
 * <pre>
 *   Yr_i = Φ[:, i] xᵀ + N1_i          (t×d)     Algorithm 3's Y_c,i = A⁽ⁱ⁾Ψ (paper orientation)
 *   Z_i  = S[:, i] (xᵀT) + N2_i       (v×v)     Algorithm 3's Y_r,i = Φ A⁽ⁱ⁾ T
 * </pre>
 *
 * with N1_i, N2_i exact grid Laplace from her own coins. Line 5's third message Z_i = Y_r,i is a
 * copy of the second (the paper's S (s×d) and N2_i of line 3 are drawn but never used, exactly as in the central
 * Algorithm 2, whose "Z = Y_r" we read the same way), so it is not sent: sending it twice would
 * add nothing. The server sums the reports (line 9) and runs ROBUST-PCA's post-processing
 * (lines 10–14; {@code release.RobustRelease.basis}, our reading in robust.md §1).
 *
 * <h2>Privacy: the exact ℓ1 sensitivity of one report (pure ε-LDP)</h2>
 *
 * <p>Local neighbours are any two rows x, x' the user could hold. The client clips its row to
 * ‖x‖₁ ≤ C (ℓ1, because the Laplace calibration is in ℓ1: an ℓ2 bound would have to be turned
 * into ‖x‖₁ ≤ √d·C, loose by up to √d for rows that are not flat). With δ = x − x',
 * ‖δ‖₁ ≤ 2C, and for slot i
 *
 * <pre>
 *   ‖Yr_i(x) − Yr_i(x')‖₁ = ‖Φ[:, i]‖₁ ‖δ‖₁                          ≤ 2C·a
 *   ‖Z_i(x) − Z_i(x')‖₁  = ‖S[:, i]‖₁ ‖δᵀT‖₁ ≤ ‖S[:, i]‖₁ Σ_j |δ_j| ‖T[j, :]‖₁ ≤ 2C·c·d
 * </pre>
 *
 * a, c, d the largest column ℓ1 norms of Φ, S and of Tᵀ computed from the matrices actually
 * drawn ({@link RobustMatrices}; entries clipped at τ = sketch dimension by default). Both are
 * attained: x = C e_j, x' = −C e_j with j the row of T of largest norm, at the slot of largest
 * ‖Φ[:, i]‖₁ (resp. ‖S[:, i]‖₁). The change of a user's report is thus a change of the central
 * sketches by D = e_i δᵀ with ‖D‖₁ ≤ 2C, so the central calibration {@link RobustPlan#calibrate}
 * with clip 2C is exactly this report's: ε/2 to each part, Laplace scale (2C·factor + grid
 * slack)/(ε/2). The matrices are public and fixed before any data: for every draw each report is
 * ε-DP — no δ, no high-probability step. The query's floating-point error (one product per entry
 * of Yr_i; a d-term dot product per entry of xᵀT) is below (d + 2)·2⁻⁵³ relative, inside the 10⁻⁹
 * margin of the ℓ1 clip.
 *
 * <p>Why m is public: Φ and S have one column per user slot. In the local model the relation is
 * replacing a user's row, which leaves m unchanged; m is part of the protocol, like d.
 *
 * <p>A report has two parts, Yr_i (t×d) and Z_i (v×v), each on its own Laplace grid, and carries
 * its slot i ({@link #slots()} = m); its wire format is {@link LocalReportCodec}'s "DPLR". The
 * sums of the reports are handed to ROBUST-PCA's release as {@link #sketches}.
 */
public final class LocalRobustProtocol extends LocalProtocol {
  /** Name and version of the protocol; part of the {@link #id()}. */
  public static final String FORMAT = "dplrf-local-robust-pca/1";

  static final String INSTANCE = "local-robust-pca";
  static final String NOISE_LABEL = "local-robust-pca/noise";

  private final PublicSeed seed;
  private final SketchSizes sizes;
  private final double p;
  private final double clip;
  private final double stableClip;
  private final PrivacyParams privacy;
  private final RobustMatrices matrices;
  private final RobustPlan plan;
  private final double[] transposedT; // Tᵀ (v×d) column-major: column j = T[j, :]
  private final List<ReportPart> parts;
  private final String id;

  private LocalRobustProtocol(PublicSeed seed, SketchSizes sizes, double p, double clip,
      double stableClip, PrivacyParams privacy) {
    this.seed = seed;
    this.sizes = sizes;
    this.p = p;
    this.clip = clip;
    this.stableClip = stableClip;
    this.privacy = privacy;
    this.matrices = RobustMatrices.generatePublic(seed, INSTANCE, sizes, p, true, stableClip);
    // A report's change is the central sketches' change under D = e_i (x − x')ᵀ, ‖D‖₁ ≤ 2C.
    this.plan = RobustPlan.calibrate(privacy, 2 * clip, matrices);
    this.transposedT = new double[sizes.v() * sizes.n()];
    matrices.tTransposed().columns(0, sizes.n(), transposedT);
    this.parts = List.of(
        new ReportPart("Yr", sizes.t(), sizes.n(), plan.yr().grid().gamma()),
        new ReportPart("Z", sizes.v(), sizes.v(), plan.z().grid().gamma()));
    this.id = fingerprint();
  }

  /**
   * The protocol.
   *
   * @param seed the public seed the server publishes (not a secret)
   * @param users m, the number of user slots (each user reports under her own slot 0..m−1)
   * @param dimension d, the length of every row (public: the schema)
   * @param rank k, the rank of the released basis
   * @param t width of Φ: null for {@link RobustPlan#defaultSizes}'s min(4k, m, d)
   * @param v width of S, T: null for 2t
   * @param p stability index in [1, 2)
   * @param clip C: rows are clipped to ‖x‖₁ ≤ C
   * @param stableClip clip level factor of the p-stable entries ({@link
   *     RobustMatrices#DEFAULT_STABLE_CLIP}; ∞ for none)
   * @param privacy ε of each report (δ is not used: pure ε-LDP)
   */
  public static LocalRobustProtocol of(PublicSeed seed, int users, int dimension, int rank,
      Integer t, Integer v, double p, double clip, double stableClip, PrivacyParams privacy) {
    Objects.requireNonNull(seed, "seed");
    Objects.requireNonNull(privacy, "privacy");
    Preconditions.checkPositive("users (m)", users);
    Preconditions.checkPositive("dimension (d)", dimension);
    // The floating-point argument of docs/privacy/local-pca.md §4 (query within (d + 2)·2⁻⁵³
    // relative of the exact one, inside the 10⁻⁹ margin of the ℓ1 clip) needs d < 10⁶.
    Preconditions.check(dimension < 1_000_000, "dimension (d)", "< 10^6", dimension);
    Preconditions.checkPositive("rank (k)", rank);
    Preconditions.check(rank <= Math.min(users, dimension), "rank (k)",
        "<= min(users, d) = " + Math.min(users, dimension), rank);
    StableMatrices.checkP(p);
    Preconditions.checkPositiveFinite("clip", clip);
    SketchSizes sizes = RobustPlan.defaultSizes(users, dimension, rank, t, v);
    Preconditions.check(sizes.t() <= dimension, "sketch-cols (t)", "<= d = " + dimension,
        sizes.t());
    Preconditions.check((long) sizes.t() * dimension + (long) sizes.v() * sizes.v()
        <= Integer.MAX_VALUE / 2, "t*d + v*v", "<= 2^30", (long) sizes.t() * dimension);
    return new LocalRobustProtocol(seed, sizes, p, clip, stableClip, privacy);
  }

  @Override
  public String format() {
    return FORMAT;
  }

  @Override
  public String mechanism() {
    return "local-robust";
  }

  @Override
  public PublicSeed seed() {
    return seed;
  }

  /** m, d, k, t, v. */
  public SketchSizes sizes() {
    return sizes;
  }

  /** m: user i reports under slot i, with the columns Φ[:, i] and S[:, i]. */
  @Override
  public int slots() {
    return sizes.m();
  }

  @Override
  public int dimension() {
    return sizes.n();
  }

  public double p() {
    return p;
  }

  /** C, the ℓ1 row bound. */
  @Override
  public double clip() {
    return clip;
  }

  public double stableClip() {
    return stableClip;
  }

  @Override
  public PrivacyParams privacy() {
    return privacy;
  }

  /** Yr (t×d) and Z (v×v), each on its Laplace grid. */
  @Override
  public List<ReportPart> parts() {
    return parts;
  }

  /** ‖x‖₁. */
  @Override
  public double rowNorm(double[] row) {
    return RowClipping.l1Norm(row);
  }

  /** The public p-stable matrices (Φ, S, Tᵀ) and their exact column-norm maxima. */
  public RobustMatrices matrices() {
    return matrices;
  }

  /** The per-report Laplace calibration: {@code yr()} and {@code z()}, ε/2 each. */
  public RobustPlan plan() {
    return plan;
  }

  /** Tᵀ column-major (column j = T[j, :]) without a copy, for the randomizer. */
  double[] transposedT() {
    return transposedT;
  }

  /**
   * 16 hex digits identifying every parameter (format, seed, m, d, k, t, v, p, C, stable clip,
   * ε): reports carry it, and an aggregate refuses reports of another protocol.
   */
  @Override
  public String id() {
    return id;
  }

  /**
   * The summed parts as ROBUST-PCA's released bundle (paper 001, Algorithm 3 line 9, handed to
   * lines 10–14, {@code release.RobustRelease.basis}): Yr (t×d), Z (v×v), the public S and Tᵀ,
   * and per part the noise of the sum of {@code reports} reports (σ = √(reports)·√2·b, the ℓ1
   * sensitivity of one report).
   */
  public RobustSketches sketches(Dense yr, Dense z, long reports) {
    List<NoiseScale> noise = List.of(summed(plan.yr(), parts.get(0).size(), reports),
        summed(plan.z(), parts.get(1).size(), reports));
    return new RobustSketches(sizes.m(), sizes.n(), p, yr, null, z, matrices.s(),
        matrices.tTransposed(), noise);
  }

  private static NoiseScale summed(LaplaceSketchNoise n, long entries, long reports) {
    NoiseScale one = n.scale(entries);
    return new NoiseScale(one.sketch(), one.sigma() * Math.sqrt(reports), one.sensitivity(),
        one.entries());
  }

  @Override
  String noiseLabel() {
    return NOISE_LABEL;
  }

  /** To ‖x‖₁ ≤ C (the Laplace calibration is in ℓ1: class comment). */
  @Override
  void clipInPlace(double[] x) {
    RowClipping.clipL1InPlace(x, clip);
  }

  /**
   * {Yr_i, Z_i} = {Φ[:, i] xᵀ (t×d), S[:, i] (xᵀT) (v×v)}, row-major, for the user of slot i
   * (Algorithm 3 line 5, in dplrf's orientation: class comment).
   */
  @Override
  double[][] query(int slot, double[] x) {
    if (slot < 0 || slot >= sizes.m()) {
      throw new IllegalArgumentException(
          "user slot must be in 0.." + (sizes.m() - 1) + ". Provided value: " + slot);
    }
    int t = sizes.t();
    int d = sizes.n();
    int v = sizes.v();
    double[] phi = new double[t];
    matrices.phi().columns(slot, slot + 1, phi);
    double[] s = new double[v];
    matrices.s().columns(slot, slot + 1, s);
    double[] yr = new double[t * d];
    for (int r = 0; r < t; r++) {
      for (int j = 0; j < d; j++) {
        yr[r * d + j] = phi[r] * x[j];
      }
    }
    double[] xt = new double[v]; // xᵀT; column j of Tᵀ is T[j, :]
    for (int j = 0; j < d; j++) {
      double xj = x[j];
      if (xj != 0) {
        for (int b = 0; b < v; b++) {
          xt[b] += xj * transposedT[j * v + b];
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

  /**
   * Each part rounded to its grid plus γ·DLap(s) per entry (line 3's N1_i, N0_i "using its
   * private coin"), the exact discrete Laplace of {@link #plan()}: Yr's noise, then Z's.
   */
  @Override
  void addNoise(double[][] query, RandomBits bits) {
    noisy(query[0], plan.yr(), bits);
    noisy(query[1], plan.z(), bits);
  }

  private static void noisy(double[] data, LaplaceSketchNoise noise, RandomBits bits) {
    GridLaplace grid = noise.grid();
    double gamma = grid.gamma();
    double[] n = new double[data.length];
    grid.fill(bits, n, 0, n.length);
    for (int e = 0; e < data.length; e++) {
      data[e] = GridLaplace.roundToGrid(data[e], gamma) + n[e];
    }
  }

  @Override
  LocalReportCodec.Format wireFormat() {
    return LocalReportCodec.DPLR;
  }

  private String fingerprint() {
    return fingerprint(FORMAT + "|seed=" + seed + "|m=" + sizes.m() + "|d="
        + sizes.n() + "|k=" + sizes.k() + "|t=" + sizes.t() + "|v=" + sizes.v() + "|p="
        + Double.doubleToLongBits(p) + "|clip=" + Double.doubleToLongBits(clip) + "|stableClip="
        + Double.doubleToLongBits(stableClip) + "|epsilon="
        + Double.doubleToLongBits(privacy.epsilon()));
  }

  @Override
  public String toString() {
    return "LocalRobustProtocol[id=" + id + ", m=" + sizes.m() + ", d=" + sizes.n() + ", t="
        + sizes.t() + ", v=" + sizes.v() + ", p=" + p + ", C=" + clip + ", eps="
        + privacy.epsilon() + "]";
  }
}
