package io.dplrf.sketch.noise;

import io.dplrf.sketch.params.Preconditions;
import java.math.BigInteger;

/**
 * The exact comparison under {@link BlockDiscreteGaussian}'s accept/reject steps: is a uniform
 * real U ∈ [0, 1) below t = 2^k/w · e^{−x²/(2s²)}? U is drawn lazily: its first 53 bits u are
 * given, and further bits come from the reader only when they are needed. The answer is exactly
 * [U < t] in every case; floating point only decides when a proved error bound shows it cannot
 * differ from the exact comparison (a certified filter), and exact rational arithmetic decides
 * everything else.
 *
 * <p><b>The filter.</b> γ̃ = fl(fl(|x|·|x|) / fl(2s²)) with |x| < 2^53 has relative error at most
 * 3·2^−53 < 2^−51; {@link StrictMath#exp} (fdlibm) is within one ulp, i.e. relative 2^−52, or
 * 2^−1074 absolute below the normal range. For γ ≤ 2^40, |γ̃ − γ| ≤ 2^−11 and so
 * |e^{−γ̃} − e^{−γ}| ≤ e^{−γ}·2|γ̃ − γ| ≤ e^{−γ}·γ·2^−50. The filter widens t̃ = 2^k·e^{−γ̃}/w by
 * a relative 2^−40·(1 + γ̃) — over 2^8 times these errors plus the few roundings of forming the
 * bounds — and by 2^(k−1000) absolute (the subnormal range, and all of t when γ > 2^40 makes
 * e^{−γ} < 2^−1000). It decides only when [u·2^−53, (u + 1)·2^−53), the interval U is known to
 * lie in, is wholly below or wholly above the widened t̃: with probability about
 * 2^−39·(1 + γ)·t + 2^−52 it is neither.
 *
 * <p><b>The exact path.</b> With γ = q + r/(2s²) (q = ⌊γ⌋), e^{−γ} = (e^{−1})^q·e^{−r/(2s²)}. For z
 * ∈ [0, 1] the partial sums S_K(z) = Σ_{i≤K} (−z)^i/i! of the alternating series, whose terms
 * decrease, bracket e^{−z}: S_K(z) ≤ e^{−z} ≤ S_{K+1}(z) for odd K, with S_K(z) ≥ 0 for K ≥ 1 and
 * S_K(1) > 0 for K ≥ 3. Products of these non-negative rational bounds bound e^{−γ}. Each round
 * compares U's known interval with them in BigInteger arithmetic; if undecided it reads 64 more
 * bits of U and adds 8 terms. It ends with probability 1 because t ≠ U almost surely, and is
 * reached with the small probability above, so its cost does not matter. When q > {@value
 * #CRUDE_Q} the only upper bound used while U's known interval allows is e^{−γ} ≤ 2^−q (e^{−1} <
 * 1/2), so that no (e^{−1})^q is formed unless U is below 2^(k−q)·2^64/w, an event of probability
 * below 2^−3000 for k ≤ 900.
 */
final class ScaledExp {
  static final int CRUDE_Q = 4096;

  private ScaledExp() {}

  /**
   * [U < 2^k/w · e^{−x²/(2s²)}] for the uniform U whose first 53 bits are u.
   *
   * @param u U's first 53 bits, in [0, 2^53)
   * @param absX |x| ≥ 0
   * @param twoS2 2s² > 0
   * @param k ≥ 0
   * @param w > 0
   */
  static boolean uniformBelow(BitReader bits, long u, long absX, long twoS2, int k, long w) {
    if (absX < (1L << 53) && k <= 900) {
      double gamma = ((double) absX * (double) absX) / (double) twoS2;
      double t = Math.scalb(StrictMath.exp(-gamma), k) / w;
      double rel = 0x1p-40 * (1 + gamma);
      double abs = Math.scalb(1.0, k - 1000);
      double low = u * 0x1p-53;
      if (low + 0x1p-53 <= t * (1 - rel) - abs) {
        return true;
      }
      if (low >= t * (1 + rel) + abs) {
        return false;
      }
    }
    return exactly(bits, u, absX, twoS2, k, w);
  }

  /** The exact path of {@link #uniformBelow} alone (class comment); for tests, also directly. */
  static boolean exactly(BitReader bits, long u, long absX, long twoS2, int k, long w) {
    Preconditions.check(u >= 0 && u < (1L << 53), "u", "in [0, 2^53)", u);
    Preconditions.check(absX >= 0, "absX", ">= 0", absX);
    Preconditions.check(twoS2 > 0, "twoS2", "> 0", twoS2);
    Preconditions.check(k >= 0, "k", ">= 0", k);
    Preconditions.check(w > 0, "w", "> 0", w);
    BigInteger x = BigInteger.valueOf(absX);
    BigInteger d = BigInteger.valueOf(twoS2);
    BigInteger[] qr = x.multiply(x).divideAndRemainder(d);
    BigInteger wBig = BigInteger.valueOf(w);
    BigInteger a = BigInteger.valueOf(u);
    int known = 53;
    boolean crude = qr[0].compareTo(BigInteger.valueOf(CRUDE_Q)) > 0;
    int terms = 7; // grows only with the full bounds: the crude rounds form none
    while (true) {
      // U ∈ [a, a + 1)·2^−known; U·w·2^−k < e^{−γ} is decided when all of it is on one side.
      if (crude) {
        // Upper bound 2^−q only: U·w·2^−k ≥ 2^−q follows from a·w ≥ 2^(known + k − q).
        long e = known + (long) k - qr[0].longValueExact();
        boolean above = e <= 0 ? a.signum() > 0
            : a.multiply(wBig).compareTo(BigInteger.ONE.shiftLeft((int) e)) >= 0;
        if (above) {
          return false;
        }
        crude = e <= 64; // past that, U < 2^(k − q + 64)/w: use the full bounds below
      } else {
        BigInteger scale = BigInteger.ONE.shiftLeft(known + k);
        BigInteger[] lower = bound(qr[0], qr[1], d, terms);
        if (a.add(BigInteger.ONE).multiply(wBig).multiply(lower[1])
            .compareTo(lower[0].multiply(scale)) <= 0) {
          return true;
        }
        BigInteger[] upper = bound(qr[0], qr[1], d, terms + 1);
        if (a.multiply(wBig).multiply(upper[1]).compareTo(upper[0].multiply(scale)) >= 0) {
          return false;
        }
        terms += 8;
      }
      a = a.shiftLeft(64).or(BigInteger.valueOf(bits.bits(64)).and(LOW_64));
      known += 64;
    }
  }

  private static final BigInteger LOW_64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  /**
   * S_K(1)^q · S_K(r/d) as {numerator, denominator}, K = terms: a lower bound of e^{−(q + r/d)} for
   * odd K ≥ 3, an upper bound for even K ≥ 4 (class comment).
   */
  static BigInteger[] bound(BigInteger q, BigInteger r, BigInteger d, int terms) {
    BigInteger[] one = partialSum(BigInteger.ONE, BigInteger.ONE, terms);
    BigInteger[] frac = partialSum(r, d, terms);
    int power = q.intValueExact();
    return new BigInteger[] {
        one[0].pow(power).multiply(frac[0]), one[1].pow(power).multiply(frac[1])};
  }

  /** S_K(a/b) = Σ_{i≤K} (−a/b)^i / i! as {numerator, denominator = b^K·K!}. */
  static BigInteger[] partialSum(BigInteger a, BigInteger b, int terms) {
    BigInteger num = BigInteger.ZERO;
    BigInteger factorialRatio = BigInteger.ONE; // K!/i!, built from i = K down
    for (int i = terms; i >= 0; i--) {
      BigInteger term = a.pow(i).multiply(b.pow(terms - i)).multiply(factorialRatio);
      num = (i % 2 == 0) ? num.add(term) : num.subtract(term);
      factorialRatio = factorialRatio.multiply(BigInteger.valueOf(i));
    }
    BigInteger den = b.pow(terms).multiply(factorial(terms));
    return new BigInteger[] {num, den};
  }

  private static BigInteger factorial(int n) {
    BigInteger f = BigInteger.ONE;
    for (int i = 2; i <= n; i++) {
      f = f.multiply(BigInteger.valueOf(i));
    }
    return f;
  }
}
