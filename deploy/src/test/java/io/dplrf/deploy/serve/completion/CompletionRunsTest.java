package io.dplrf.deploy.serve.completion;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.http.CompletionEndpoints.Refused;
import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.ingest.RatingsStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner's bookkeeping with a recording fitter (the algorithm itself is tested in release and
 * end to end in CompletionModeIT): the fit count is durable before a fit reads anything, fits run
 * one at a time and at most R, the schedule, distinct noise labels, and a restart's state.
 */
class CompletionRunsTest {
  @TempDir Path dir;
  private final Metrics metrics = new Metrics(Set.of(Metrics.Group.COMPLETION));
  private final PrintStream log = new PrintStream(new ByteArrayOutputStream(), true,
      StandardCharsets.UTF_8);

  @AfterEach
  void close() {
    metrics.close();
  }

  /** Records labels and the durable fit count seen at fit time; can hold a fit until released. */
  static final class Recording implements CompletionRuns.Fitter {
    final List<String> labels = new CopyOnWriteArrayList<>();
    final List<Integer> countAtFit = new CopyOnWriteArrayList<>();
    volatile CountDownLatch hold = new CountDownLatch(0);

    @Override
    public CompletionRuns.Model fit(RatingsStore store, String label,
        CompletionRuns.Progress progress) throws IOException {
      countAtFit.add(ByteBuffer.wrap(store.meta(CompletionRuns.RUNS_META).orElseThrow()).getInt());
      labels.add(label);
      try {
        hold.await(120, TimeUnit.SECONDS); // bounds a hang; the test releases it
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      progress.iteration(3, 3);
      return model(labels.size());
    }

    @Override
    public CompletionRuns.Model decode(byte[] bytes) {
      return model(bytes[0]);
    }

    static CompletionRuns.Model model(int n) {
      return new CompletionRuns.Model() {
        @Override
        public Map<String, Object> publicJson() {
          return Map.of("n", n);
        }

        @Override
        public double[] scores(RatingsStore.UserRatings own) {
          return new double[] {n};
        }

        @Override
        public byte[] encode() {
          return new byte[] {(byte) n};
        }
      };
    }
  }

  private CompletionRuns runs(RatingsStore store, Recording f, int r, int every) throws IOException {
    return new CompletionRuns(store, f, new CompletionBudget(1, 1e-6, r), every, metrics, log);
  }

  /**
   * Waits for the running fit to end. The deadline only bounds a hang: a fit here is a few store
   * writes with fsync, which a busy disk can stretch to seconds.
   */
  private static void awaitIdle(CompletionRuns runs) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (Boolean.TRUE.equals(runs.status().get("running")) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(Boolean.FALSE, runs.status().get("running"), "the fit ended: " + runs.status());
  }

  /**
   * A fit's duration grows with the stored ratings, which one user changes: neither it nor the
   * live iteration count is public; both are in the operator's progress.
   */
  @Test
  void fitTimingAndProgress_areOperatorOnly() throws Exception {
    Recording f = new Recording();
    try (RatingsStore store = RatingsStore.open(dir, 5)) {
      CompletionRuns runs = runs(store, f, 2, 0);
      runs.start("test");
      awaitIdle(runs);
      Map<String, Object> pub = runs.status();
      for (String timing : List.of("lastRunSeconds", "iteration", "iterations")) {
        assertFalse(pub.containsKey(timing), timing + " in the public status " + pub);
      }
      assertEquals(1, pub.get("modelRun"));
      Map<String, Object> op = runs.progress();
      assertEquals(3, op.get("iteration"));
      assertEquals(3, op.get("iterations"));
      assertTrue(op.get("lastRunSeconds") instanceof Double s && s >= 0, "" + op);
      assertEquals(1, op.get("modelRun"));
      runs.close();
    }
  }

  @Test
  void fits_countedDurablyFirst_oneAtATime_atMostR_withFreshLabels() throws Exception {
    Recording f = new Recording();
    try (RatingsStore store = RatingsStore.open(dir, 5)) {
      CompletionRuns runs = runs(store, f, 2, 0);
      f.hold = new CountDownLatch(1);
      assertEquals(1, runs.start("test").get("run"));
      Refused busy = assertThrows(Refused.class, () -> runs.start("again"));
      assertEquals(409, busy.status());
      f.hold.countDown();
      awaitIdle(runs);
      assertEquals(1, runs.latest().orElseThrow().run());
      assertEquals(2, runs.start("second").get("run"));
      awaitIdle(runs);
      Refused spent = assertThrows(Refused.class, () -> runs.start("third"));
      assertEquals(409, spent.status());
      assertTrue(spent.getMessage().contains("budget is spent"), spent.getMessage());
      assertEquals(List.of(1, 2), f.countAtFit, "the count is durable before the fit reads");
      assertEquals(2, f.labels.size());
      assertNotEquals(f.labels.get(0), f.labels.get(1));
      assertTrue(f.labels.get(0).matches("completion/[0-9a-f]{32}/run/1"), f.labels.get(0));
      assertEquals(Boolean.TRUE, runs.status().get("exhausted"));
      runs.close();
    }
    // A restart: the count and the model come back; the budget stays spent.
    Recording g = new Recording();
    try (RatingsStore store = RatingsStore.open(dir, 5)) {
      CompletionRuns runs = runs(store, g, 2, 0);
      assertEquals(2, runs.started());
      assertEquals(2, runs.latest().orElseThrow().run());
      assertArrayEquals(new double[] {2}, runs.latest().get().model().scores(null));
      assertThrows(Refused.class, () -> runs.start("after restart"));
      assertTrue(g.labels.isEmpty());
      runs.close();
    }
  }

  @Test
  void schedule_startsAFitEveryNthEpoch_andLabelsDifferAcrossStateDirectories() throws Exception {
    Recording f = new Recording();
    try (RatingsStore store = RatingsStore.open(dir.resolve("a"), 5)) {
      CompletionRuns runs = runs(store, f, 5, 3);
      for (int epoch = 1; epoch <= 7; epoch++) {
        runs.epochClosed(epoch);
        awaitIdle(runs);
      }
      assertEquals(2, runs.started(), "after epochs 3 and 6");
      runs.close();
    }
    Recording g = new Recording();
    try (RatingsStore store = RatingsStore.open(dir.resolve("b"), 5)) {
      CompletionRuns runs = runs(store, g, 5, 0);
      runs.epochClosed(3);
      assertEquals(0, runs.started(), "every 0: on demand only");
      runs.start("test");
      awaitIdle(runs);
      runs.close();
    }
    assertNotEquals(f.labels.get(0), g.labels.get(0),
        "two state directories (maybe sharing a key) never share a noise label");
  }
}
