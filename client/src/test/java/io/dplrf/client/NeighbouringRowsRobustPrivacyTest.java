package io.dplrf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.lra.LaplaceSketchNoise;
import io.dplrf.sketch.noise.GridLaplace;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Pure ε-LDP of LOCAL-ROBUST-PCA tested on neighbouring rows, as Google DP's CountDpTest does: the
 * randomizer runs N times on x = C and on x' = −C (d = 1) at the slot of the largest Φ column (the
 * pair that attains Yr's ℓ1 sensitivity, and Z's up to the ratio of S's column norms). Each report
 * y is mapped to its exact privacy loss L(y) = ln P[R(x) = y]/P[R(x') = y] = Σ_e (|y_e − r(q'_e)| −
 * |y_e − r(q_e)|)/b_e (discrete Laplace, P(k) ∝ e^{−|k|/s}), the optimal test statistic. Pure ε-DP
 * means L ≤ ε for every report, and δ̂(ε) = sup_τ [P̂(L(R(x)) > τ) − e^ε P̂(L(R(x')) > τ)] must
 * stay at 0 up to the DKW margin (1 + e^ε)·√(ln(2/p)/(2N)), exceeded with probability &lt; 2p, p =
 * 10⁻⁷. The same test on halved noise (its own loss, scale b/2) must find δ̂(ε) well above the
 * margin.
 */
class NeighbouringRowsRobustPrivacyTest {
  private static final int N = 200_000;
  private static final double EPSILON = 0.5;
  private static final long SEED = 59;

  @Test
  void worstPairOfRows_hasLossAtMostEpsilon_deltaHatZero_andHalvedNoiseBreaksIt() {
    double clip = 1;
    // d = 1, k = 1: t = 1, v = 2, so the loss sits on 1 + 4 entries and halved noise is visible
    // with N = 2·10⁵ (with more entries the loss spreads out and δ̂ of halved noise shrinks).
    int m = 4;
    int d = 1;
    LocalRobustProtocol p = LocalRobustProtocolTest.protocol(m, d, 1, clip, EPSILON);
    int t = p.sizes().t();
    int v = p.sizes().v();
    double[] phi = new double[t * m];
    p.matrices().phi().columns(0, m, phi);
    double[] s = new double[v * m];
    p.matrices().s().columns(0, m, s);
    // The slot of the largest Φ column (Yr's worst case). Z's worst case needs the largest S
    // column at the same slot, or a Z-only noise error could go unseen here: required below.
    int slot = argmax(phi, t, m);
    assertEquals(argmax(s, v, m), slot, "test key " + SEED + ": Yr's and Z's worst slots differ");
    int feature = argmax(p.transposedT(), v, d);
    double[] x = new double[d];
    double[] y = new double[d];
    x[feature] = clip;
    y[feature] = -clip;
    double[][] qx = rounded(p, LocalRobustProtocolTest.query(p, slot, x));
    double[][] qy = rounded(p, LocalRobustProtocolTest.query(p, slot, y));
    double maxLoss = loss(p, qx, qy, qx, 1); // y = r(q(x)): the largest possible loss
    assertTrue(maxLoss <= EPSILON * (1 + 1e-12), "worst-case loss " + maxLoss + " > " + EPSILON);
    assertTrue(maxLoss > 0.5 * EPSILON, "the pair should be near the worst case: " + maxLoss);

    LocalRandomizer rx = LocalRandomizer.withBits(p, KeyStream.of(SecretKey.forTesting(SEED), "x").bits());
    LocalRandomizer ry = LocalRandomizer.withBits(p, KeyStream.of(SecretKey.forTesting(SEED), "y").bits());
    double[] lx = new double[N];
    double[] ly = new double[N];
    double[] hx = new double[N];
    double[] hy = new double[N];
    double worst = Double.NEGATIVE_INFINITY;
    for (int n = 0; n < N; n++) {
      LocalReport a = rx.report(slot, x);
      LocalReport b = ry.report(slot, y);
      double[][] ra = {a.valuesUnsafe(0), a.valuesUnsafe(1)};
      double[][] rb = {b.valuesUnsafe(0), b.valuesUnsafe(1)};
      lx[n] = loss(p, qx, qy, ra, 1);
      ly[n] = loss(p, qx, qy, rb, 1);
      worst = Math.max(worst, lx[n]);
      hx[n] = loss(p, qx, qy, halved(ra, qx), 0.5);
      hy[n] = loss(p, qx, qy, halved(rb, qy), 0.5);
    }
    assertTrue(worst <= EPSILON * (1 + 1e-12), "a report with loss " + worst + " > epsilon");
    double margin = (1 + Math.exp(EPSILON)) * Math.sqrt(Math.log(2 / 1e-7) / (2.0 * N));
    double measured = empiricalDelta(lx, ly, EPSILON);
    assertTrue(measured <= margin, "delta-hat " + measured + " > 0 + " + margin + " (test key " + SEED + ")");
    double broken = empiricalDelta(hx, hy, EPSILON);
    assertTrue(broken > 2 * margin, "halved noise must break pure epsilon-DP: delta-hat " + broken);
  }

  private static int argmax(double[] colMajor, int rows, int cols) {
    int best = 0;
    double max = -1;
    for (int c = 0; c < cols; c++) {
      double sum = 0;
      for (int r = 0; r < rows; r++) {
        sum += Math.abs(colMajor[c * rows + r]);
      }
      if (sum > max) {
        max = sum;
        best = c;
      }
    }
    return best;
  }

  private static double[][] rounded(LocalRobustProtocol p, double[][] q) {
    double[][] r = new double[2][];
    for (int part = 0; part < 2; part++) {
      double gamma = noise(p, part).grid().gamma();
      r[part] = new double[q[part].length];
      for (int e = 0; e < q[part].length; e++) {
        r[part][e] = GridLaplace.roundToGrid(q[part][e], gamma);
      }
    }
    return r;
  }

  private static LaplaceSketchNoise noise(LocalRobustProtocol p, int part) {
    return part == 0 ? p.plan().yr() : p.plan().z();
  }

  /** The report with its noise (report − r(q)) halved. */
  private static double[][] halved(double[][] report, double[][] q) {
    double[][] h = new double[2][];
    for (int part = 0; part < 2; part++) {
      h[part] = new double[q[part].length];
      for (int e = 0; e < h[part].length; e++) {
        h[part][e] = q[part][e] + 0.5 * (report[part][e] - q[part][e]);
      }
    }
    return h;
  }

  /** ln p_x(y)/p_x'(y) for Laplace scales factor·b per part. */
  private static double loss(LocalRobustProtocol p, double[][] qx, double[][] qy, double[][] y,
      double factor) {
    double l = 0;
    for (int part = 0; part < 2; part++) {
      double b = factor * noise(p, part).scale();
      for (int e = 0; e < y[part].length; e++) {
        l += (Math.abs(y[part][e] - qy[part][e]) - Math.abs(y[part][e] - qx[part][e])) / b;
      }
    }
    return l;
  }

  /** sup_τ [P̂(a > τ) − e^ε P̂(b > τ)] over the sample points τ. */
  private static double empiricalDelta(double[] a, double[] b, double epsilon) {
    double[] sa = a.clone();
    double[] sb = b.clone();
    Arrays.sort(sa);
    Arrays.sort(sb);
    double e = Math.exp(epsilon);
    double best = 0;
    int ib = 0;
    for (int ia = 0; ia < sa.length; ia++) {
      double tau = sa[ia];
      while (ib < sb.length && sb[ib] < tau) {
        ib++;
      }
      // P̂(a ≥ τ) − e^ε P̂(b ≥ τ)
      best = Math.max(best, (sa.length - ia) / (double) sa.length - e * (sb.length - ib) / (double) sb.length);
    }
    return best;
  }
}
