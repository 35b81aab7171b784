package io.dplrf.deploy.serve.completion;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.config.CompletionSettings;
import io.dplrf.deploy.config.ConfigException;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.io.Json;
import io.dplrf.ingest.ContributionBounds;
import io.dplrf.ingest.IngestStats;
import io.dplrf.ingest.RatingsStore;
import io.dplrf.ingest.StateStore;
import io.dplrf.release.completion.BiasedAccount;
import io.dplrf.release.completion.BiasedCompletion;
import io.dplrf.release.completion.BiasedModel;
import io.dplrf.release.completion.BiasedParams;
import io.dplrf.release.completion.CompletionParams;
import io.dplrf.release.completion.EigenSolver;
import io.dplrf.release.completion.Ratings;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.SecretKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service's adapter to the completion models on a real ratings store: the fit is exactly
 * {@link BiasedCompletion#fit} (or Frank–Wolfe alone) with {@code dplrf complete}'s parameters
 * at the run's share (ε_run, δ), its account spends that share and no more, a fit calibrated
 * beyond it is refused before anything is published, and the stored model comes back identical
 * (public part and local component).
 */
class CompletionFitTest {
  static final int USERS = 60;
  static final int ITEMS = 12;
  static final int XI = 6;
  static final double LO = 1;
  static final double HI = 5;
  @TempDir Path dir;

  static ServiceConfig config(String... extra) {
    Map<String, String> flags = new HashMap<>(Map.of("mode", "completion", "rows", "" + USERS,
        "cols", "" + ITEMS, "rating-min", "" + LO, "rating-max", "" + HI, "epsilon", "1",
        "delta", "1e-6", "epoch-seconds", "1", "max-ratings", "" + XI));
    flags.put("completion-runs", "4");
    flags.put("completion-iterations", "3");
    for (int x = 0; x < extra.length; x += 2) {
      flags.put(extra[x], extra[x + 1]);
    }
    return ServiceConfig.load(null, Map.of(), flags);
  }

  /** A committed store: 5 ratings per user on the half-star scale [1, 5], fixed seed. */
  static RatingsStore store(Path at) throws Exception {
    RatingsStore s = RatingsStore.open(at, XI);
    SplittableRandom rnd = new SplittableRandom(3);
    for (int u = 0; u < USERS; u++) {
      for (int k = 0; k < 5; k++) {
        s.sink().rate(u, rnd.nextInt(ITEMS), rnd.nextInt(2, 11) / 2.0);
      }
    }
    commit(s, USERS, ITEMS);
    return s;
  }

  static void commit(RatingsStore s, int users, int items) throws Exception {
    s.target().closeEpoch();
    s.write(new StateStore.Header("t", Map.of(), new IngestStats(), 1, 0, 0),
        new ContributionBounds(new ContributionBounds.Config(users, items, HI,
            ContributionBounds.Unit.USER_RATING, ContributionBounds.BudgetPolicy.CLIP)),
        s.target());
  }

  /** The store's committed ratings as the biased model bounds them (user order, items ascending). */
  static Ratings ratings(RatingsStore s, BiasedParams p, int users, int items) throws Exception {
    List<int[]> ids = new ArrayList<>();
    List<Double> values = new ArrayList<>();
    s.forEachUser(r -> {
      for (int k = 0; k < r.size(); k++) {
        ids.add(new int[] {r.user(), r.items()[k]});
        values.add(r.values()[k]);
      }
    });
    int[] user = ids.stream().mapToInt(x -> x[0]).toArray();
    int[] item = ids.stream().mapToInt(x -> x[1]).toArray();
    double[] value = values.stream().mapToDouble(Double::doubleValue).toArray();
    return BiasedCompletion.ratings(users, items, p, user, item, value);
  }

  private static final CompletionRuns.Progress NONE = (done, total) -> { };

  @Test
  void biasedFit_isBiasedCompletionFit_withCompletesParameters_atTheRunsShare() throws Exception {
    CompletionBudget budget = new CompletionBudget(1, 1e-6, 4);
    PrivacyParams perRun = new PrivacyParams(budget.epsilonPerRun(), 1e-6);
    // What dplrf complete --rating-min 1 --rating-max 5 --max-ratings 6 --iterations 3 builds.
    BiasedParams defaults = BiasedParams.of(perRun, XI, LO, HI);
    BiasedParams expected = defaults.withResidual(defaults.residual().withIterations(3));
    SecretKey key = SecretKey.forTesting(5);
    try (RatingsStore s = store(dir)) {
      int[] progress = new int[2];
      CompletionRuns.Model m = CompletionFit.create(config(), key).fit(s, "label-a",
          (done, total) -> {
            progress[0] = done;
            progress[1] = total;
          });
      assertArrayEquals(new int[] {3, 3}, progress);
      ServedBiasedModel served = assertInstanceOf(ServedBiasedModel.class, m);
      BiasedModel direct = BiasedCompletion.fit(ratings(s, expected, USERS, ITEMS), expected,
          key, "label-a");
      assertEquals(Json.write(new ServedBiasedModel(direct, expected.itemClip(), "privately")
          .publicJson()), Json.write(m.publicJson()));
      BiasedAccount a = served.model().account().orElseThrow();
      assertEquals(budget.epsilonPerRun(), a.privacy().epsilon());
      assertEquals(1e-6, a.privacy().delta());
      // It spends the run's share: at most mu_run (rounding), and within 1e-6 of it (the
      // bisections' widths), so R such fits compose to the total (CompletionBudgetTest).
      double share = budget.muPerRun();
      assertTrue(a.muSpent() <= share * (1 + BiasedAccount.TOLERANCE), a.muSpent() + " > " + share);
      assertTrue(a.muSpent() >= share * (1 - 1e-6), a.muSpent() + " << " + share);
      // The noise is a function of the label: the same label gives the same model, another a
      // different one (the runner gives every fit its own label, CompletionRunsTest).
      CompletionRuns.Model again = CompletionFit.create(config(), key).fit(s, "label-a", NONE);
      assertEquals(Json.write(m.publicJson()), Json.write(again.publicJson()));
      CompletionRuns.Model other = CompletionFit.create(config(), key).fit(s, "label-b", NONE);
      assertNotEquals(((ServedBiasedModel) other).model().offset(), served.model().offset());
    }
  }

  @Test
  void parameters_areThoseDplrfCompleteBuildsFromTheSameOptions() {
    PrivacyParams privacy = new PrivacyParams(0.3, 1e-6);
    ServiceConfig plain = ServiceConfig.load(null, Map.of(), Map.of("mode", "completion",
        "rows", "100", "cols", "40", "rating-min", "0.5", "rating-max", "5", "epsilon", "1",
        "delta", "1e-6", "epoch-seconds", "1"));
    assertEquals(BiasedParams.of(privacy, 80, 0.5, 5),
        CompletionFit.biasedParams(plain.completion(), privacy), "every default");
    ServiceConfig set = config("completion-row-norm", "3", "completion-nuclear-norm", "40",
        "completion-solver", "oja", "completion-oja-steps", "7", "completion-item-clip", "0.5",
        "completion-user-shrinkage", "2");
    BiasedParams d = BiasedParams.of(privacy, XI, LO, HI);
    BiasedParams expected = d.withResidual(new CompletionParams(privacy, XI, 3, 3, 40,
        EigenSolver.OJA, 7, CompletionParams.DEFAULT_BETA)).withItemClip(0.5)
        .withUserShrinkage(2);
    assertEquals(expected, CompletionFit.biasedParams(set.completion(), privacy));
    assertTrue(!expected.estimatesUserShrinkage());
    ServiceConfig fw = config("completion-model", "fw");
    assertEquals(new CompletionParams(privacy, XI, CompletionFit.FW_DEFAULT_ROW_NORM, 3, 0,
        EigenSolver.FULL, CompletionSettings.DEFAULT_OJA_STEPS, CompletionParams.DEFAULT_BETA),
        CompletionFit.frankWolfeParams(fw.completion(), privacy));
    assertEquals((LO + HI) / 2, fw.completion().offset(), "complete's default --offset");
  }

  @Test
  void checkShare_refusesAHalvedNoise_andAFitCalibratedToTheWholeBudget() throws Exception {
    CompletionBudget budget = new CompletionBudget(1, 1e-6, 4);
    try (RatingsStore s = store(dir)) {
      ServedBiasedModel m = (ServedBiasedModel) CompletionFit.create(config(),
          SecretKey.forTesting(5)).fit(s, "share", NONE);
      BiasedAccount a = m.model().account().orElseThrow();
      CompletionFit.checkShare(a, budget); // the fit's own account passes
      // One release's noise halved (as a bug in a component's calibration would): refused.
      List<BiasedAccount.Component> halved = new ArrayList<>(a.components());
      BiasedAccount.Component first = halved.get(0);
      List<BiasedAccount.Part> parts = new ArrayList<>(first.parts());
      NoiseScale n = parts.get(0).noise();
      parts.set(0, new BiasedAccount.Part(new NoiseScale(n.sketch(), n.sigma() / 2,
          n.sensitivity(), n.entries()), parts.get(0).releases()));
      halved.set(0, new BiasedAccount.Component(first.name(), parts));
      BiasedAccount doctored = new BiasedAccount(a.privacy(), a.relation(), a.mu(), halved,
          a.residual());
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> CompletionFit.checkShare(doctored, budget));
      assertTrue(e.getMessage().contains("not published"), e.getMessage());
      // A fit run at the whole budget's (epsilon, delta) instead of (epsilon_run, delta).
      ServedBiasedModel whole = (ServedBiasedModel) CompletionFit.create(
          config("completion-runs", "1"), SecretKey.forTesting(5)).fit(s, "whole", NONE);
      assertThrows(IllegalStateException.class,
          () -> CompletionFit.checkShare(whole.model().account().orElseThrow(), budget));
      // A fit at another delta.
      ServedBiasedModel otherDelta = (ServedBiasedModel) CompletionFit.create(
          config("delta", "1e-5"), SecretKey.forTesting(5)).fit(s, "delta", NONE);
      assertThrows(IllegalStateException.class,
          () -> CompletionFit.checkShare(otherDelta.model().account().orElseThrow(), budget));
    }
  }

  @Test
  void frankWolfeFit_withinItsShare_centredByTheOffset_clampedToTheScale() throws Exception {
    try (RatingsStore s = store(dir)) {
      CompletionFit fit = CompletionFit.create(config("completion-model", "fw",
          "completion-offset", "2"), SecretKey.forTesting(5));
      ServedFrankWolfeModel m = assertInstanceOf(ServedFrankWolfeModel.class,
          fit.fit(s, "fw", NONE));
      assertEquals("fw", m.publicJson().get("model"));
      assertEquals(2.0, m.publicJson().get("offset"));
      double share = new CompletionBudget(1, 1e-6, 4).muPerRun();
      double mu = m.model().diagnostics().account().orElseThrow().mu();
      assertTrue(mu <= share, mu + " > " + share);
      for (int u : new int[] {0, 17, 59}) {
        RatingsStore.UserRatings own = s.ratings(u);
        double[] centred = own.values().clone();
        for (int k = 0; k < centred.length; k++) {
          centred[k] -= 2;
        }
        double[] raw = m.model().completeRow(own.items(), centred);
        double[] scores = m.scores(own);
        for (int j = 0; j < ITEMS; j++) {
          assertEquals(Math.max(LO, Math.min(HI, raw[j] + 2)), scores[j], 0.0, "item " + j);
        }
      }
    }
  }

  @Test
  void storedModel_comesBackIdentical_forEveryModelAndSolver() throws Exception {
    List<String[]> settings = List.of(new String[] {"completion-solver", "full"},
        new String[] {"completion-solver", "oja"},
        // Frank-Wolfe kept: tiny noise (large epsilon), so the signal test passes.
        new String[] {"epsilon", "1e4", "completion-runs", "1"},
        new String[] {"completion-model", "fw"},
        new String[] {"completion-model", "fw", "completion-solver", "oja"});
    boolean residualKept = false;
    int x = 0;
    for (String[] extra : settings) {
      CompletionFit fit = CompletionFit.create(config(extra), SecretKey.forTesting(5));
      try (RatingsStore s = store(dir.resolve("s" + x++))) {
        CompletionRuns.Model m = fit.fit(s, "round-trip", NONE);
        byte[] bytes = m.encode();
        CompletionRuns.Model back = fit.decode(bytes);
        String at = String.join(" ", extra);
        assertEquals(Json.write(m.publicJson()), Json.write(back.publicJson()), at);
        assertArrayEquals(bytes, back.encode(), at);
        for (int u : new int[] {0, 17, 59}) {
          RatingsStore.UserRatings own = s.ratings(u);
          assertArrayEquals(m.scores(own), back.scores(own), 0.0, at + ", user " + u);
        }
        if (m instanceof ServedBiasedModel b && b.model().residual().isPresent()) {
          residualKept = true;
        }
      }
    }
    assertTrue(residualKept, "one case stores a biased model with its residual factors");
  }

  @Test
  void fullSolverLimit_isTheAlgorithms() {
    assertEquals(io.dplrf.release.completion.PrivateFrankWolfe.FULL_MAX_ITEMS,
        CompletionSettings.FULL_SOLVER_MAX_ITEMS);
  }

  @Test
  void solver_defaultsToFullUpTo2000Items_andFullIsRefusedBeyond() {
    assertEquals(CompletionSettings.Solver.FULL, config().completion().solver());
    assertEquals(CompletionSettings.Solver.OJA, config("cols", "2001").completion().solver());
    ConfigException e = assertThrows(ConfigException.class,
        () -> config("cols", "2001", "completion-solver", "full"));
    assertTrue(e.getMessage().contains("oja"), e.getMessage());
  }
}
