package io.dplrf.deploy.cli;

import io.dplrf.deploy.io.SyntheticMatrix;
import io.dplrf.deploy.config.KafkaClientSettings;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.deploy.serve.Service;
import io.dplrf.ingest.IngestStats;
import io.dplrf.ingest.UpdateVisitor;
import io.dplrf.ingest.produce.UpdateProducer;
import io.dplrf.release.Errors;
import io.dplrf.sketch.matrix.Dense;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * {@code dplrf demo}: the real service (embedded KRaft Kafka, ingest, continual release, releases,
 * HTTP) fed by a synthetic stream of a low-rank matrix. Every entry arrives as several small
 * turnstile updates (|Δ| ≤ 1 = C), some of them wrong and corrected later by a negative update.
 * After each epoch it prints the release's error against the true matrix so far, next to the
 * best rank-k error of that matrix.
 */
final class DemoCommand {
  static final String USAGE = """
      usage: dplrf demo [--rows 600] [--cols 500] [--rank 5] [--epsilon 1] [--delta 1e-6]
                        [--epochs 8] [--mechanism priv2-sparse] [--max-entry 80] [--seed 1]
                        [--keep-state DIR]
      """;

  private static final int BATCH = 64;

  private static final Set<String> OPTIONS = Set.of("rows", "cols", "rank", "epsilon", "delta",
      "epochs", "mechanism", "seed", "keep-state", "max-entry");

  private DemoCommand() {}

  /** One synthetic update. */
  private record Update(int i, int j, double delta) {}

  static int run(String[] argv, PrintStream out) throws Exception {
    Args a = Args.parse("demo", argv, 1, OPTIONS, Set.of());
    int m = a.integer("rows", 600);
    int n = a.integer("cols", 500);
    int k = a.integer("rank", 5);
    int epochs = a.integer("epochs", 8);
    long seed = a.integer("seed", 1);
    double maxEntry = a.number("max-entry", 80);
    List<Update> all = syntheticStream(SyntheticMatrix.lowRank(m, n, k, maxEntry, seed), seed);
    // Epochs close at record boundaries (BATCH updates per record): make every epoch a whole
    // number of records so that the true prefix matrix of epoch e is exactly known.
    long perEpoch = all.size() / epochs / BATCH * BATCH;
    List<Update> stream = all.subList(0, (int) (perEpoch * epochs));
    Path state = a.string("keep-state", null) != null
        ? Path.of(a.string("keep-state", null)) : Files.createTempDirectory("dplrf-demo");

    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("rows", String.valueOf(m));
    flags.put("cols", String.valueOf(n));
    flags.put("rank", String.valueOf(k));
    flags.put("epsilon", a.string("epsilon", "1"));
    flags.put("delta", a.string("delta", "1e-6"));
    String mechanism = a.string("mechanism", null); // unset: serve's default
    if (mechanism != null) {
      flags.put("mechanism", mechanism);
    }
    flags.put("epochs", String.valueOf(epochs));
    flags.put("epoch-updates", String.valueOf(perEpoch));
    flags.put("clip", "1");
    flags.put("state-dir", state.toString());
    flags.put("http-port", "0");
    flags.put("operator-port", "0");
    flags.put("embedded-kafka-port", "0");
    ServiceConfig config = ServiceConfig.load(null, Map.of(), flags);

    out.printf("dplrf demo: a %dx%d rank-%d matrix streamed as %,d turnstile updates (|delta| <= 1,"
        + " some negative corrections) over %d epochs of %,d updates%n", m, n, k, stream.size(),
        epochs, perEpoch);
    try (Service service = Service.start(config, out)) {
      List<Dense> truth = new ArrayList<>();
      Dense sofar = new Dense(m, n);
      try (UpdateProducer p = UpdateProducer.create(KafkaClientSettings.withBootstrap(
          config.kafkaClientSettings(), service.bootstrapServers()), config.topic(), BATCH, null,
          Double.POSITIVE_INFINITY, (u, r) -> { })) {
        p.send(sink -> emit(stream, perEpoch, sofar, truth, sink));
      }
      // The stream is exactly T epochs: ingest ends by itself at epoch T. Waiting for that (and
      // its releases) first puts every log line of the service above the table.
      service.awaitIngest();
      StringBuilder table = new StringBuilder(String.format("%n%6s %12s %16s %10s %14s %14s%n",
          "epoch", "||A_e||_F", "||A_e - A~||_F", "relative", "best rank-k", "reliable rank"));
      for (int e = 1; e <= epochs; e++) {
        ServedRelease r = await(service, e);
        Dense ae = truth.get(e - 1);
        double err = Errors.frobeniusError(ae, r.factorization());
        double best = Errors.bestRankKError(ae, k);
        double norm = SyntheticMatrix.frobeniusNorm(ae);
        table.append(String.format("%6d %12.4g %16.4g %10.3f %14.4g %14d%n", e, norm, err,
            err / norm, best, r.utility().reliableRank()));
      }
      out.print(table); // one write: nothing printed meanwhile can land inside the table
      out.println("\n'best rank-k' is ||A_e - [A_e]_k||_F, the error of the best rank-k"
          + " approximation of the true matrix (its truncated SVD, without privacy): no rank-k"
          + " release can be closer.");
      out.println("The error is the best rank-k error plus privacy noise, whose size depends on"
          + " epsilon, C and the number of epochs T (the continual release), not on the data:"
          + " relative to ||A_e|| it shrinks as the matrix grows. 'reliable rank' counts released"
          + " singular values above the noise floor (utility report, computed from public"
          + " quantities only).");
      out.println(summary(service.stats()));
      out.println("The demo now stops the service; 'dplrf serve' runs one that keeps serving"
          + " (see README).");
    } finally {
      if (a.string("keep-state", null) == null) {
        deleteTree(state);
      }
    }
    return 0;
  }

  /** The exact ingest counts in words (operator information: not private). */
  static String summary(IngestStats s) {
    return String.format("Ingested (exact counts, operator only, not private): %,d records holding"
        + " %,d updates; %,d applied (%,d of them clipped), %,d dropped;"
        + " %,d records dead-lettered.", s.recordsConsumed(), s.updatesConsumed(),
        s.updatesApplied(), s.updatesClipped(), s.updatesDropped(), s.deadLetteredTotal());
  }

  /**
   * Each entry A_ij arrives as ⌈|A_ij|⌉ updates of equal sign summing to A_ij, in random order;
   * one entry in twenty first receives a wrong +1 that a later update corrects with −1 (a
   * turnstile correction). Seeded: synthetic data, not private noise.
   */
  static List<Update> syntheticStream(Dense a, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed ^ 0x5DEECE66DL);
    List<Update> updates = new ArrayList<>();
    List<Double> times = new ArrayList<>();
    for (int i = 0; i < a.rows(); i++) {
      for (int j = 0; j < a.cols(); j++) {
        double x = a.get(i, j);
        int parts = (int) Math.ceil(Math.abs(x));
        for (int p = 0; p < parts; p++) {
          updates.add(new Update(i, j, x / parts));
          times.add(rnd.nextDouble());
        }
        if (rnd.nextInt(20) == 0) {
          double wrongAt = rnd.nextDouble();
          updates.add(new Update(i, j, 1.0));
          times.add(wrongAt);
          updates.add(new Update(i, j, -1.0));
          times.add(wrongAt + (1 - wrongAt) * rnd.nextDouble());
        }
      }
    }
    Integer[] order = new Integer[updates.size()];
    for (int x = 0; x < order.length; x++) {
      order[x] = x;
    }
    java.util.Arrays.sort(order, Comparator.comparingDouble(times::get));
    List<Update> out = new ArrayList<>(order.length);
    for (int x : order) {
      out.add(updates.get(x));
    }
    return out;
  }

  private static void emit(List<Update> stream, long perEpoch, Dense sofar, List<Dense> truth,
      UpdateVisitor sink) {
    long count = 0;
    for (Update u : stream) {
      sink.accept(u.i(), u.j(), u.delta());
      sofar.add(u.i(), u.j(), u.delta());
      if (++count % perEpoch == 0 || count == stream.size()) {
        truth.add(sofar.copy());
      }
    }
  }

  private static ServedRelease await(Service service, int epoch) throws InterruptedException {
    long deadline = System.nanoTime() + 600_000_000_000L;
    while (System.nanoTime() < deadline) {
      Optional<ServedRelease> r = service.releases().latest();
      if (r.isPresent() && r.get().epoch() >= epoch) {
        return r.get().epoch() == epoch ? r.get() : service.releases().ranges().orElseThrow()
            .release(1, epoch);
      }
      if (service.ingestState() == io.dplrf.ingest.IngestLoop.State.FAILED) {
        throw new IllegalStateException("the ingest loop failed; see the log above");
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("no release for epoch " + epoch + " within 10 minutes");
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
