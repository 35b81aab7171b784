package io.dplrf.release.completion;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.SecretKey;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PrivateFrankWolfeTest {
  private static final PrivacyParams PRIVACY = new PrivacyParams(1, 1e-6);

  /** The service's progress metric: one call per iteration, 1..T, for either solver. */
  @Test
  void fit_reportsEachIterationDone() {
    Synthetic s = new Synthetic(300, 20, 5, 3);
    Ratings r = s.ratings(5, Math.sqrt(5));
    CompletionParams p = CompletionParams.of(new PrivacyParams(1, 1e-6), 5, Math.sqrt(5))
        .withIterations(4);
    for (CompletionParams q : new CompletionParams[] {p, p.withSolver(EigenSolver.OJA, 3)}) {
      java.util.List<Integer> done = new java.util.ArrayList<>();
      PrivateFrankWolfe.fit(r, q, SecretKey.forTesting(8), "progress", done::add);
      assertEquals(java.util.List.of(1, 2, 3, 4), done, q.solver().toString());
    }
  }

  @Test
  void fitNonPrivate_onRankOne_beatsTheZeroPredictorByHalf() {
    Synthetic s = new Synthetic(4000, 40, 10, 5);
    double clip = Math.sqrt(10);
    Ratings r = s.ratings(10, clip);
    CompletionParams p = CompletionParams.of(PRIVACY, 10, clip).withIterations(30);
    CompletionModel m = PrivateFrankWolfe.fitNonPrivate(r, p);
    assertFalse(m.diagnostics().isPrivate());
    double rmse = s.testRmse(m, r);
    assertTrue(rmse < 0.5 * s.zeroRmse(), "rmse " + rmse + " vs " + s.zeroRmse());
  }

  /**
   * At ε = 10⁴ the per-iteration noise (σ ≈ 2 here, ‖N‖₂ ≈ 2σ√d ≈ 25) is far below λ₁ (~10³), so private FW
   * must recover the rank-one instance as the non-private one does: beat the zero predictor by
   * half, like {@link #fitNonPrivate_onRankOne_beatsTheZeroPredictorByHalf}, with both solvers.
   */
  @Test
  void fit_atLargeEpsilon_recoversTheRankOneInstance_withBothSolvers() {
    Synthetic s = new Synthetic(4000, 40, 10, 5);
    double clip = Math.sqrt(10);
    Ratings r = s.ratings(10, clip);
    CompletionParams p = CompletionParams.of(new PrivacyParams(1e4, 1e-6), 10, clip)
        .withIterations(30);
    for (CompletionParams q : new CompletionParams[] {p, p.withSolver(EigenSolver.OJA, 20)}) {
      CompletionModel m = PrivateFrankWolfe.fit(r, q, SecretKey.forTesting(8), "large-eps");
      assertTrue(m.diagnostics().isPrivate());
      double rmse = s.testRmse(m, r);
      assertTrue(rmse < 0.5 * s.zeroRmse(), q.solver() + ": rmse " + rmse + " vs " + s.zeroRmse());
    }
  }

  /**
   * Joint DP needs user i's predictions to depend on her own row and the public model only. The
   * model keeps no reference to the training data (its fields are the public arrays and
   * diagnostics), and a model rebuilt from its public parts alone predicts identically.
   */
  @Test
  void predictUser_usesOnlyTheUsersOwnRowAndThePublicModel() throws Exception {
    Synthetic s = new Synthetic(500, 20, 6, 9);
    Ratings r = s.ratings(6, 3);
    CompletionModel m = PrivateFrankWolfe.fitNonPrivate(r,
        CompletionParams.of(PRIVACY, 6, 3).withIterations(5));
    Set<Class<?>> publicTypes = Set.of(int.class, double.class, double[].class, double[][].class,
        CompletionDiagnostics.class);
    for (Field f : CompletionModel.class.getDeclaredFields()) {
      if (!Modifier.isStatic(f.getModifiers())) {
        assertTrue(publicTypes.contains(f.getType()), "unexpected model field " + f);
      }
    }
    double[][] factors = new double[m.iterations()][];
    for (int t = 1; t <= m.iterations(); t++) {
      factors[t - 1] = m.factor(t);
    }
    CompletionModel rebuilt = CompletionModel.of(m.items(), m.maxRatingsPerUser(), m.clip(),
        m.nuclearNorm(), factors, m.lambdaPrime(), m.diagnostics());
    int[] query = {0, 5, 19};
    for (int i = 0; i < 20; i++) {
      Ratings.Row row = r.row(i);
      assertArrayEquals(m.predictUser(row.items(), row.values(), query),
          rebuilt.predictUser(row.items(), row.values(), query));
    }
  }

  @Test
  void fit_refusesRatingsBoundedWithOtherParameters() {
    Synthetic s = new Synthetic(50, 10, 3, 1);
    Ratings r = s.ratings(3, 2);
    assertThrows(IllegalArgumentException.class,
        () -> PrivateFrankWolfe.fitNonPrivate(r, CompletionParams.of(PRIVACY, 4, 2)));
  }

  @Test
  void params_defaultIterationsFollowCorollary31() {
    CompletionParams p = CompletionParams.of(PRIVACY, 80, 5).withNuclearNorm(1000);
    // T = k^{4/3} / (m ξ (m + d))^{1/3} = 10^4 / (10^4·80·(10^4 + 100))^{1/3}
    double expected = Math.pow(1000, 4.0 / 3) / Math.cbrt(1e4 * 80 * (1e4 + 100));
    assertEquals((int) Math.ceil(expected), p.iterationsFor(10_000, 100));
    assertEquals(7, p.withIterations(7).iterationsFor(10_000, 100));
  }

  /**
   * What the signal test does on the model it is built on: Ŵ = θ·uuᵀ + N with N symmetric,
   * independent N(0, σ²) entries on and above the diagonal (as Analyze Gauss draws its noise;
   * here test data from a seeded {@link SplittableRandom}, σ = 2.5). Pure noise at d = 12 passes
   * it in about 10⁻⁴ of draws (docs/privacy/completion.md §7): at most 10 of 20,000 here, where
   * the overlap term alone, (3/√2)σ√d, passes about 2.7% (≈ 540). At d = 400, where the overlap
   * term sets the threshold, a spike θ = 2σ√d (overlap² 3/4 as d → ∞) passes in each of 4 draws
   * and one at the BBP point θ = σ√d (overlap → 0 as d → ∞) in none (it passes about 1 in 200
   * draws at d = 200: finite d blurs the BBP transition).
   */
  @Test
  void signalThreshold_keepsPureNoiseOut_andLetsAHalfSignalDirectionThrough() {
    double sigma = 2.5;
    SplittableRandom rnd = new SplittableRandom(17);
    int d = 12;
    int draws = 20_000;
    int passes = 0;
    int overlapOnly = 0;
    for (int k = 0; k < draws; k++) {
      double top = GlobalComponent.topOf(spiked(rnd, d, sigma, 0)).lambdaSquared();
      passes += top >= PrivateFrankWolfe.signalThreshold(sigma, d) ? 1 : 0;
      overlapOnly += top >= PrivateFrankWolfe.SIGNAL_GATE * sigma * Math.sqrt(d) ? 1 : 0;
    }
    assertTrue(passes <= 10, passes + " of " + draws + " pure-noise draws passed at d = 12");
    assertTrue(overlapOnly > 400, "the overlap term alone passed " + overlapOnly);
    int big = 400;
    for (int k = 0; k < 4; k++) {
      double theta = 2 * sigma * Math.sqrt(big);
      assertTrue(GlobalComponent.topOf(spiked(rnd, big, sigma, theta)).lambdaSquared()
          >= PrivateFrankWolfe.signalThreshold(sigma, big), "spike 2 sigma sqrt d, draw " + k);
      assertTrue(GlobalComponent.topOf(spiked(rnd, big, sigma, theta / 2)).lambdaSquared()
          < PrivateFrankWolfe.signalThreshold(sigma, big), "spike sigma sqrt d, draw " + k);
    }
  }

  /** θ·uuᵀ (u a fixed unit vector) plus symmetric noise, σ per entry on and above the diagonal. */
  private static Dense spiked(SplittableRandom rnd, int d, double sigma, double theta) {
    Dense w = new Dense(d, d);
    for (int i = 0; i < d; i++) {
      for (int j = i; j < d; j++) {
        double v = sigma * rnd.nextGaussian() + theta / d; // u = (1, ..., 1)/√d
        w.set(i, j, v);
        w.set(j, i, v);
      }
    }
    return w;
  }
}
