package io.dplrf.deploy.serve.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.ingest.RatingsStore;
import io.dplrf.release.completion.BiasedParams;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The noise the service's fits add, end to end through the runner (its labels, the budget's
 * split, the adapter, the model): R fits of the biased model on ratings whose users' means all
 * sit exactly at the midpoint, so that the released global offset is g = mid + e₁/(C + e₂) with
 * the exact sum 0, C users, e₁ ~ N(0, σ_s²) and e₂ ~ N(0, σ_c²) the noise of the global sum and
 * the active-user count. Their σ follow from the run's share alone: μ_g = μ_run·√(share_g),
 * split evenly over the two releases, σ_s = Δ_s/(μ_g/√2) with Δ_s = 2h (h the scale's half
 * width) and σ_c = 1/(μ_g/√2) (docs/privacy/completion.md §7, rows 1a and 1b). The spread of g
 * over the R fits must match: fits that share a label (no spread), that add no noise, half the
 * noise, or that are calibrated to the whole budget instead of its 1/√R share (a tenth of the
 * noise here) fail.
 */
class CompletionNoiseTest {
  private static final int USERS = 400;
  private static final int RUNS = 100;
  @TempDir Path dir;
  private final Metrics metrics = new Metrics(java.util.Set.of(Metrics.Group.COMPLETION));

  @AfterEach
  void close() {
    metrics.close();
  }

  @Test
  void globalOffset_spreadsOverTheFitsAsTheRunsShareOfTheBudgetSays() throws Exception {
    ServiceConfig c = ServiceConfig.load(null, Map.of(), Map.ofEntries(
        Map.entry("mode", "completion"), Map.entry("rows", "" + USERS), Map.entry("cols", "5"),
        Map.entry("rating-min", "1"), Map.entry("rating-max", "5"), Map.entry("epsilon", "20"),
        Map.entry("delta", "1e-6"), Map.entry("epoch-seconds", "1"),
        Map.entry("max-ratings", "6"), Map.entry("completion-runs", "" + RUNS),
        Map.entry("completion-iterations", "1")));
    double mid = 3;
    double h = 2;
    double[] g = new double[RUNS];
    try (RatingsStore store = RatingsStore.open(dir, 6)) {
      for (int u = 0; u < USERS; u++) {
        for (int j = 0; j < 3; j++) {
          store.sink().rate(u, (u + j) % 5, mid);
        }
      }
      CompletionFitTest.commit(store, USERS, 5);
      CompletionBudget budget = new CompletionBudget(20, 1e-6, RUNS);
      CompletionRuns runs = new CompletionRuns(store,
          CompletionFit.create(c, SecretKey.forTesting(11)), budget, 0, metrics,
          new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
      for (int r = 0; r < RUNS; r++) {
        runs.start("test");
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(120).toNanos();
        while (Boolean.TRUE.equals(runs.status().get("running")) && System.nanoTime() < deadline) {
          Thread.sleep(5); // the deadline only bounds a hang: a fit is CPU work on a shared host
        }
        CompletionRuns.Finished f = runs.latest().orElseThrow();
        assertEquals(r + 1, f.run(), "fit " + (r + 1) + " finished: " + runs.status());
        g[r] = ((ServedBiasedModel) f.model()).model().offset();
      }
      runs.close();
      double muG = budget.muPerRun() * Math.sqrt(BiasedParams.Shares.DEFAULT.global());
      double sigmaS = 2 * h / (muG / Math.sqrt(2));
      double sigmaC = 1 / (muG / Math.sqrt(2));
      // Var(e1/(C + e2)) = sigma_s^2 E[(C + e2)^-2] = (sigma_s/C)^2 (1 + 3 (sigma_c/C)^2 + ...).
      double ratio = sigmaC / USERS;
      double v = sigmaS * sigmaS / ((double) USERS * USERS) * (1 + 3 * ratio * ratio);
      assertTrue(Math.sqrt(v) < h / 8, "the clamp to [-h, h] never acts: " + Math.sqrt(v));
      double mean = 0;
      for (double x : g) {
        mean += x;
      }
      mean /= RUNS;
      double q = 0;
      for (double x : g) {
        q += (x - mean) * (x - mean) / v;
      }
      // q ~ chi^2 with RUNS - 1 degrees of freedom; two-sided at z = 5 (Wilson-Hilferty): a
      // correct service is rejected with probability about 6e-7. Half the noise gives q ~ 25,
      // the whole budget's calibration q ~ 1, a shared label q = 0.
      int k = RUNS - 1;
      double s = Math.sqrt(2.0 / (9 * k));
      double lo = k * Math.pow(1 - 2.0 / (9 * k) - 5 * s, 3);
      double hi = k * Math.pow(1 - 2.0 / (9 * k) + 5 * s, 3);
      String seen = "q = " + q + " outside [" + lo + ", " + hi + "] (sigma_g = " + Math.sqrt(v)
          + ", key forTesting(11))";
      System.out.println("NOISE " + seen);
      assertTrue(q >= lo && q <= hi, seen);
      // e1 is symmetric and independent of e2: g is unbiased; 5 standard errors.
      assertEquals(mid, mean, 5 * Math.sqrt(v / RUNS), "mean of g");
    }
  }
}
