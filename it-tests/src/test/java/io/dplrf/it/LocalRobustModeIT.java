package io.dplrf.it;

import static io.dplrf.it.Http.doubleOf;
import static io.dplrf.it.Http.longOf;
import static io.dplrf.it.Http.objectOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.client.LocalAggregate;
import io.dplrf.client.LocalRandomizer;
import io.dplrf.client.LocalReport;
import io.dplrf.client.LocalReportCodec;
import io.dplrf.client.LocalReportCodec.MalformedReportException;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.deploy.cli.Cli;
import io.dplrf.it.Stream.Rec;
import io.dplrf.release.Pca;
import io.dplrf.release.RobustRelease;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Local mode with {@code local-mechanism = local-robust} (LOCAL-ROBUST-PCA, paper 001 Appendix C
 * Algorithm 3; docs/local-service.md) end to end against the suite's real broker: the client
 * rebuilds the published protocol, {@code dplrf produce --local --mechanism local-robust} sends
 * one report per row of a CSV (row r in slot first-slot + r); a malformed record, a second report
 * for a counted slot and a slot outside [0, m) are dead-lettered with their reasons; the release
 * is ROBUST-PCA's basis of exactly the accepted reports; a restart restores sums and slots.
 */
@ExtendWith(KafkaSuite.class)
class LocalRobustModeIT {
  private static final Duration DEADLINE = Duration.ofSeconds(120);
  static final int M = 400;
  static final int D = 8;
  static final int K = 2;
  static final int PER_EPOCH = 200;

  private RunningService running;

  @AfterEach
  void stop() throws Exception {
    if (running != null) {
      running.close();
    }
  }

  /**
   * Rows x = c₁w₁ + c₂w₂ + e (orthonormal w, c ~ N(0, 0.8²), N(0, 0.5²), e ~ N(0, 0.02²)),
   * clipped by each client to ‖x‖₁ ≤ 1; m = 400 slots, d = 8, k = 2 (t = 8, v = 16), p = 1,
   * ε = 20 per report, T = 2 epochs of 200 records.
   *
   * <p><b>What is asserted.</b> The release is a deterministic function of the accepted reports
   * (exact sums, docs/local-service.md), so the test recomputes it offline from the records it
   * reads back from the topic (first report of each slot, malformed ones skipped) with the client
   * aggregate and {@code RobustRelease.basis}: the served basis must span the same subspace up to
   * the rounding of the aggregate's double sums (‖VVᵀ − WWᵀ‖_F ≤ 1e-6; a wrong, missing or extra
   * report moves it by orders of magnitude more). Closeness to the rows' true subspace is printed,
   * not asserted: ROBUST-PCA's guarantee (paper 000, Theorem 5) is in the entrywise ℓ_p norm with
   * unstated constants, which gives no tolerance for this small m.
   */
  @Test
  void localRobust_publishesProtocol_countsEachSlotOnce_releasesTheBasisOfTheAcceptedReports_andSurvivesRestart(
      KafkaEnvironment kafka) throws Exception {
    String topic = "it-local-robust-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    Path state = Files.createTempDirectory("dplrf-it-local-robust");
    Map<String, String> settings = RunningService.settings("mode", "local", "local-mechanism",
        "local-robust", "rows", "" + M, "cols", "" + D, "rank", "" + K, "epsilon", "20",
        "epochs", "2", "epoch-updates", "" + PER_EPOCH, "clip", "1");
    running = RunningService.start(kafka, topic, state, settings);

    // The client's side: fetch the public protocol and rebuild it from its parameters.
    Map<String, Object> pj = Http.object(running.api("/v1/local/protocol"));
    assertEquals("local-robust", pj.get("mechanism"), "" + pj);
    assertEquals(0.0, doubleOf(pj, "delta"));
    LocalRobustProtocol protocol = LocalRobustProtocol.of(
        PublicSeed.parse((String) pj.get("seed")), (int) longOf(pj, "m"), (int) longOf(pj, "d"),
        (int) longOf(pj, "k"), (int) longOf(pj, "t"), (int) longOf(pj, "v"), doubleOf(pj, "p"),
        doubleOf(pj, "clip"), doubleOf(pj, "stableClip"),
        new PrivacyParams(doubleOf(pj, "epsilon"), 1e-6)); // δ is not part of the protocol
    assertEquals(pj.get("protocolId"), protocol.id(), "the client derives the server's protocol");
    assertEquals(topic, pj.get("topic"));

    SplittableRandom rnd = new SplittableRandom(20261121L);
    double[][] w = LocalModeIT.orthonormal(rnd, K, D);
    double[][] rows = new double[M][];
    for (int i = 0; i < M; i++) {
      rows[i] = row(rnd, w);
    }

    // Epoch 1: produce --local sends slots 0..196; then three records that must not count.
    int firstBatch = PER_EPOCH - 3;
    produce(kafka, topic, protocol, rows, 0, firstBatch);
    byte[] junk = "not a report".getBytes(StandardCharsets.US_ASCII);
    byte[] duplicate = LocalReportCodec.encode(
        LocalRandomizer.create(protocol).report(10, rows[10]));
    byte[] outside = LocalReportCodec.encode(
        LocalRandomizer.create(protocol).report(M - 1, rows[M - 1]));
    ByteBuffer.wrap(outside).putInt(28, M); // the slot field of DPLR version 2
    Stream.sendAll(kafka.bootstrapServers(), topic,
        List.of(new Rec(null, junk), new Rec(null, duplicate), new Rec(null, outside)));
    Map<String, Object> release1 = Poll.until("release of epoch 1", DEADLINE,
        () -> Http.object(running.api("/v1/release/latest")), r -> longOf(r, "epoch") == 1);

    Map<String, Object> ingest = running.ingest();
    assertEquals("local", ingest.get("mode"), "" + ingest);
    assertEquals("local-robust", ingest.get("mechanism"), "" + ingest);
    assertEquals(firstBatch, longOf(ingest, "reportsApplied"), "" + ingest);
    assertEquals(PER_EPOCH, longOf(ingest, "recordsConsumed"), "" + ingest);
    Map<String, Object> dead = objectOf(ingest, "recordsDeadLettered");
    assertEquals(1, longOf(dead, "bad_length"), "" + ingest);
    assertEquals(1, longOf(dead, "duplicate_slot"), "" + ingest);
    assertEquals(1, longOf(dead, "index_out_of_range"), "" + ingest);
    List<ConsumerRecord<byte[], byte[]>> letters =
        TestData.readAll(kafka, topic + ".dead-letter", 3);
    assertEquals(List.of("BAD_LENGTH", "DUPLICATE_SLOT", "INDEX_OUT_OF_RANGE"),
        letters.stream().map(l -> header(l, "dplrf-reason-code")).toList());
    assertEquals(List.of("197", "198", "199"),
        letters.stream().map(l -> header(l, "dplrf-offset")).toList());
    Poll.until("report metrics", DEADLINE, running::metrics, t ->
        RunningService.sample(t, "dplrf_reports_applied_total", null, null) == firstBatch
        && RunningService.sample(t, "dplrf_records_dead_lettered_total", "reason",
            "duplicate_slot") == 1);
    Map<String, Object> status = Http.object(running.api("/v1/status"));
    assertEquals("local-robust", status.get("mechanism"), "" + status);
    assertEquals("report", status.get("privacyUnit"), "" + status);
    assertEquals(0.0, doubleOf(status, "delta"), "" + status);
    assertTrue(((String) status.get("neighbouring")).startsWith("one row, local:"), "" + status);
    // rows and cols are the release's (U = V is d × k), as /v1/rows/{i} indexes them; the m
    // user slots are the protocol's (/v1/local/protocol).
    assertEquals(D, longOf(status, "rows"), "" + status);
    assertEquals(D, longOf(status, "cols"), "" + status);
    assertEquals(Http.matrix(release1.get("U")).length, longOf(status, "rows"), "" + status);
    String page = Http.get(running.api("/")).body();
    assertTrue(page.contains("per report (local DP)"), page);
    assertFalse(page.contains("id=\"floor\""), "no noise floor: m is not released\n" + page);

    double[][] v1 = Http.matrix(release1.get("U"));
    assertEquals(D, v1.length);
    assertEquals(K, v1[0].length);
    TestData.assertOrthonormalColumns("U", v1, 1e-9);
    assertEquals(0.0, doubleOf(objectOf(release1, "metadata"), "delta"), "" + release1.keySet());
    assertSameSubspace(v1, offlineBasis(kafka, topic, protocol, PER_EPOCH), "epoch 1");

    // Restart on the same state directory: same protocol, counts, checksum, release.
    Map<String, Object> before = running.exactCounts();
    running.service.close();
    running = RunningService.start(kafka, topic, state, settings);
    assertEquals(pj, Http.object(running.api("/v1/local/protocol")), "the same public protocol");
    Map<String, Object> restored = Poll.until("release restored", DEADLINE,
        () -> Http.object(running.api("/v1/release/latest")), r -> longOf(r, "epoch") == 1);
    assertEquals(release1.get("U"), restored.get("U"), "the exact sums are restored bit for bit");
    assertEquals(release1.get("S"), restored.get("S"));
    Map<String, Object> after = running.exactCounts();
    assertEquals(before, after, "exact counts and checksum survive the restart");

    // Epoch 2 on the restarted service: slots 197..395, and slot 5 again (counted before the
    // restart: the slot bits were restored, so it is a duplicate).
    produce(kafka, topic, protocol, rows, firstBatch, PER_EPOCH - 1);
    Stream.sendAll(kafka.bootstrapServers(), topic, List.of(new Rec(null,
        LocalReportCodec.encode(LocalRandomizer.create(protocol).report(5, rows[5])))));
    Map<String, Object> release2 = Poll.until("release of epoch 2", DEADLINE,
        () -> Http.object(running.api("/v1/release/latest")), r -> longOf(r, "epoch") == 2);
    Map<String, Object> ingest2 = running.ingest();
    assertEquals(firstBatch + PER_EPOCH - 1, longOf(ingest2, "reportsApplied"), "" + ingest2);
    assertEquals(2, longOf(objectOf(ingest2, "recordsDeadLettered"), "duplicate_slot"),
        "" + ingest2);
    double[][] v2 = Http.matrix(release2.get("U"));
    TestData.assertOrthonormalColumns("U", v2, 1e-9);
    assertSameSubspace(v2, offlineBasis(kafka, topic, protocol, 2 * PER_EPOCH), "epoch 2");

    // Printed, not asserted (class comment): distance to the rows' top-k subspace.
    double[][] gram = new double[D][D];
    for (int i = 0; i < firstBatch + PER_EPOCH - 1; i++) {
      double[] x = rows[i].clone();
      io.dplrf.sketch.pca.RowClipping.clipL1InPlace(x, 1);
      for (int a = 0; a < D; a++) {
        for (int b = 0; b < D; b++) {
          gram[a][b] += x[a] * x[b];
        }
      }
    }
    Dense g = new Dense(D, D);
    for (int a = 0; a < D; a++) {
      for (int b = 0; b < D; b++) {
        g.set(a, b, gram[a][b]);
      }
    }
    double[][] truth = toArray(Pca.topEigenvectors(g, K).v());
    System.out.printf(Locale.ROOT, "local-robust accuracy: m = %d reports, eps = 20:"
        + " ||sin Theta(V, V*_k)||_F = %.4f (sqrt(k) = %.4f is orthogonal)%n",
        firstBatch + PER_EPOCH - 1, sinTheta(v2, truth), Math.sqrt(K));
  }

  /**
   * Exactly once across a hard crash: the service runs as a child JVM and is killed with SIGKILL
   * (no final snapshot) mid-stream after its first release, then restarted on the same state
   * directory. 3,000 reports for slots 0..2999 in shuffled order, each 10th slot sent a second
   * time later in the stream (300 duplicates), paced over about 6 s on one partition. Afterwards
   * every record is consumed once, each slot counted once, each duplicate dead-lettered once,
   * and the last release equals the basis of the first report of every slot (offline, as above):
   * a report applied twice or lost across the crash would move it far beyond 1e-6.
   */
  @Test
  void localRobust_killDashNineMidStream_thenRestart_countsEverySlotExactlyOnce(
      KafkaEnvironment kafka) throws Throwable {
    int m = 3000;
    int epoch = 330;
    String topic = "it-local-robust-crash-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    Path state = Files.createTempDirectory("dplrf-it-lr-crash-state");
    Path logs = Files.createTempDirectory("dplrf-it-lr-crash-log");
    Map<String, String> settings = RunningService.settings("mode", "local", "local-mechanism",
        "local-robust", "rows", "" + m, "cols", "" + D, "rank", "" + K, "epsilon", "5",
        "epochs", "10", "epoch-updates", "" + epoch, "clip", "1", "seed", "3c".repeat(32),
        "bootstrap-servers", kafka.bootstrapServers(), "topic", topic,
        "state-dir", state.toString(), "http-port", "0", "operator-port", "0");
    LocalRobustProtocol protocol = LocalRobustProtocol.of(PublicSeed.parse("3c".repeat(32)), m, D,
        K, null, null, 1, 1, io.dplrf.sketch.lra.RobustMatrices.DEFAULT_STABLE_CLIP,
        new PrivacyParams(5, 1e-6));
    SplittableRandom rnd = new SplittableRandom(42);
    double[][] w = LocalModeIT.orthonormal(rnd, K, D);
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < m; i++) {
      order.add(i);
    }
    java.util.Collections.shuffle(order, new java.util.Random(43));
    List<byte[]> records = new ArrayList<>();
    for (int r = 0; r < m; r++) {
      int slot = order.get(r);
      records.add(LocalReportCodec.encode(
          LocalRandomizer.create(protocol).report(slot, row(rnd, w))));
      if (r >= 100 && order.get(r - 100) % 10 == 0) { // slot sent 100 records ago, again
        records.add(LocalReportCodec.encode(
            LocalRandomizer.create(protocol).report(order.get(r - 100), row(rnd, w))));
      }
    }
    for (int r = m - 100; r < m; r++) { // the last 100 slots' repeats at the end
      if (order.get(r) % 10 == 0) {
        records.add(LocalReportCodec.encode(
            LocalRandomizer.create(protocol).report(order.get(r), row(rnd, w))));
      }
    }
    int duplicates = records.size() - m;
    assertEquals(m / 10, duplicates, "test parameters");
    int epochs = records.size() / epoch; // 3300 / 330 = 10 = T
    List<ChildService> children = new ArrayList<>();
    try {
      ChildService first = ChildService.start(settings, logs.resolve("serve-1.log"),
          Duration.ofSeconds(60));
      children.add(first);
      // The second half waits for the kill: mid-stream however long the first release takes.
      java.util.concurrent.CountDownLatch killed = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CompletableFuture<Void> producing =
          java.util.concurrent.CompletableFuture.runAsync(() -> {
            try {
              sendPaced(kafka.bootstrapServers(), topic, records, 550, killed);
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          });
      Poll.until("the first release", DEADLINE, () -> Http.object(first.api(
          "/v1/release/latest")), r -> longOf(r, "epoch") >= 1);
      Map<String, Object> beforeKill = Http.object(first.operator("/admin/ingest"));
      first.kill();
      killed.countDown();
      System.out.println("local-robust crash: killed after " + beforeKill);
      assertTrue(longOf(beforeKill, "recordsConsumed") < records.size(),
          "the kill must come mid-stream: " + beforeKill);
      producing.get(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);

      ChildService second = ChildService.start(settings, logs.resolve("serve-2.log"),
          Duration.ofSeconds(60));
      children.add(second);
      Map<String, Object> after = Poll.until("every record consumed after the restart",
          DEADLINE, () -> Http.object(second.operator("/admin/ingest")),
          a -> longOf(a, "recordsConsumed") >= records.size()
              && longOf(a, "epochsClosed") >= epochs);
      System.out.println("local-robust crash: after restart " + after);
      assertEquals(records.size(), longOf(after, "recordsConsumed"), "read once: " + after);
      assertEquals(m, longOf(after, "reportsApplied"), "each slot once: " + after);
      Map<String, Object> dl = objectOf(after, "recordsDeadLettered");
      assertEquals(duplicates, longOf(dl, "duplicate_slot"), "" + after);
      assertEquals(duplicates, dl.values().stream().mapToLong(x -> ((Number) x).longValue())
          .sum(), "no other dead letters: " + after);
      Map<String, Object> last = Poll.until("the release of epoch " + epochs, DEADLINE,
          () -> Http.object(second.api("/v1/release/latest")), r -> longOf(r, "epoch") == epochs);
      assertSameSubspace(Http.matrix(last.get("U")),
          offlineBasis(kafka, topic, protocol, records.size()), "after the crash");
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

  /**
   * Sends the records in order at about {@code perSecond}, the second half only once {@code
   * killed} is released; waits for every ack.
   */
  private static void sendPaced(String bootstrap, String topic, List<byte[]> records,
      int perSecond, java.util.concurrent.CountDownLatch killed) throws Exception {
    long t0 = System.nanoTime();
    try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> p =
        Stream.producer(bootstrap)) {
      List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
      for (int r = 0; r < records.size(); r++) {
        if (r == records.size() / 2
            && !killed.await(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)) {
          throw new IllegalStateException("no kill within " + DEADLINE.toSeconds() + " s");
        }
        acks.add(p.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, null,
            records.get(r))));
        long wait = t0 + (r + 1) * 1_000_000_000L / perSecond - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // rate limit only
        }
      }
      p.flush();
      for (var a : acks) {
        a.get();
      }
    }
  }

  /** Runs {@code dplrf produce --local --mechanism local-robust} on rows [from, from+count). */
  private static void produce(KafkaEnvironment kafka, String topic, LocalRobustProtocol p,
      double[][] rows, int from, int count) throws Exception {
    Path csv = Files.createTempFile("dplrf-it-rows", ".csv");
    try {
      StringBuilder b = new StringBuilder();
      for (int i = from; i < from + count; i++) {
        for (int j = 0; j < D; j++) {
          b.append(j == 0 ? "" : ",").append(rows[i][j]);
        }
        b.append('\n');
      }
      Files.writeString(csv, b);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code = Cli.run(new String[] {"produce", "--local", "--mechanism", "local-robust",
          "--input", csv.toString(), "--seed", p.seed().toString(), "--rows", "" + p.slots(),
          "--rank", "" + K, "--sketch-cols", "" + p.sizes().t(), "--sketch-rows",
          "" + p.sizes().v(), "--p", "" + p.p(), "--clip", "" + p.clip(), "--epsilon",
          "" + p.privacy().epsilon(), "--first-slot", "" + from, "--protocol-id", p.id(),
          "--topic", topic, "--bootstrap-servers", kafka.bootstrapServers()},
          new PrintStream(out, true, StandardCharsets.UTF_8),
          new PrintStream(err, true, StandardCharsets.UTF_8));
      assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
      assertTrue(out.toString(StandardCharsets.UTF_8).contains("sent " + count + " local-robust"),
          out.toString(StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(csv);
    }
  }

  /**
   * What the server should have summed: the first {@code count} records of the topic, decoded,
   * the first report of each slot kept; their basis by the offline path.
   */
  private static double[][] offlineBasis(KafkaEnvironment kafka, String topic,
      LocalRobustProtocol p, int count) {
    LocalAggregate agg = new LocalAggregate(p);
    Set<Integer> slots = new HashSet<>();
    for (ConsumerRecord<byte[], byte[]> r : TestData.readAll(kafka, topic, count)) {
      LocalReport rep;
      try {
        rep = LocalReportCodec.decode(r.value(), p);
      } catch (MalformedReportException e) {
        continue;
      }
      if (slots.add(rep.slot().getAsInt())) {
        agg.add(rep);
      }
    }
    return toArray(RobustRelease.basis(p.sketches(agg.sum(0), agg.sum(1), agg.reports()), K).v());
  }

  private static void assertSameSubspace(double[][] v, double[][] w, String what) {
    double diff = 0;
    for (int a = 0; a < D; a++) {
      for (int b = 0; b < D; b++) {
        double pv = 0;
        double pw = 0;
        for (int c = 0; c < K; c++) {
          pv += v[a][c] * v[b][c];
          pw += w[a][c] * w[b][c];
        }
        diff += (pv - pw) * (pv - pw);
      }
    }
    assertTrue(Math.sqrt(diff) <= 1e-6, what + ": served basis differs from the basis of the"
        + " accepted reports by ||VV^T - WW^T||_F = " + Math.sqrt(diff));
  }

  private static double sinTheta(double[][] v, double[][] w) {
    double overlap = 0;
    for (int a = 0; a < K; a++) {
      for (int b = 0; b < K; b++) {
        double dot = 0;
        for (int i = 0; i < D; i++) {
          dot += v[i][a] * w[i][b];
        }
        overlap += dot * dot;
      }
    }
    return Math.sqrt(Math.max(0, K - overlap));
  }

  private static double[][] toArray(Dense m) {
    double[][] out = new double[m.rows()][m.cols()];
    for (int i = 0; i < m.rows(); i++) {
      for (int j = 0; j < m.cols(); j++) {
        out[i][j] = m.get(i, j);
      }
    }
    return out;
  }

  private static double[] row(SplittableRandom rnd, double[][] w) {
    double[] sd = {0.8, 0.5};
    double[] x = new double[D];
    for (int l = 0; l < K; l++) {
      double c = sd[l] * TestData.gaussian(rnd);
      for (int j = 0; j < D; j++) {
        x[j] += c * w[l][j];
      }
    }
    for (int j = 0; j < D; j++) {
      x[j] += 0.02 * TestData.gaussian(rnd);
    }
    return x;
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    var h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
