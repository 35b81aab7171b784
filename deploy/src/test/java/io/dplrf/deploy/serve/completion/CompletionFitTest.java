package io.dplrf.deploy.serve.completion;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import io.dplrf.sketch.randomness.SecretKey;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service's adapter to private Frank–Wolfe on a real ratings store: the fit stays within its
 * share of the budget, the configured solver is used, and the stored model comes back identical
 * (public part and local component) — a restart serves it without refitting.
 */
class CompletionFitTest {
  static final int USERS = 60;
  static final int ITEMS = 12;
  @TempDir Path dir;

  private static ServiceConfig config(String... extra) {
    Map<String, String> flags = new HashMap<>(Map.of("mode", "completion", "rows", "" + USERS,
        "cols", "" + ITEMS, "clip", "1", "epsilon", "1", "delta", "1e-6", "epoch-seconds", "1",
        "max-ratings", "6", "completion-runs", "4", "completion-iterations", "3"));
    for (int x = 0; x < extra.length; x += 2) {
      flags.put(extra[x], extra[x + 1]);
    }
    return ServiceConfig.load(null, Map.of(), flags);
  }

  private RatingsStore store(Path at) throws Exception {
    RatingsStore s = RatingsStore.open(at, 6);
    SplittableRandom rnd = new SplittableRandom(3);
    for (int u = 0; u < USERS; u++) {
      for (int k = 0; k < 5; k++) {
        s.sink().rate(u, rnd.nextInt(ITEMS), rnd.nextInt(-4, 5) / 4.0);
      }
    }
    s.target().closeEpoch();
    s.write(new StateStore.Header("t", Map.of(), new IngestStats(), 1, 0, 0),
        new ContributionBounds(new ContributionBounds.Config(USERS, ITEMS, 1,
            ContributionBounds.Unit.USER_RATING, ContributionBounds.BudgetPolicy.CLIP)),
        s.target());
    return s;
  }

  @Test
  void fit_withinItsShare_andTheStoredModelComesBackIdentical() throws Exception {
    for (String solver : List.of("full", "oja")) {
      ServiceConfig c = config("completion-solver", solver);
      CompletionFit fit = CompletionFit.create(c, SecretKey.forTesting(5));
      try (RatingsStore s = store(dir.resolve(solver))) {
        int[] progress = new int[2];
        CompletionRuns.Model m = fit.fit(s, "test/" + solver, (done, total) -> {
          progress[0] = done;
          progress[1] = total;
        });
        assertArrayEquals(new int[] {3, 3}, progress);
        Map<String, Object> json = m.publicJson();
        assertEquals(solver, json.get("solver"));
        @SuppressWarnings("unchecked")
        Map<String, Object> account = (Map<String, Object>) json.get("account");
        double share = new CompletionBudget(1, 1e-6, 4).muPerRun();
        assertTrue((Double) account.get("mu") <= share, account.get("mu") + " > " + share);
        CompletionRuns.Model back = fit.decode(m.encode());
        assertEquals(Json.write(json), Json.write(back.publicJson()));
        for (int u : new int[] {0, 17, 59}) {
          RatingsStore.UserRatings own = s.ratings(u);
          assertArrayEquals(m.scores(own), back.scores(own), 0.0, "user " + u);
        }
      }
    }
  }

  @Test
  void offset_centresTheFit_andIsAddedBackToScores() throws Exception {
    try (RatingsStore s = store(dir.resolve("offset"))) {
      CompletionRuns.Model plain = CompletionFit.create(config(), SecretKey.forTesting(5))
          .fit(s, "same-label", (d, t) -> { });
      // Ratings shifted by +2 and offset 2: the same centred data, the same noise (same label).
      CompletionFit shifted = CompletionFit.create(config("clip", "3", "completion-row-norm",
          "" + Math.sqrt(6), "completion-offset", "2"), SecretKey.forTesting(5));
      try (RatingsStore t = RatingsStore.open(dir.resolve("shifted"), 6)) {
        s.forEachUser(r -> {
          for (int k = 0; k < r.size(); k++) {
            t.sink().rate(r.user(), r.items()[k], r.values()[k] + 2);
          }
        });
        t.target().closeEpoch();
        t.write(new StateStore.Header("t", Map.of(), new IngestStats(), 1, 0, 0),
            new ContributionBounds(new ContributionBounds.Config(USERS, ITEMS, 3,
                ContributionBounds.Unit.USER_RATING, ContributionBounds.BudgetPolicy.CLIP)),
            t.target());
        CompletionRuns.Model m = shifted.fit(t, "same-label", (d, x) -> { });
        assertEquals(2.0, m.publicJson().get("offset"));
        double[] a = plain.scores(s.ratings(17));
        double[] b = m.scores(t.ratings(17));
        for (int j = 0; j < ITEMS; j++) {
          assertEquals(a[j] + 2, b[j], 1e-9, "item " + j);
        }
        assertEquals(2.0, shifted.decode(m.encode()).publicJson().get("offset"));
      }
    }
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
