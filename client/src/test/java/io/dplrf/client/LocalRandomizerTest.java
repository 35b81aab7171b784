package io.dplrf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.ChiSquare;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.pca.RowClipping;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.PublicSeed;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The client randomizer: every report is the noiseless sketch plus noise of exactly the
 * calibrated variance, drawn afresh for every report. Statistical checks are χ² tests that reject
 * when either tail probability is below {@value #TAIL} (false alarm &lt; 2·10⁻⁷ per check).
 */
class LocalRandomizerTest {
  static final double TAIL = 1e-7;
  static final long SEED = 41;
  static final PublicSeed PUBLIC = PublicSeed.parse(
      "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed");

  static LocalPcaProtocol protocol(int d, int t, double clip, double eps) {
    return LocalPcaProtocol.of(PUBLIC, d, t, clip, new PrivacyParams(eps, 1e-6));
  }

  static LocalRandomizer seeded(LocalPcaProtocol p, long seed) {
    return LocalRandomizer.withBits(p, KeyStream.of(SecretKey.forTesting(seed), "test/noise").bits());
  }

  static double[] row(int d, double norm, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] x = new double[d];
    double s = 0;
    for (int i = 0; i < d; i++) {
      x[i] = r.nextDouble() - 0.5;
      s += x[i] * x[i];
    }
    for (int i = 0; i < d; i++) {
      x[i] *= norm / Math.sqrt(s);
    }
    return x;
  }

  static boolean accepts(double stat, int dof) {
    double upper = ChiSquare.upperTail(stat, dof);
    return upper > TAIL && 1 - upper > TAIL;
  }

  /** Σ over reports and entries of ((report − round(q(x)))/σ)², with its degrees of freedom. */
  static double chiSquareOfNoise(LocalRandomizer r, double[] x, int reports) {
    LocalPcaProtocol p = r.protocol();
    double[] q = LocalRandomizer.sketch(p, LocalRandomizer.clipped(p, x));
    double gamma = p.noise().grid().gamma();
    double sigma = p.noise().sigma();
    double ss = 0;
    for (int n = 0; n < reports; n++) {
      LocalReport rep = r.report(x);
      for (int e = 0; e < q.length; e++) {
        double z = (rep.valuesUnsafe()[e] - GridGaussian.roundToGrid(q[e], gamma)) / sigma;
        ss += z * z;
      }
    }
    return ss;
  }

  @Test
  void report_minusTheNoiselessSketch_hasTheCalibratedVariance_failsIfHalvedOrMissing() {
    LocalPcaProtocol p = protocol(20, 10, 1, 1);
    int reports = 50;
    int dof = reports * 20 * 10;
    double stat = chiSquareOfNoise(seeded(p, SEED), row(20, 0.8, 1), reports);
    assertTrue(accepts(stat, dof), "chi2 " + stat + " for " + dof + " dof (seed " + SEED + ")");
    assertFalse(accepts(stat / 4, dof), "halved noise would pass");
    assertFalse(accepts(stat * 4, dof), "doubled noise would pass");
    assertFalse(accepts(0, dof), "missing noise would pass");
  }

  /** The production path (SecureRandom-seeded stream) passes the same test; not reproducible. */
  @Test
  void productionRandomizer_alsoHasTheCalibratedVariance() {
    LocalPcaProtocol p = protocol(16, 16, 2, 0.5);
    int reports = 20;
    int dof = reports * 16 * 16;
    double stat = chiSquareOfNoise(LocalRandomizer.create(p), row(16, 3, 2), reports);
    assertTrue(accepts(stat, dof), "chi2 " + stat + " for " + dof + " dof (SecureRandom noise)");
  }

  @Test
  void twoReportsOfTheSameRow_differ_andTwoClientsDrawDifferentNoise() {
    LocalPcaProtocol p = protocol(8, 4, 1, 1);
    double[] x = row(8, 1, 3);
    LocalRandomizer a = LocalRandomizer.create(p);
    LocalReport r1 = a.report(x);
    LocalReport r2 = a.report(x);
    LocalReport r3 = LocalRandomizer.create(p).report(x);
    for (int e = 0; e < 32; e++) {
      assertNotEquals(r1.valuesUnsafe()[e], r2.valuesUnsafe()[e], "entry " + e);
      assertNotEquals(r1.valuesUnsafe()[e], r3.valuesUnsafe()[e], "entry " + e);
    }
  }

  @Test
  void noiseScale_isTheAnalyticGaussianForTheReportSensitivity() {
    LocalPcaProtocol p = protocol(30, 12, 2, 1);
    double mu = io.dplrf.sketch.calibration.AnalyticGaussian.mu(1, 1e-6);
    double base = p.noise().baseSensitivity();
    assertTrue(base >= Math.sqrt(2) * 4, "Δ below √2·C²: " + base);
    assertEquals(Math.sqrt(2) * 4, base, 1e-9 * base);
    assertTrue(p.noise().sensitivity() / p.noise().sigma() <= mu);
    assertEquals(base / mu, p.noise().sigma(), 1e-6 * p.noise().sigma());
    assertEquals(30L * 12, p.noise().changedCoordinates());
  }

  /**
   * The sensitivity bound of {@link LocalPcaProtocol} against brute force: random pairs of rows
   * of norm ≤ C never exceed it, and the pair x = Cφ₁, x' = Cφ₂ attains it (to η and the clipping margin).
   */
  @Test
  void sensitivity_boundsEveryPairOfRows_andIsAttainedByTwoColumnsOfPhi() {
    int d = 12;
    int t = 5;
    double clip = 1.5;
    LocalPcaProtocol p = protocol(d, t, clip, 1);
    double bound = p.noise().baseSensitivity();
    SplittableRandom rnd = new SplittableRandom(SEED);
    double worst = 0;
    for (int n = 0; n < 20_000; n++) {
      double[] x = row(d, clip * rnd.nextDouble(), rnd.nextLong());
      double[] y = row(d, clip * Math.sqrt(rnd.nextDouble()), rnd.nextLong());
      worst = Math.max(worst, distance(p, x, y));
    }
    assertTrue(worst <= bound, "pair at distance " + worst + " > bound " + bound);
    double[] phi = p.sketchMatrix();
    double[] x = new double[d];
    double[] y = new double[d];
    for (int i = 0; i < d; i++) {
      x[i] = clip * phi[i * t];
      y[i] = clip * phi[i * t + 1];
    }
    double attained = distance(p, x, y);
    assertTrue(attained <= bound, attained + " > " + bound);
    // Tight up to η and the clipping margin (rows at norm C are scaled to C·(1 − 10⁻⁹)).
    assertEquals(bound, attained, 1e-8 * bound, "the bound is tight");
  }

  private static double distance(LocalPcaProtocol p, double[] x, double[] y) {
    double[] a = LocalRandomizer.sketch(p, LocalRandomizer.clipped(p, x));
    double[] b = LocalRandomizer.sketch(p, LocalRandomizer.clipped(p, y));
    double s = 0;
    for (int e = 0; e < a.length; e++) {
      s += (a[e] - b[e]) * (a[e] - b[e]);
    }
    return Math.sqrt(s);
  }

  @Test
  void report_clipsALongRowToC_beforeSketching() {
    LocalPcaProtocol p = protocol(6, 3, 1, 1);
    double[] longRow = row(6, 10, 4);
    double[] x = LocalRandomizer.clipped(p, longRow);
    assertTrue(RowClipping.norm(x) <= 1);
    assertEquals(10, RowClipping.norm(longRow), 1e-9, "the caller's row is not modified");
  }

  @Test
  void report_refusesWrongLengthOrNonFiniteRows() {
    LocalRandomizer r = LocalRandomizer.create(protocol(4, 2, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> r.report(new double[5]));
    assertThrows(IllegalArgumentException.class,
        () -> r.report(new double[] {1, Double.NaN, 0, 0}));
  }

  @Test
  void report_valuesAreOnTheNoiseGrid() {
    LocalPcaProtocol p = protocol(5, 5, 1, 1);
    LocalReport rep = LocalRandomizer.create(p).report(row(5, 1, 5));
    double gamma = p.noise().grid().gamma();
    for (double v : rep.values()) {
      assertEquals(GridGaussian.roundToGrid(v, gamma), v);
    }
    assertEquals(p.id(), rep.protocolId());
  }
}
