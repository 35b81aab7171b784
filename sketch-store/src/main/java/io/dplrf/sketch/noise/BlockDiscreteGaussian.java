package io.dplrf.sketch.noise;

import io.dplrf.sketch.params.Preconditions;
import io.dplrf.sketch.randomness.RandomBits;
import java.util.Objects;

/**
 * The discrete Gaussian N_ℤ(0, s²), P[X = x] ∝ f(x) = exp(−x²/(2s²)), sampled exactly — the same
 * law as {@link DiscreteGaussian}, about 4.5 times faster: rejection from a piecewise-uniform
 * proposal picked from a Walker alias table, with nearly every accept decision settled by a
 * certified floating-point filter and the rest by exact arithmetic ({@link ScaledExp}).
 *
 * <p><b>Proposal.</b> ℤ is cut into body blocks of B = 2^b integers, b = max(0, ⌊log₂s⌋ − 6)
 * (64–128 blocks per σ once s ≥ 64), covering [−R, R) with R = C·B ≥ {@code bodySigmas}·s, and
 * two tails. Body block c (integers [cB, cB + B)) has the integer weight w_c = ⌈2^52·f̄_c⌉ ≥ 2^52·f(m_c), where
 * m_c is the block's integer nearest 0 (where f is largest on it) and f̄_c a proved upper bound of
 * f(m_c). The tail outcome has weight w_T (below) and a "restart" outcome pads the total to n·T,
 * n columns of T each, so that the alias table is exact in integers: a column is drawn uniformly,
 * then an integer in [0, T) picks the column's own outcome or its alias (Vose's construction in
 * integer arithmetic). For a body block, x = cB + r with r uniform in [0, B).
 *
 * <p><b>Acceptance.</b> Per round, with W = n·T, P[propose x] = w_c/(W·B) in block c, and x is
 * accepted with probability a(x) = 2^52·f(x)/w_c ≤ 1, so P[return x in a round] = 2^52·f(x)/(W·B)
 * for every body x. A tail proposal (below) is accepted so that the same holds for every tail x.
 * Rounds are independent, so the returned x has law ∝ f(x): exactly N_ℤ(0, s²). The body accepts
 * ≈ 99% (f drops by a factor ≈ e^{−|x|B/s²} across a block); a(x) = ρ_c·e^{−y} with ρ_c =
 * 2^52·f(m_c)/w_c and y = (x² − m_c²)/(2s²), so 1 − y ≤ e^{−y} ≤ 1 − y + y²/2 settles almost every
 * round without an exponential.
 *
 * <p><b>Tails</b> (|x| ≥ R, mass ≲ e^{−bodySigmas²/2}): a uniform sign, j ≥ 0 with P[j] =
 * 2^−(j+1) (count of 1 bits before a 0), and x = ±(R + [x < 0] + j·S + r), r uniform in [0, S), S =
 * 2^⌈log₂s⌉ ≥ s. Then P[propose x] = (w_T/W)·2^−(j+2)/S, and a(x) = 2^(54 + j)·(S/B)·f(x)/w_T
 * gives the body's P[return x]. a(x) ≤ 1 because (R + jS)² ≥ R² + 2jRS with R·S ≥ s² gives f(R +
 * jS) ≤ f(R)·e^{−j} ≤ f(R)·2^−j, and w_T = ⌈2^54·(S/B)·f̄(R)⌉.
 *
 * <p><b>Proved bounds of f at build time.</b> f̃ = StrictMath.exp(−γ̃) (fdlibm: deterministic on
 * every platform, so the table, and with it every sample drawn from a given bit stream, is too)
 * is within relative 2^−49·(1 + γ) of f for γ ≤ 2^40 (the error analysis in {@link ScaledExp});
 * f̄ = f̃·(1 + 2^−40·(1 + γ̃)) + 2^−1000, capped at 1, and the matching lower bound, use a margin
 * 2^9 times that. The per-round filter bounds add a relative 2^−48 for their own roundings (y̅ is
 * formed from the exact integer (|x| − m_c)·(|x| + m_c) < 2^61 with three roundings, 2^−51).
 *
 * <p>The whole argument, with its tests: docs/privacy/exact-sampler.md.
 *
 * <p>Immutable and thread-safe once built (44·n bytes of tables; n ≈ 2·bodySigmas·s/B + 2 ≤
 * 2,310 at the default 9σ). The {@link BitReader} argument is not thread-safe.
 */
public final class BlockDiscreteGaussian {
  /** The body spans ±9σ by default: the tails carry e^{−40.5} ≈ 2^−58 of the mass. */
  static final int DEFAULT_BODY_SIGMAS = 9;
  /** Weights are 2^52·f, rounded up: f to 52 bits, W ≤ 2^61. */
  private static final int WEIGHT_BITS = 52;
  private static final double FILTER_ROUNDING = 0x1p-48;

  private final long s;
  private final long twoS2;
  private final double twoS2d;
  private final int blockBits;
  private final int tailBits;
  private final int blocksPerSide;
  private final long bodyEnd;
  private final int tail;
  private final int columns;
  private final long columnWeight;
  private final long[] own;
  private final int[] alias;
  private final long[] weight;
  private final long[] nearest;
  private final double[] rhoLow;
  private final double[] rhoHigh;

  private BlockDiscreteGaussian(long s, int bodySigmas) {
    this.s = s;
    this.twoS2 = 2 * s * s;
    this.twoS2d = twoS2;
    int log2s = 63 - Long.numberOfLeadingZeros(s);
    this.blockBits = Math.max(0, log2s - 6);
    this.tailBits = 64 - Long.numberOfLeadingZeros(s - 1); // 2^tailBits ≥ s
    long block = 1L << blockBits;
    this.blocksPerSide = Math.toIntExact((bodySigmas * s + block - 1) / block);
    this.bodyEnd = blocksPerSide * block; // ≥ bodySigmas·s ≥ s, so R·S ≥ s²
    int body = 2 * blocksPerSide;
    this.tail = body;
    this.columns = body + 2; // body blocks, the tail, the restart
    this.weight = new long[columns];
    this.nearest = new long[body];
    this.rhoLow = new double[body];
    this.rhoHigh = new double[body];
    long total = 0;
    for (int o = 0; o < body; o++) {
      long c = o - blocksPerSide;
      nearest[o] = c >= 0 ? c * block : (-c - 1) * block + 1;
      double[] f = fBounds(nearest[o]);
      weight[o] = Math.max(1, (long) Math.ceil(Math.scalb(f[1], WEIGHT_BITS)));
      double scale = Math.scalb(1.0, WEIGHT_BITS) / weight[o];
      rhoLow[o] = f[0] * scale * (1 - FILTER_ROUNDING);
      rhoHigh[o] = Math.min(1, f[1] * scale * (1 + FILTER_ROUNDING));
      total = Math.addExact(total, weight[o]);
    }
    double tailBound = Math.scalb(fBounds(bodyEnd)[1], WEIGHT_BITS + 2 + tailBits - blockBits);
    Preconditions.check(tailBound < 0x1p62, "tail weight", "below 2^62", tailBound);
    weight[tail] = Math.max(1, (long) Math.ceil(tailBound));
    total = Math.addExact(total, weight[tail]);
    this.columnWeight = (total + columns - 1) / columns;
    weight[columns - 1] = Math.multiplyExact(columnWeight, columns) - total; // the restart
    this.own = new long[columns];
    this.alias = new int[columns];
    buildAlias(weight, columnWeight, own, alias);
  }

  /**
   * N_ℤ(0, s²) for 1 ≤ s ≤ 2^31 − 1 (2s² < 2^63, as {@link DiscreteGaussian}). Builds the tables
   * (1–8 ms at s ≈ 2^31, most of it 2,300 StrictMath.exp calls).
   */
  public static BlockDiscreteGaussian withScale(long s) {
    return withScale(s, DEFAULT_BODY_SIGMAS);
  }

  /** With the body cut at ±bodySigmas·σ; tests use small values to exercise the tails. */
  static BlockDiscreteGaussian withScale(long s, int bodySigmas) {
    Preconditions.check(s >= 1 && s <= DiscreteGaussian.MAX_SCALE, "s", "in [1, 2^31 - 1]", s);
    Preconditions.check(bodySigmas >= 1 && bodySigmas <= 16,
        "bodySigmas", "in [1, 16]", bodySigmas);
    return new BlockDiscreteGaussian(s, bodySigmas);
  }

  public long scale() {
    return s;
  }

  /** One sample, from a fresh {@link BitReader} (the unused bits of its last word are dropped). */
  public long sample(RandomBits bits) {
    return sample(new BitReader(Objects.requireNonNull(bits, "bits")));
  }

  long sample(BitReader bits) {
    while (true) {
      int column = bits.below32(columns);
      int o = bits.below64(columnWeight) < own[column] ? column : alias[column];
      if (o < tail) {
        long x = blockStart(o) + (blockBits == 0 ? 0 : bits.bits(blockBits));
        if (acceptBody(bits, o, x, bits.bits(53))) {
          return x;
        }
      } else if (o == tail) {
        boolean negative = bits.bit();
        long j = 0;
        while (bits.bit()) {
          j++;
        }
        long offset = tailBits == 0 ? 0 : bits.bits(tailBits);
        long magnitude = Math.addExact(bodyEnd + (negative ? 1 : 0),
            Math.addExact(Math.multiplyExact(j, 1L << tailBits), offset));
        int k = Math.toIntExact(WEIGHT_BITS + 2 + j + tailBits - blockBits);
        if (ScaledExp.uniformBelow(bits, bits.bits(53), magnitude, twoS2, k, weight[tail])) {
          return negative ? -magnitude : magnitude;
        }
      } // else the restart outcome: another round
    }
  }

  /**
   * U < a(x) = ρ_o·e^{−y}, y = (x² − m_o²)/(2s²), for the uniform U whose first 53 bits are u: the
   * squeeze, then {@link ScaledExp}. (0 ≤ |x| − m_o < 2^24 and |x| + m_o < 2^37: the product is
   * exact.)
   */
  boolean acceptBody(BitReader bits, int o, long x, long u) {
    long absX = Math.abs(x);
    long near = nearest[o];
    double y = (double) ((absX - near) * (absX + near)) / twoS2d;
    double low = u * 0x1p-53;
    if (low + 0x1p-53 <= rhoLow[o] * (1 - y * (1 + FILTER_ROUNDING)) * (1 - FILTER_ROUNDING)) {
      return true;
    }
    double upper = (1 - y * (1 - FILTER_ROUNDING) + 0.5 * y * y * (1 + FILTER_ROUNDING));
    if (low >= rhoHigh[o] * upper * (1 + FILTER_ROUNDING)) {
      return false;
    }
    return ScaledExp.uniformBelow(bits, u, absX, twoS2, WEIGHT_BITS, weight[o]);
  }

  /**
   * {lower, upper} bounds of f(m) = e^{−m²/(2s²)} (class comment): exact 1 at m = 0, else
   * StrictMath.exp widened by 2^−40·(1 + γ̃) relative and 2^−1000 absolute.
   */
  private double[] fBounds(long m) {
    if (m == 0) {
      return new double[] {1, 1};
    }
    double gamma = ((double) m * (double) m) / twoS2d;
    double f = StrictMath.exp(-gamma);
    double rel = 0x1p-40 * (1 + gamma);
    return new double[] {
        Math.max(0, f * (1 - rel) - 0x1p-1000), Math.min(1, f * (1 + rel) + 0x1p-1000)};
  }

  /**
   * Vose's alias construction in exact integers: every column holds columnWeight, split between
   * its own outcome ({@code own[i]}) and {@code alias[i]}; outcome o's shares over all columns sum
   * to weight[o] exactly. Deterministic (fixed scan order, arrays as stacks).
   */
  static void buildAlias(long[] weight, long columnWeight, long[] own, int[] alias) {
    int n = weight.length;
    long[] left = weight.clone();
    int[] small = new int[n];
    int[] large = new int[n];
    int smalls = 0;
    int larges = 0;
    for (int i = 0; i < n; i++) {
      if (left[i] < columnWeight) {
        small[smalls++] = i;
      } else {
        large[larges++] = i;
      }
    }
    while (smalls > 0 && larges > 0) {
      int l = small[--smalls];
      int g = large[--larges];
      own[l] = left[l];
      alias[l] = g;
      left[g] -= columnWeight - left[l];
      if (left[g] < columnWeight) {
        small[smalls++] = g;
      } else {
        large[larges++] = g;
      }
    }
    while (larges > 0) {
      int g = large[--larges];
      if (left[g] != columnWeight) { // only if the weights did not sum to n·columnWeight
        throw new IllegalStateException("alias weights do not fill " + n + " columns");
      }
      own[g] = columnWeight;
      alias[g] = g;
    }
    if (smalls > 0) {
      throw new IllegalStateException("alias weights do not fill " + n + " columns");
    }
  }

  /** For tests: outcome o's total weight read back from the alias table. */
  long aliasWeight(int o) {
    long sum = 0;
    for (int i = 0; i < columns; i++) {
      if (i == o) {
        sum += own[i];
      }
      if (alias[i] == o && own[i] < columnWeight) {
        sum += columnWeight - own[i];
      }
    }
    return sum;
  }

  int outcomes() {
    return columns;
  }

  /** Body blocks: outcomes [0, tailOutcome()); then the tail, then the restart. */
  int tailOutcome() {
    return tail;
  }

  long nearest(int o) {
    return nearest[o];
  }

  /** The first integer of body block o. */
  long blockStart(int o) {
    return (long) (o - blocksPerSide) << blockBits;
  }

  int blockBits() {
    return blockBits;
  }

  int tailBits() {
    return tailBits;
  }

  long bodyEnd() {
    return bodyEnd;
  }

  long weight(int o) {
    return weight[o];
  }

  @Override
  public String toString() {
    return "BlockDiscreteGaussian[s=" + s + ", B=2^" + blockBits + ", blocks=" + 2 * blocksPerSide
        + "]";
  }
}
