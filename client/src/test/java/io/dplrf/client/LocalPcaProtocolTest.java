package io.dplrf.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.pca.RowClipping;
import io.dplrf.sketch.randomness.PublicSeed;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Local-DP PCA's math: the public Φ, the id, and the report — the noiseless sketch plus noise of
 * exactly the calibrated variance, whose sensitivity bound holds and is attained. Statistical
 * checks are χ² tests that reject when either tail probability is below {@value
 * LocalRandomizerTest#TAIL} (false alarm &lt; 2·10⁻⁷ per check).
 */
class LocalPcaProtocolTest {
  static final long SEED = 41;
  private static final PrivacyParams P = new PrivacyParams(1, 1e-6);

  static LocalPcaProtocol protocol(int d, int t, double clip, double eps) {
    return LocalPcaProtocol.of(LocalRandomizerTest.PUBLIC, d, t, clip, new PrivacyParams(eps, 1e-6));
  }

  /** A row with ‖x‖₂ = norm. */
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

  /** The noiseless query x xᵀΦ of the clipped row, row-major d×t. */
  static double[] query(LocalPcaProtocol p, double[] row) {
    return p.query(LocalProtocol.NO_SLOT, p.clipped(row))[0];
  }

  @Test
  void phi_hasOrthonormalColumnsToWorkingPrecision() {
    LocalPcaProtocol p = LocalPcaProtocol.of(LocalRandomizerTest.PUBLIC, 64, 64, 1, P);
    assertTrue(p.orthonormalityDefect() < 1e-13, "defect " + p.orthonormalityDefect());
    assertEquals(LocalPcaProtocol.orthonormalityDefect(p.sketchMatrix(), 64, 64),
        p.orthonormalityDefect());
  }

  @Test
  void sameParameters_giveTheSamePhiAndId_anyChangeGivesAnotherId() {
    LocalPcaProtocol a = LocalPcaProtocol.of(LocalRandomizerTest.PUBLIC, 10, 4, 1, P);
    LocalPcaProtocol b = LocalPcaProtocol.of(
        PublicSeed.parse(LocalRandomizerTest.PUBLIC.toString()), 10, 4, 1, P);
    assertArrayEquals(a.sketchMatrix(), b.sketchMatrix());
    assertEquals(a.id(), b.id());
    assertEquals(16, a.id().length());
    assertNotEquals(a.id(), LocalPcaProtocol.of(PublicSeed.random(), 10, 4, 1, P).id());
    assertNotEquals(a.id(), LocalPcaProtocol.of(LocalRandomizerTest.PUBLIC, 10, 5, 1, P).id());
    assertNotEquals(a.id(), LocalPcaProtocol.of(LocalRandomizerTest.PUBLIC, 10, 4, 2, P).id());
    assertNotEquals(a.id(), LocalPcaProtocol.of(LocalRandomizerTest.PUBLIC, 10, 4, 1,
        new PrivacyParams(2, 1e-6)).id());
  }

  @Test
  void of_refusesInvalidParameters() {
    PublicSeed s = LocalRandomizerTest.PUBLIC;
    assertThrows(IllegalArgumentException.class, () -> LocalPcaProtocol.of(s, 4, 5, 1, P));
    assertThrows(IllegalArgumentException.class, () -> LocalPcaProtocol.of(s, 0, 1, 1, P));
    assertThrows(IllegalArgumentException.class, () -> LocalPcaProtocol.of(s, 4, 0, 1, P));
    assertThrows(IllegalArgumentException.class, () -> LocalPcaProtocol.of(s, 4, 2, 0, P));
    assertThrows(IllegalArgumentException.class,
        () -> LocalPcaProtocol.of(s, 4, 2, Double.POSITIVE_INFINITY, P));
  }

  @Test
  void parts_areOneDByTSketchOnTheGaussianGrid_withoutSlots() {
    LocalPcaProtocol p = protocol(7, 3, 1, 1);
    assertEquals(1, p.parts().size());
    ReportPart y = p.parts().get(0);
    assertEquals(7, y.rows());
    assertEquals(3, y.cols());
    assertEquals(p.noise().grid().gamma(), y.gamma());
    assertEquals(0, p.slots());
    assertFalse(p.hasSlots());
  }

  /** Σ over reports and entries of ((report − round(q(x)))/σ)². */
  static double chiSquareOfNoise(LocalRandomizer r, double[] x, int reports) {
    LocalPcaProtocol p = (LocalPcaProtocol) r.protocol();
    double[] q = query(p, x);
    double gamma = p.noise().grid().gamma();
    double sigma = p.noise().sigma();
    double ss = 0;
    for (int n = 0; n < reports; n++) {
      double[] rep = r.report(x).valuesUnsafe(0);
      for (int e = 0; e < q.length; e++) {
        double z = (rep[e] - GridGaussian.roundToGrid(q[e], gamma)) / sigma;
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
    double stat = chiSquareOfNoise(LocalRandomizerTest.seeded(p, SEED), row(20, 0.8, 1), reports);
    assertTrue(LocalRandomizerTest.accepts(stat, dof),
        "chi2 " + stat + " for " + dof + " dof (seed " + SEED + ")");
    assertFalse(LocalRandomizerTest.accepts(stat / 4, dof), "halved noise would pass");
    assertFalse(LocalRandomizerTest.accepts(stat * 4, dof), "doubled noise would pass");
    assertFalse(LocalRandomizerTest.accepts(0, dof), "missing noise would pass");
  }

  /** The production path (SecureRandom-seeded stream) passes the same test; not reproducible. */
  @Test
  void productionRandomizer_alsoHasTheCalibratedVariance() {
    LocalPcaProtocol p = protocol(16, 16, 2, 0.5);
    int reports = 20;
    int dof = reports * 16 * 16;
    double stat = chiSquareOfNoise(LocalRandomizer.create(p), row(16, 3, 2), reports);
    assertTrue(LocalRandomizerTest.accepts(stat, dof),
        "chi2 " + stat + " for " + dof + " dof (SecureRandom noise)");
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
    double[] a = query(p, x);
    double[] b = query(p, y);
    double s = 0;
    for (int e = 0; e < a.length; e++) {
      s += (a[e] - b[e]) * (a[e] - b[e]);
    }
    return Math.sqrt(s);
  }

  @Test
  void report_clipsALongRowToC_inL2_beforeSketching() {
    LocalPcaProtocol p = protocol(6, 3, 1, 1);
    double[] longRow = row(6, 10, 4);
    double[] x = p.clipped(longRow);
    assertTrue(RowClipping.norm(x) <= 1);
    assertEquals(RowClipping.norm(x), p.rowNorm(x));
    assertEquals(10, RowClipping.norm(longRow), 1e-9, "the caller's row is not modified");
  }
}
