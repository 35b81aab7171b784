package io.dplrf.deploy.serve.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.ingest.ContributionBounds;
import io.dplrf.ingest.DeadLetterReason;
import io.dplrf.ingest.IngestStats;
import io.dplrf.ingest.MalformedRecordException;
import io.dplrf.ingest.RatingsStore;
import io.dplrf.ingest.RecordDecoder;
import io.dplrf.ingest.UpdateRecords;
import io.dplrf.release.completion.BiasedCompletion;
import io.dplrf.release.completion.BiasedModel;
import io.dplrf.release.completion.CompletionModel;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mode completion around its model: a user's predictions are the model's completed row of her
 * own stored ratings, clamped to the declared scale; ratings off the scale are dead-lettered,
 * never stored; status and the public model name the biased model.
 */
class CompletionModeTest {
  @TempDir Path dir;
  private final Metrics metrics = new Metrics(java.util.Set.of(Metrics.Group.COMPLETION));
  private final PrintStream log = new PrintStream(new ByteArrayOutputStream(), true,
      StandardCharsets.UTF_8);

  @AfterEach
  void close() {
    metrics.close();
  }

  /** 10 users x 4 items on [0.5, 5], xi = 3: the shape of {@link GoldenModels#biased}. */
  private ServiceConfig config(String... extra) {
    Map<String, String> flags = new HashMap<>(Map.of("mode", "completion", "rows", "10", "cols",
        "4", "rating-min", "0.5", "rating-max", "5", "epsilon", "1", "delta", "1e-6",
        "epoch-seconds", "1", "max-ratings", "3", "state-dir", dir.toString()));
    for (int x = 0; x < extra.length; x += 2) {
      flags.put(extra[x], extra[x + 1]);
    }
    return ServiceConfig.load(null, Map.of(), flags);
  }

  /** Hands out the golden biased model as every fit's result. */
  private static final class Golden implements CompletionRuns.Fitter {
    @Override
    public CompletionRuns.Model fit(RatingsStore store, String label,
        CompletionRuns.Progress progress) {
      return GoldenModels.biased();
    }

    @Override
    public CompletionRuns.Model decode(byte[] bytes) throws IOException {
      return StoredModel.decode(bytes, 0.5, 5);
    }
  }

  /** Waits for the fit's model; the deadline only bounds a hang (a busy disk slows the fit). */
  private static void awaitModel(CompletionMode mode) throws InterruptedException {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(120).toNanos();
    while (mode.model().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertTrue(mode.model().isPresent(), "the fit made a model");
  }

  @Test
  void predictions_areTheCompletedRowOfTheUsersOwnRatings_clampedToTheScale() throws Exception {
    ServiceConfig c = config();
    try (CompletionMode mode = CompletionMode.open(c, new Golden(), SecretKey.forTesting(1),
        metrics, log)) {
      mode.store().sink().rate(1, 0, 5);
      mode.store().sink().rate(1, 2, 1.5);
      CompletionFitTest.commit(mode.store(), 10, 4);
      mode.run();
      awaitModel(mode);
      Map<String, Object> p = mode.predictions(1, 4);
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> top = (List<Map<String, Object>>) p.get("predictions");
      assertEquals(2, top.size(), "the two items user 1 has not rated");
      BiasedModel m = GoldenModels.biased().model();
      int[] items = {0, 2};
      double[] values = {5, 1.5};
      double[] row = m.completeRow(items, values);
      for (Map<String, Object> e : top) {
        int j = (Integer) e.get("item");
        assertEquals(row[j], (Double) e.get("score"), 0.0, "item " + j);
      }
      // Unclamped, item 1 is above the scale: g + b_1 + c_1 + Y_11 from the public parts and
      // user 1's own ratings (her bias shrunk by lambda_u, the residual's local component).
      double c1 = 0;
      for (int k = 0; k < items.length; k++) {
        c1 += values[k] - m.offset() - m.itemBiases()[items[k]];
      }
      c1 /= items.length + m.userShrinkage();
      double[] z = new double[items.length];
      for (int k = 0; k < items.length; k++) {
        z[k] = values[k] - m.offset() - m.itemBiases()[items[k]] - c1;
      }
      CompletionModel residual = m.residual().orElseThrow();
      double raw = m.offset() + m.itemBiases()[1] + c1 + residual.completeRow(items, z)[1];
      assertTrue(raw > 5, "the test needs a prediction above the scale: " + raw);
      assertEquals(1, top.get(0).get("item"));
      assertEquals(5.0, top.get(0).get("score"), "clamped to rating-max");
      // A user without ratings: clamp(g + b_j); g + b_1 = 5.625 is served as 5.
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> none =
          (List<Map<String, Object>>) mode.predictions(7, 4).get("predictions");
      assertEquals(1, none.get(0).get("item"));
      assertEquals(5.0, none.get(0).get("score"));
      for (Map<String, Object> e : none) {
        double s = (Double) e.get("score");
        assertTrue(s >= 0.5 && s <= 5, "" + s);
      }
      Map<String, Object> model = mode.model().orElseThrow();
      assertEquals("biased", model.get("model"));
      assertEquals(BiasedCompletion.MECHANISM, model.get("mechanism"));
      assertEquals(10, model.get("users"));
    }
  }

  @Test
  void ratingsOffTheDeclaredScale_areDeadLettered_afterTheFormatChecks() throws Exception {
    ServiceConfig c = config();
    assertEquals(5.0, c.clip(), "the per-rating bound is derived from the scale");
    try (CompletionMode mode = CompletionMode.open(c, new Golden(), SecretKey.forTesting(1),
        metrics, log)) {
      ContributionBounds bounds = new ContributionBounds(mode.ingestConfig().bounds());
      RecordDecoder decoder = mode.decoder(bounds);
      IngestStats stats = new IngestStats();
      // -1 is within |rating| <= 5 but below rating-min 0.5; 0.2 too; 5.5 above rating-max.
      for (double off : new double[] {-1, 0.2, 5.5, Double.NEGATIVE_INFINITY}) {
        byte[] rec = UpdateRecords.encode(new int[] {2, 2}, new int[] {0, 1},
            new double[] {3, off}, 0, 2);
        MalformedRecordException e = assertThrows(MalformedRecordException.class,
            () -> decoder.apply(null, rec, stats), "" + off);
        assertEquals(Double.isInfinite(off) ? DeadLetterReason.NON_FINITE_DELTA
            : DeadLetterReason.RATING_OUT_OF_RANGE, e.reason(), "" + off);
      }
      byte[] both = UpdateRecords.encode(new int[] {2, 10}, new int[] {0, 1},
          new double[] {0.2, 3}, 0, 2);
      assertEquals(DeadLetterReason.INDEX_OUT_OF_RANGE, assertThrows(
          MalformedRecordException.class, () -> decoder.apply(null, both, stats)).reason(),
          "a bad id is reported before a rating off the scale, as in every mode");
      assertEquals(0, stats.updatesApplied(), "nothing of a refused record is applied");
      decoder.apply(null, UpdateRecords.encode(new int[] {2, 2}, new int[] {0, 1},
          new double[] {0.5, 5}, 0, 2), stats);
      assertEquals(2, stats.updatesApplied(), "the ends of the scale are on it");
      CompletionFitTest.commit(mode.store(), 10, 4);
      assertEquals(2, mode.store().ratings(2).size());
    }
  }

  @Test
  void status_namesTheConfiguredModel_andItsScale() throws Exception {
    try (CompletionMode mode = CompletionMode.open(config(), new Golden(),
        SecretKey.forTesting(1), metrics, log)) {
      assertEquals(BiasedCompletion.MECHANISM, mode.status().mechanism());
      Map<String, Object> f = mode.statusFields();
      assertEquals("biased", f.get("model"));
      assertEquals(0.5, f.get("ratingMin"));
      assertEquals(5.0, f.get("ratingMax"));
      assertFalse(f.containsKey("ratingBound"));
      assertTrue(CompletionMode.neighbouring(config()).contains("rating in [0.5, 5.0]"));
    }
    Path other = dir.resolve("fw");
    try (CompletionMode mode = CompletionMode.open(config("completion-model", "fw",
        "state-dir", other.toString()), new Golden(), SecretKey.forTesting(1), metrics, log)) {
      assertEquals("private-frank-wolfe", mode.status().mechanism());
    }
  }
}
