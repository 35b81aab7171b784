package io.dplrf.sketch.continual;

import static io.dplrf.sketch.continual.BltFixtures.KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.factorization.BltOptimizer;
import io.dplrf.sketch.factorization.BltParameters;
import io.dplrf.sketch.factorization.ToeplitzFactorization;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.lra.Priv2Matrices;
import io.dplrf.sketch.lra.Priv2Sketch;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The settings and the calibration of a BLT stream (docs/privacy/blt-release.md §2–3). */
class BltPlanTest {
  private static final PrivacyParams PRIVACY = BltFixtures.PRIVACY;

  @Test
  void config_acceptsThePriv2MechanismsUnderL1Units_only() {
    SketchSizes sizes = new SketchSizes(12, 9, 2, 4, 8);
    assertEquals("mechanism must be priv2 or priv2-sparse. Provided value: PRIV1",
        assertThrows(IllegalArgumentException.class, () -> new BltConfig(Mechanism.PRIV1,
            NeighbouringRelation.ONE_ENTRY, sizes, PRIVACY, 1, 8, false)).getMessage());
    assertThrows(IllegalArgumentException.class, () -> new BltConfig(Mechanism.ROBUST_LRA,
        NeighbouringRelation.ENTRYWISE_L1, sizes, PRIVACY, 1, 8, false));
    assertEquals("relation must be one-entry or entrywise-l1 (the BLT calibration covers units"
        + " bounded in l1; frobenius streams use the tree). Provided value: FROBENIUS",
        assertThrows(IllegalArgumentException.class, () -> new BltConfig(Mechanism.PRIV2,
            NeighbouringRelation.FROBENIUS, sizes, PRIVACY, 1, 8, false)).getMessage());
    assertThrows(IllegalArgumentException.class, () -> new BltConfig(Mechanism.PRIV2,
        NeighbouringRelation.ONE_ENTRY, sizes, PRIVACY, 0, 8, false));
    assertThrows(IllegalArgumentException.class, () -> new BltConfig(Mechanism.PRIV2,
        NeighbouringRelation.ONE_ENTRY, sizes, PRIVACY, 1, 0, false));
    assertThrows(IllegalArgumentException.class, () -> new BltConfig(Mechanism.PRIV2,
        NeighbouringRelation.ONE_ENTRY, sizes, PRIVACY, 1, (1 << 30) + 1, false));
    assertThrows(IllegalArgumentException.class, () -> new BltConfig(Mechanism.PRIV2_SPARSE,
        NeighbouringRelation.ONE_ENTRY, new SketchSizes(12, 9, 2, 3, 8), PRIVACY, 1, 8, false));
    // k·T must stay exact in SketchCodec's float64: T = 2^28 at the service's sizes is refused.
    SketchSizes big = new SketchSizes(100_000, 100_000, 10, 100, 400);
    new BltConfig(Mechanism.PRIV2_SPARSE, NeighbouringRelation.ONE_ENTRY, big, PRIVACY, 1,
        1 << 27, false);
    assertThrows(IllegalArgumentException.class, () -> new BltConfig(Mechanism.PRIV2_SPARSE,
        NeighbouringRelation.ONE_ENTRY, big, PRIVACY, 1, 1 << 28, false));
  }

  /**
   * The plan: sens(T) is C's largest column norm, recomputed here as √(Σ_{k<T} c_k²) from the
   * coefficients, and not B's; b = 1 for sparse embeddings; every part calibrated on C·sens·b
   * with k·T rounded coordinates at μ(ε, δ)/√2; the relation does not change it (every unit can
   * reach every epoch, §2).
   */
  @Test
  void sparsePlan_isCalibratedFromTheEncodersColumnNorm_overAllTEpochs() {
    int epochs = 100;
    SketchSizes sizes = new SketchSizes(50, 40, 2, 4, 8);
    BltConfig one = new BltConfig(Mechanism.PRIV2_SPARSE, NeighbouringRelation.ONE_ENTRY, sizes,
        PRIVACY, 2, epochs, false);
    BltStream s = BltFixtures.inMemory(one, "plan/sparse");
    BltPlan plan = s.plan();
    ToeplitzFactorization f = plan.factorization();
    double sens2 = 0;
    for (double c : f.encoderCoefficients(epochs)) {
      sens2 += c * c;
    }
    assertEquals(Math.sqrt(sens2), plan.sensitivity(), 1e-13);
    assertTrue(Math.abs(plan.sensitivity() - Math.sqrt(f.prefixVariance(epochs))) > 1e-3,
        "C's and B's column norms differ here");
    assertEquals(1.0, plan.phiFactor());
    assertEquals(1.0, plan.sFactor());
    double muEach = AnalyticGaussian.mu(PRIVACY.epsilon(), PRIVACY.delta()) / Math.sqrt(2);
    assertEquals(GaussianSketchNoise.calibrate("Y", 2 * plan.sensitivity(), 50L * 4 * epochs,
        muEach), plan.yNoise());
    assertEquals(GaussianSketchNoise.calibrate("Z", 2 * plan.sensitivity(), 8L * 40 * epochs,
        muEach), plan.zNoise());
    assertEquals(AnalyticGaussian.mu(PRIVACY.epsilon(), PRIVACY.delta()), plan.mu(), 1e-15);
    BltStream l1 = BltFixtures.inMemory(new BltConfig(Mechanism.PRIV2_SPARSE,
        NeighbouringRelation.ENTRYWISE_L1, sizes, PRIVACY, 2, epochs, false), "plan/sparse");
    assertEquals(plan, l1.plan(), "one-entry and entrywise-l1 streams are calibrated alike");
    assertEquals(BltOptimizer.optimize(epochs), plan.parameters());
  }

  /**
   * A plan whose sensitivity is not C's column norm, or whose noise is not calibrated on it, is
   * not representable: it cannot be made, nor read back from a snapshot.
   */
  @Test
  void plan_withAnotherSensitivityOrNoise_isRefused() {
    BltPlan p = BltFixtures.inMemory(BltFixtures.config(Mechanism.PRIV2_SPARSE,
        new SketchSizes(50, 40, 2, 4, 8), 100), "plan/refused").plan();
    double sensB = Math.sqrt(p.factorization().prefixVariance(100));
    IllegalArgumentException fromB = assertThrows(IllegalArgumentException.class,
        () -> new BltPlan(p.privacy(), p.clip(), p.sizes(), p.sparsity(), p.epochs(),
            p.parameters(), sensB, 1, 1,
            GaussianSketchNoise.calibrate("Y", p.clip() * sensB, p.yNoise().changedCoordinates(),
                p.yNoise().mu()),
            GaussianSketchNoise.calibrate("Z", p.clip() * sensB, p.zNoise().changedCoordinates(),
                p.zNoise().mu())));
    assertTrue(fromB.getMessage().startsWith("sensitivity must be the encoder's largest column"),
        fromB.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new BltPlan(p.privacy(), p.clip(),
        p.sizes(), p.sparsity(), p.epochs(), p.parameters(), p.sensitivity(), 1, 1,
        GaussianSketchNoise.calibrate("Y", p.clip() * p.sensitivity(),
            p.yNoise().changedCoordinates() / 100, p.yNoise().mu()), p.zNoise()));
    assertThrows(IllegalArgumentException.class, () -> new BltPlan(p.privacy(), p.clip(),
        p.sizes(), p.sparsity(), p.epochs(), p.parameters(), p.sensitivity(), 1, 1, p.yNoise(),
        GaussianSketchNoise.calibrate("Z", p.clip() * p.sensitivity(),
            p.zNoise().changedCoordinates(), p.zNoise().mu() / 2)));
    assertThrows(IllegalArgumentException.class, () -> new BltPlan(p.privacy(), p.clip(),
        p.sizes(), p.sparsity(), p.epochs(), p.parameters(), p.sensitivity(), 1.5, 1,
        p.yNoise(), p.zNoise()), "sparse factors are exactly 1");
  }

  /**
   * Dense priv2: b_Φ and b_S are the drawn matrices' largest row of Φ and column of S; over every
   * single update of C in epoch 1 the encoded streams move by at most μ in noise units, and the
   * entry at both maxima moves them by μ (the bound is attained, so not loose: l1-units.md §2,
   * blt-release.md Lemma 2).
   */
  @Test
  void densePlan_worstUpdateShiftsTheEncodedStreamByMu() {
    int epochs = 16;
    SketchSizes sizes = new SketchSizes(6, 20, 1, 4, 8);
    BltConfig config = BltFixtures.config(Mechanism.PRIV2, sizes, epochs);
    BltStream s = BltFixtures.inMemory(config, "plan/dense");
    BltPlan plan = s.plan();
    Priv2Matrices mats = Priv2Matrices.generate(KEY, "plan/dense", sizes, false);
    assertEquals(mats.maxRowNormOfPhi(), plan.phiFactor());
    assertEquals(mats.maxColumnNormOfS(), plan.sFactor());
    double sens2 = 0;
    for (double c : plan.factorization().encoderCoefficients(epochs)) {
      sens2 += c * c;
    }
    double mu = AnalyticGaussian.mu(PRIVACY.epsilon(), PRIVACY.delta());
    double worst = 0;
    for (int i = 0; i < sizes.m(); i++) {
      for (int j = 0; j < sizes.n(); j++) {
        Priv2Sketch one = Priv2Sketch.createWithoutNoise(plan.epochPlan(), mats, KEY, "one");
        one.update(i, j, config.clip());
        double[][] x = one.noiselessState();
        double y2 = 0;
        double z2 = 0;
        for (double v : x[0]) {
          y2 += v * v;
        }
        for (double v : x[1]) {
          z2 += v * v;
        }
        double shift = Math.sqrt(sens2 * (y2 / sq(plan.yNoise().sigma())
            + z2 / sq(plan.zNoise().sigma())));
        assertTrue(shift <= mu * (1 + 1e-12), "(" + i + ", " + j + "): " + shift + " > " + mu);
        worst = Math.max(worst, shift);
      }
    }
    assertEquals(mu, worst, 1e-5 * mu, "the largest row of Phi and column of S meet at one entry");
  }

  private static double sq(double x) {
    return x * x;
  }

  /** The noise of a release: σ·√(Σ_{k<t} b_k²) for a prefix, σ·√(Σ(B[e,k] − B[s−1,k])²) for a range. */
  @Test
  void releaseNoise_isTheDecodersRowNormTimesSigma() {
    int epochs = 24;
    BltPlan plan = BltFixtures.inMemory(BltFixtures.config(Mechanism.PRIV2_SPARSE,
        new SketchSizes(50, 40, 2, 4, 8), epochs), "plan/noise").plan();
    double[] b = plan.factorization().decoderCoefficients(epochs);
    for (int t = 1; t <= epochs; t++) {
      double p = 0;
      for (int k = 0; k < t; k++) {
        p += b[k] * b[k];
      }
      List<NoiseScale> n = plan.prefixNoise(t);
      assertEquals(plan.yNoise().sigma() * Math.sqrt(p), n.get(0).sigma(), 1e-12 * n.get(0).sigma());
      assertEquals(plan.zNoise().sigma() * Math.sqrt(p), n.get(1).sigma(), 1e-12 * n.get(1).sigma());
      assertEquals(plan.yNoise().sensitivity(), n.get(0).sensitivity());
      assertEquals(200, n.get(0).entries());
      assertEquals(320, n.get(1).entries());
    }
    for (int s = 2; s <= epochs; s++) {
      for (int e = s; e <= epochs; e++) {
        double r = 0;
        for (int k = 0; k < e; k++) { // row e of B minus row s − 1
          double d = b[e - 1 - k] - (k < s - 1 ? b[s - 2 - k] : 0);
          r += d * d;
        }
        double got = plan.rangeNoise(s, e).get(0).sigma();
        assertEquals(plan.yNoise().sigma() * Math.sqrt(r), got, 1e-11 * got, s + ".." + e);
      }
    }
    assertEquals(plan.prefixNoise(7), plan.rangeNoise(1, 7));
  }

  /**
   * The figures the documentation gives at m = n = 10⁵, t = 100, v = 400, ε = 1, δ = 10⁻⁶:
   * T = 1024 takes d = 3 buffers and a worst prefix variance of 10.74 one-shot σ²; the grid slack
   * adds at most 0.06% (Y) and 0.11% (Z) to Δ; one sketch-sized array is 400 MB, so the state is
   * 3.2 GB.
   */
  @Test
  void documentedFigures_atTheServicesSizes() {
    SketchSizes sizes = new SketchSizes(100_000, 100_000, 10, 100, 400);
    BltConfig config = new BltConfig(Mechanism.PRIV2_SPARSE, NeighbouringRelation.ENTRYWISE_L1,
        sizes, PRIVACY, 1, 1024, false);
    BltParameters p = BltOptimizer.optimize(1024);
    BltPlan plan = BltPlan.calibrate(config, p,
        Priv2Matrices.generate(KEY, "figures", sizes, false, Mechanism.SPARSITY));
    assertEquals(3, p.buffers());
    assertEquals(10.74, plan.factorization().maxLoss(1024), 0.005);
    // §2: the slack adds at most √(2kT)/(μ·2^30) to Δ (γ ≤ σ·2⁻³⁰), 0.06% and 0.11% here.
    double boundY = Math.sqrt(2.0 * 1e7 * 1024) / (plan.mu() * 0x1p30);
    double boundZ = Math.sqrt(2.0 * 4e7 * 1024) / (plan.mu() * 0x1p30);
    assertEquals(0.0006, boundY, 0.00005);
    assertEquals(0.0011, boundZ, 0.00005);
    double slackY = plan.yNoise().sensitivity() / plan.yNoise().baseSensitivity() - 1;
    double slackZ = plan.zNoise().sensitivity() / plan.zNoise().baseSensitivity() - 1;
    assertTrue(slackY > 0 && slackY <= boundY * (1 + 1e-3), "Y slack " + slackY);
    assertTrue(slackZ > 0 && slackZ <= boundZ * (1 + 1e-3), "Z slack " + slackZ);
    long array = Priv2Sketch.stateBytes(sizes);
    assertEquals(400_000_000L, array);
    assertEquals(3_200_000_000L, (2L * p.buffers() + 2) * array);
    // σ_Y in one-shot units is sens(T) = √(Σ c_k²): 1.81 at T = 1024.
    double oneShot = Math.sqrt(2) * plan.yNoise().baseSensitivity() / plan.sensitivity()
        / plan.mu();
    assertEquals(plan.sensitivity(), plan.yNoise().sigma() / oneShot, 0.002 * plan.sensitivity());
  }
}
