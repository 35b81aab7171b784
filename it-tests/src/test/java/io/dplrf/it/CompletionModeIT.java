package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static io.dplrf.it.Http.objectOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.ingest.IngestStats;
import io.dplrf.ingest.UpdateRecords;
import io.dplrf.it.Stream.Rec;
import io.dplrf.release.completion.BiasedModel;
import io.dplrf.release.completion.CompletionDiagnostics;
import io.dplrf.release.completion.CompletionModel;
import io.dplrf.release.completion.EigenSolver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Completion mode ({@code mode = completion}, docs/completion-service.md) end to end against the
 * suite's real broker: ratings streamed in through Kafka into the RocksDB store, malformed
 * records dead-lettered, a fit of the default model (the biased model of {@code dplrf complete})
 * started by the operator, a user's predictions pulled with her token (and refused with
 * another's or none), a restart on the same state directory (same stored ratings, nothing applied
 * twice, the model kept without refitting), and the budget's R fits.
 */
@ExtendWith(KafkaSuite.class)
class CompletionModeIT {
  private static final Duration DEADLINE = Duration.ofSeconds(120);
  static final int USERS = 200;
  static final int ITEMS = 30;
  static final int XI = 8;

  private RunningService running;

  @AfterEach
  void stop() throws Exception {
    if (running != null) {
      running.close();
    }
  }

  /** The store's rule, test side: first ξ distinct items per user, the latest rating wins. */
  static final class Expected {
    final Map<Integer, TreeMap<Integer, Double>> rows = new TreeMap<>();
    long applied;
    long dropped;
    long checksum;

    void rate(int u, int j, double r) {
      TreeMap<Integer, Double> row = rows.computeIfAbsent(u, x -> new TreeMap<>());
      if (row.containsKey(j) || row.size() < XI) {
        row.put(j, r);
        applied++;
        checksum += IngestStats.updateHash(u, j, r);
      } else {
        dropped++;
      }
    }

    long stored() {
      return rows.values().stream().mapToLong(Map::size).sum();
    }
  }

  /** Rank-one ratings u_i v_j in [-1, 1], 4-12 per user, packed 3 per record, some re-rated. */
  static List<Rec> ratings(SplittableRandom rnd, double[] a, double[] b, Expected e, int rounds) {
    List<Rec> out = new ArrayList<>();
    List<int[]> pending = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      for (int u = 0; u < USERS; u++) {
        int n = rnd.nextInt(2, 7) + (u == 5 ? 10 : 0); // user 5 exceeds xi
        for (int k = 0; k < n; k++) {
          pending.add(new int[] {u, rnd.nextInt(ITEMS)});
        }
      }
    }
    for (int x = 0; x < pending.size(); x += 3) {
      int len = Math.min(3, pending.size() - x);
      int[] i = new int[len];
      int[] j = new int[len];
      double[] d = new double[len];
      for (int k = 0; k < len; k++) {
        i[k] = pending.get(x + k)[0];
        j[k] = pending.get(x + k)[1];
        d[k] = Math.round(a[i[k]] * b[j[k]] * 8) / 8.0; // in [-1, 1]
        e.rate(i[k], j[k], d[k]);
      }
      out.add(new Rec(null, UpdateRecords.encode(i, j, d, 0, len)));
    }
    return out;
  }

  @Test
  void completion_ratingsIn_fitOnDemand_predictionsForTheTokenHolderOnly_surviveRestart(
      KafkaEnvironment kafka) throws Exception {
    final long seed = 20261121L;
    String topic = "it-completion-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    Path state = Files.createTempDirectory("dplrf-it-completion");
    TestData.writeKey(state.resolve("secret.key"), seed);
    Map<String, String> settings = RunningService.settings("mode", "completion",
        "rows", "" + USERS, "cols", "" + ITEMS, "rating-min", "-1", "rating-max", "1",
        "epsilon", "2", "delta", "1e-6", "epoch-seconds", "0.3", "max-ratings", "" + XI,
        "completion-runs", "2", "completion-iterations", "6");
    running = RunningService.start(kafka, topic, state, settings);

    SplittableRandom rnd = new SplittableRandom(seed);
    double[] a = new double[USERS];
    double[] b = new double[ITEMS];
    for (int u = 0; u < USERS; u++) {
      a[u] = rnd.nextDouble(-1, 1);
    }
    for (int j = 0; j < ITEMS; j++) {
      b[j] = rnd.nextDouble(-1, 1);
    }
    Expected expected = new Expected();
    List<Rec> recs = ratings(rnd, a, b, expected, 1);
    // Malformed records, each with its reason; nothing of them is applied.
    Map<String, byte[]> bad = new LinkedHashMap<>();
    bad.put("BAD_LENGTH", new byte[20]);
    bad.put("INDEX_OUT_OF_RANGE", UpdateRecords.encode(new int[] {1, USERS}, new int[] {0, 0},
        new double[] {0.5, 0.5}, 0, 2));
    bad.put("NON_FINITE_DELTA", UpdateRecords.encode(new int[] {2}, new int[] {3},
        new double[] {Double.NaN}, 0, 1));
    bad.put("RATING_OUT_OF_RANGE", UpdateRecords.encode(new int[] {3, 3}, new int[] {1, 2},
        new double[] {0.5, 1.5}, 0, 2));
    List<Rec> all = new ArrayList<>(recs.subList(0, 40));
    int[] badOffsets = new int[bad.size()];
    int x = 0;
    for (byte[] v : bad.values()) {
      badOffsets[x++] = all.size();
      all.add(new Rec(null, v));
    }
    all.addAll(recs.subList(40, recs.size()));
    Stream.sendAll(kafka.bootstrapServers(), topic, all);
    assertTrue(expected.dropped > 0, "test data: user 5 exceeds max-ratings");

    Map<String, Object> ingest = Poll.until("all ratings committed", DEADLINE, running::ingest,
        m -> longOf(m, "ratingsStored") == expected.stored()
            && longOf(m, "recordsConsumed") == all.size());
    assertEquals("completion", ingest.get("mode"), "" + ingest);
    assertEquals(expected.applied, longOf(ingest, "ratingsApplied"), "" + ingest);
    assertEquals(expected.dropped, longOf(ingest, "ratingsDropped"), "" + ingest);
    assertEquals(expected.rows.size(), longOf(ingest, "users"), "" + ingest);
    Map<String, Object> dl = objectOf(ingest, "recordsDeadLettered");
    for (String reason : bad.keySet()) {
      assertEquals(1, longOf(dl, reason.toLowerCase(java.util.Locale.ROOT)), reason + ": " + dl);
    }
    List<ConsumerRecord<byte[], byte[]>> letters =
        TestData.readAll(kafka, topic + ".dead-letter", bad.size());
    x = 0;
    for (Map.Entry<String, byte[]> e : bad.entrySet()) {
      ConsumerRecord<byte[], byte[]> letter = letters.get(x);
      assertArrayEquals(e.getValue(), letter.value(), e.getKey());
      assertEquals(e.getKey(), header(letter, "dplrf-reason-code"));
      assertEquals(Integer.toString(badOffsets[x]), header(letter, "dplrf-offset"));
      x++;
    }

    // No model before the first fit; a fit on demand.
    assertEquals(404, Http.get(running.api("/v1/completion")).status());
    Http.Answer started = Http.send("POST", running.operator("/admin/completion/run"), null);
    assertEquals(202, started.status(), "" + started);
    Map<String, Object> status = Poll.until("fit 1 finished", DEADLINE,
        () -> Http.object(running.api("/v1/status")),
        s -> Long.valueOf(1).equals(runOf(s)));
    Map<String, Object> completion = objectOf(status, "completion");
    assertEquals("private-biased-frank-wolfe", status.get("mechanism"), "" + status);
    assertEquals("biased", completion.get("model"), "complete's default model");
    assertEquals("user", status.get("privacyUnit"));
    assertEquals(1, longOf(objectOf(completion, "budget"), "runsLeft"), "" + completion);
    assertFalse(status.toString().contains("ratingsStored"), "exact counts are operator-only");
    for (String timing : List.of("lastRunSeconds", "iteration", "iterations")) {
      assertFalse(completion.containsKey(timing), "fit timing is operator-only: " + completion);
    }
    // Status and page speak of fits and the model: the epochs closed (every 0.3 s) are no
    // releases, and clip and rank do not apply; users and items name the dimensions.
    assertTrue(longOf(running.ingest(), "epochsClosed") >= 1, "epochs closed");
    for (String absent : List.of("epoch", "epochs", "latestRelease", "lastReleaseTime",
        "nextEpochClose", "clip", "rank", "rows", "cols")) {
      assertFalse(status.containsKey(absent), absent + " in " + status);
    }
    assertEquals(USERS, longOf(status, "users"), "" + status);
    assertEquals(ITEMS, longOf(status, "items"), "" + status);
    String page = Http.get(running.api("/")).body();
    assertTrue(page.contains("<title>dplrf · fit 1 of 2</title>"), page);
    assertTrue(page.contains("1 fit left in the budget"), page);
    assertTrue(page.contains("fit 1, finished "
        + java.time.Instant.parse((String) completion.get("lastRunTime"))
            .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)), page);
    assertTrue(page.contains("<a href=\"/v1/completion\">"), page);
    for (String absent : List.of("/v1/release", "Epoch", "clip C", "lastRunSeconds",
        "iteration")) {
      assertFalse(page.contains(absent), absent + " on the status page:\n" + page);
    }
    Http.Answer noRelease = Http.get(running.api("/v1/release/latest"));
    assertEquals(404, noRelease.status(), "" + noRelease);
    assertTrue(noRelease.body().contains("/v1/completion"), "" + noRelease);
    Map<String, Object> progress = Http.object(running.operator("/admin/completion"));
    assertEquals(6, longOf(progress, "iterations"), "" + progress);
    assertEquals(6, longOf(progress, "iteration"), "" + progress);
    assertTrue(progress.get("lastRunSeconds") instanceof Number, "" + progress);
    Map<String, Object> model = Http.object(running.api("/v1/completion"));
    assertEquals("biased", model.get("model"));
    assertEquals(ITEMS, Http.vector(model.get("itemBiases")).length);
    Map<String, Object> residual = objectOf(model, "residual");
    if (Boolean.TRUE.equals(residual.get("used"))) {
      double[][] factors = Http.matrix(residual.get("itemFactors"));
      assertEquals(6, factors.length);
      assertEquals(ITEMS, factors[0].length);
    }
    // The fit spent its share of the budget and no more (rounding only).
    Map<String, Object> account = objectOf(model, "account");
    double share = (Double) objectOf(completion, "budget").get("muPerRun");
    assertTrue((Double) account.get("muSpent") <= share * (1 + 1e-12), account + " > " + share);
    assertTrue((Double) account.get("muSpent") >= share * (1 - 1e-6), account + " << " + share);

    // Tokens: issued by the operator, per user.
    String token7 = token(7);
    String token8 = token(8);
    assertNotEquals(token7, token8);
    assertEquals(token7, token(7), "derived, not stored: the same every time");
    String url7 = running.api("/v1/users/7/predictions?n=5");
    assertEquals(401, Http.send("GET", url7, null).status());
    assertEquals(403, Http.send("GET", url7, token8).status(), "another user's token");
    assertEquals(403, Http.send("GET", url7, token7 + "x").status());
    Http.Answer mine = Http.send("GET", url7, token7);
    assertEquals(200, mine.status(), "" + mine);
    @SuppressWarnings("unchecked")
    Map<String, Object> p7 = (Map<String, Object>) mine.json();
    assertEquals(7, longOf(p7, "user"));
    assertEquals(expected.rows.get(7).size(), longOf(p7, "rated"));
    // The prediction is the local component: user 7's own ratings and the public model only.
    double[] local = localComponent(model, expected.rows.get(7));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> top = (List<Map<String, Object>>) p7.get("predictions");
    assertEquals(5, top.size());
    double previous = Double.POSITIVE_INFINITY;
    for (Map<String, Object> e : top) {
      int item = (int) longOf(e, "item");
      double score = (Double) e.get("score");
      assertFalse(expected.rows.get(7).containsKey(item), "an item user 7 rated: " + item);
      assertEquals(local[item], score, 1e-12 * Math.max(1, Math.abs(score)), "item " + item);
      assertTrue(score <= previous);
      previous = score;
    }
    // No endpoint lists users' rows.
    for (String path : List.of("/v1/users", "/v1/users/7", "/v1/users/7/ratings",
        "/v1/ratings", "/v1/completion/users")) {
      assertEquals(404, Http.send("GET", running.api(path), token7).status(), path);
    }
    String scrape = running.metrics();
    assertEquals(expected.applied, RunningService.sample(scrape, "dplrf_ratings_applied_total",
        null, null), 0.0);
    assertEquals(expected.dropped, RunningService.sample(scrape, "dplrf_ratings_dropped_total",
        null, null), 0.0);
    assertEquals(1, RunningService.sample(scrape, "dplrf_completion_runs_total", null, null), 0.0);
    assertEquals(6, RunningService.sample(scrape, "dplrf_completion_iteration", null, null), 0.0);

    // Restart on the same state directory: same stored ratings and counts, the same model.
    Map<String, Object> before = running.exactCounts();
    running.service.close();
    running = RunningService.start(kafka, topic, state, settings);
    Map<String, Object> after = running.exactCounts();
    // Epochs are cut by the clock (0.3 s) and keep closing, empty, between the two reads.
    long epochsBefore = longOf(before, "epochsClosed");
    assertTrue(longOf(after, "epochsClosed") >= epochsBefore, before + " then " + after);
    before.remove("epochsClosed");
    after.remove("epochsClosed");
    assertEquals(before, after, "exact counts survive the restart");
    assertEquals(model, Http.object(running.api("/v1/completion")), "the model is restored");
    Http.Answer again = Http.send("GET", running.api("/v1/users/7/predictions?n=5"), token7);
    assertEquals(mine.body(), again.body(), "the same token and predictions after the restart");

    // More ratings (re-ratings among them) after the restart: each applied exactly once.
    List<Rec> more = ratings(rnd, a, b, expected, 1);
    Stream.sendAll(kafka.bootstrapServers(), topic, more);
    ingest = Poll.until("second batch committed", DEADLINE, running::ingest,
        m -> longOf(m, "recordsConsumed") == all.size() + more.size()
            && longOf(m, "ratingsStored") == expected.stored());
    assertEquals(expected.applied, longOf(ingest, "ratingsApplied"), "" + ingest);
    assertEquals(expected.dropped, longOf(ingest, "ratingsDropped"), "" + ingest);

    // The budget: fit 2 of R = 2, then refused.
    assertEquals(202, Http.send("POST", running.operator("/admin/completion/run"), null).status());
    status = Poll.until("fit 2 finished", DEADLINE, () -> Http.object(running.api("/v1/status")),
        s -> Long.valueOf(2).equals(runOf(s)));
    assertEquals(Boolean.TRUE, objectOf(status, "completion").get("exhausted"));
    Http.Answer refused = Http.send("POST", running.operator("/admin/completion/run"), null);
    assertEquals(409, refused.status(), "" + refused);
    assertEquals(405, Http.send("GET", running.operator("/admin/completion/run"), null).status());
  }

  /**
   * Exactly once across a hard crash: {@code dplrf serve --mode completion} as a child JVM,
   * killed with SIGKILL (no shutdown hook, no final checkpoint) while ratings stream in, then
   * restarted on the same state directory: every rating is stored once — the same stored count,
   * applied and dropped counts and checksum as the test's own replay of the stream.
   */
  @Test
  void killDashNineMidStream_thenRestart_storesEveryRatingExactlyOnce(KafkaEnvironment kafka)
      throws Throwable {
    String topic = "it-completion-crash-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    Path state = Files.createTempDirectory("dplrf-it-completion-crash");
    Path logs = Files.createTempDirectory("dplrf-it-completion-crash-log");
    Map<String, String> settings = RunningService.settings("mode", "completion",
        "rows", "" + USERS, "cols", "" + ITEMS, "rating-min", "-1", "rating-max", "1",
        "epsilon", "1", "delta", "1e-6", "epoch-seconds", "0.2", "max-ratings", "" + XI, "bootstrap-servers",
        kafka.bootstrapServers(), "topic", topic, "state-dir", state.toString(), "http-port", "0",
        "operator-port", "0");
    SplittableRandom rnd = new SplittableRandom(99);
    double[] a = new double[USERS];
    double[] b = new double[ITEMS];
    for (int u = 0; u < USERS; u++) {
      a[u] = rnd.nextDouble(-1, 1);
    }
    for (int j = 0; j < ITEMS; j++) {
      b[j] = rnd.nextDouble(-1, 1);
    }
    Expected expected = new Expected();
    List<Rec> recs = ratings(rnd, a, b, expected, 3); // ~2,000 records, many re-ratings
    List<ChildService> children = new ArrayList<>();
    try {
      ChildService first = ChildService.start(settings, logs.resolve("serve-1.log"), DEADLINE);
      children.add(first);
      // The second half waits for the kill: mid-stream however long the first commit takes.
      java.util.concurrent.CountDownLatch killed = new java.util.concurrent.CountDownLatch(1);
      int half = recs.size() / 2 / 100 * 100;
      java.util.concurrent.CompletableFuture<Void> producing =
          java.util.concurrent.CompletableFuture.runAsync(() -> {
            for (int from = 0; from < recs.size(); from += 100) {
              try {
                if (from == half
                    && !killed.await(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)) {
                  throw new IllegalStateException("no kill within " + DEADLINE.toSeconds() + " s");
                }
                Stream.sendAll(kafka.bootstrapServers(), topic,
                    recs.subList(from, Math.min(recs.size(), from + 100)));
                Thread.sleep(100);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
              }
            }
          });
      Map<String, Object> beforeKill = Poll.until("some ratings committed", DEADLINE,
          () -> Http.object(first.operator("/admin/ingest")), m -> longOf(m, "ratingsStored") > 0);
      first.kill();
      killed.countDown();
      System.out.println("completion crash: killed after " + beforeKill);
      assertTrue(longOf(beforeKill, "recordsConsumed") < recs.size(),
          "the kill must come mid-stream: " + beforeKill);
      producing.get(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);

      ChildService second = ChildService.start(settings, logs.resolve("serve-2.log"), DEADLINE);
      children.add(second);
      Map<String, Object> after = Poll.until("every record consumed after the restart", DEADLINE,
          () -> Http.object(second.operator("/admin/ingest")),
          m -> longOf(m, "recordsConsumed") >= recs.size()
              && longOf(m, "ratingsStored") >= expected.stored());
      System.out.println("completion crash: after restart " + after);
      assertEquals(recs.size(), longOf(after, "recordsConsumed"), "records read once: " + after);
      assertEquals(expected.stored(), longOf(after, "ratingsStored"), "" + after);
      assertEquals(expected.rows.size(), longOf(after, "users"), "" + after);
      assertEquals(expected.applied, longOf(after, "ratingsApplied"), "" + after);
      assertEquals(expected.dropped, longOf(after, "ratingsDropped"), "" + after);
      assertEquals(String.format("%016x", expected.checksum), after.get("checksum"),
          "checksum of the applied ratings: " + after);
    } catch (Throwable t) {
      for (ChildService c : children) {
        System.out.println("---- output of " + c.log + " ----\n" + c.output());
      }
      throw t;
    } finally {
      for (ChildService c : children) {
        c.kill();
      }
      RunningService.deleteTree(state);
      RunningService.deleteTree(logs);
    }
  }

  private static Long runOf(Map<String, Object> status) {
    Object run = objectOf(status, "completion").get("modelRun");
    return run == null ? null : Math.round((Double) run);
  }

  private String token(int user) throws Exception {
    Http.Answer a = Http.send("POST", running.operator("/admin/users/" + user + "/token"), null);
    assertEquals(200, a.status(), "" + a);
    @SuppressWarnings("unchecked")
    Map<String, Object> m = (Map<String, Object>) a.json();
    return (String) m.get("token");
  }

  /**
   * A user's predictions rebuilt here from the public model's JSON and her own ratings only:
   * clamp(g + b_j + c_i + Y_ij), her bias c_i and the residual's local component Y from her row.
   */
  static double[] localComponent(Map<String, Object> model, TreeMap<Integer, Double> own) {
    Map<String, Object> residual = objectOf(model, "residual");
    CompletionModel fw = null;
    if (Boolean.TRUE.equals(residual.get("used"))) {
      double[][] factors = Http.matrix(residual.get("itemFactors"));
      double[] steps = Http.vector(residual.get("stepScales"));
      fw = CompletionModel.of(factors[0].length, (int) longOf(residual, "maxRatings"),
          (Double) residual.get("rowNorm"), (Double) residual.get("nuclearNorm"), factors, steps,
          new CompletionDiagnostics("private-frank-wolfe", EigenSolver.FULL, factors.length, 0,
              (Double) residual.get("nuclearNorm"), Http.vector(residual.get("lambdaHat")),
              Optional.empty()));
    }
    BiasedModel m = BiasedModel.of((Double) model.get("ratingMin"),
        (Double) model.get("ratingMax"), (int) longOf(model, "maxRatings"),
        (Double) model.get("userShrinkage"), (Double) model.get("offset"),
        Http.vector(model.get("itemBiases")), fw, (String) residual.get("status"),
        Optional.empty());
    int[] items = own.keySet().stream().mapToInt(Integer::intValue).toArray();
    double[] values = own.values().stream().mapToDouble(Double::doubleValue).toArray();
    return m.completeRow(items, values);
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
