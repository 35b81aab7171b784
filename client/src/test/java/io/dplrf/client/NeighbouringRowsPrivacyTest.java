package io.dplrf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Local privacy tested on neighbouring rows, as Google DP's CountDpTest does: the randomizer runs N
 * times on x and on x', the pair that attains the report sensitivity (x = Cφ₁, x' = Cφ₂, two
 * columns of the public Φ). Each report is projected on the likelihood-ratio direction u of the
 * exact (rounded) sketch difference — for isotropic Gaussian noise the optimal one-dimensional test
 * — and the empirical privacy profile δ̂(ε) = sup_τ [P(⟨R(x'), u⟩ ≤ τ) − e^ε P(⟨R(x), u⟩ ≤ τ)] must
 * stay within δ, agree with the analytic value, and be broken by halved noise.
 *
 * <p>Statistics as in sketch-store's NeighbouringInputsPrivacyTest: by the DKW inequality the
 * estimate exceeds the truth by more than (1 + e^ε)·√(ln(2/p)/(2N)) with probability < 2p,
 * p = 10⁻⁷. δ = 0.05 so that it can be estimated from N = 2·10⁵ reports per side.
 */
class NeighbouringRowsPrivacyTest {
  private static final int N = 200_000;
  private static final double EPSILON = 0.5;
  private static final double DELTA = 0.05;
  private static final long SEED = 53;

  @Test
  void worstPairOfRows_staysWithinDelta_matchesTheAnalyticProfile_andHalvedNoiseBreaksIt() {
    int d = 3;
    int t = 2;
    double clip = 1;
    LocalPcaProtocol p = LocalPcaProtocol.of(LocalRandomizerTest.PUBLIC, d, t, clip,
        new PrivacyParams(EPSILON, DELTA));
    double[] phi = p.sketchMatrix();
    double[] x = new double[d];
    double[] y = new double[d];
    for (int i = 0; i < d; i++) {
      x[i] = clip * phi[i * t];
      y[i] = clip * phi[i * t + 1];
    }
    double gamma = p.noise().grid().gamma();
    double[] qx = rounded(LocalPcaProtocolTest.query(p, x), gamma);
    double[] qy = rounded(LocalPcaProtocolTest.query(p, y), gamma);
    double[] u = new double[qx.length];
    double dist = 0;
    for (int e = 0; e < u.length; e++) {
      u[e] = qx[e] - qy[e];
      dist += u[e] * u[e];
    }
    dist = Math.sqrt(dist);
    for (int e = 0; e < u.length; e++) {
      u[e] /= dist;
    }
    assertTrue(dist <= p.noise().sensitivity(), dist + " > calibrated " + p.noise().sensitivity());

    LocalRandomizer rx = LocalRandomizer.withBits(p, KeyStream.of(SecretKey.forTesting(SEED), "x").bits());
    LocalRandomizer ry = LocalRandomizer.withBits(p, KeyStream.of(SecretKey.forTesting(SEED), "y").bits());
    double[] a = new double[N];
    double[] b = new double[N];
    double[] ha = new double[N];
    double[] hb = new double[N];
    double cx = dot(qx, u);
    double cy = dot(qy, u);
    for (int n = 0; n < N; n++) {
      a[n] = dot(rx.report(x).valuesUnsafe(0), u);
      b[n] = dot(ry.report(y).valuesUnsafe(0), u);
      ha[n] = cx + 0.5 * (a[n] - cx);
      hb[n] = cy + 0.5 * (b[n] - cy);
    }
    double margin = (1 + Math.exp(EPSILON)) * Math.sqrt(Math.log(2 / 1e-7) / (2.0 * N));
    // u points from q(x') to q(x): the half-lines {≤ τ} favour x' (the lower mean).
    double measured = empiricalDelta(b, a, EPSILON);
    double exact = AnalyticGaussian.delta(EPSILON, dist / p.noise().sigma());
    assertTrue(measured <= DELTA + margin,
        "delta-hat " + measured + " > delta " + DELTA + " + " + margin + " (test key " + SEED + ")");
    assertEquals(exact, measured, margin, "empirical vs analytic profile (test key " + SEED + ")");
    double halved = empiricalDelta(hb, ha, EPSILON);
    assertTrue(halved > DELTA + 2 * margin, "halved noise must break the budget: " + halved);
  }

  private static double[] rounded(double[] q, double gamma) {
    double[] r = new double[q.length];
    for (int e = 0; e < q.length; e++) {
      r[e] = GridGaussian.roundToGrid(q[e], gamma);
    }
    return r;
  }

  private static double dot(double[] a, double[] b) {
    double s = 0;
    for (int e = 0; e < a.length; e++) {
      s += a[e] * b[e];
    }
    return s;
  }

  /** sup_τ [F̂_a(τ) − e^ε F̂_b(τ)] over all sample points τ. */
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
      while (ib < sb.length && sb[ib] <= tau) {
        ib++;
      }
      best = Math.max(best, (ia + 1.0) / sa.length - e * ((double) ib / sb.length));
    }
    return best;
  }
}
