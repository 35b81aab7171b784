package io.dplrf.bench;

import io.dplrf.deploy.kafka.EmbeddedKafka;
import io.dplrf.deploy.serve.tree.TreeTarget;
import io.dplrf.ingest.ContributionBounds;
import io.dplrf.ingest.EpochListener;
import io.dplrf.ingest.IngestClients;
import io.dplrf.ingest.IngestConfig;
import io.dplrf.ingest.IngestLoop;
import io.dplrf.ingest.MalformedRecordException;
import io.dplrf.ingest.RecordDecoder;
import io.dplrf.ingest.StateStore;
import io.dplrf.ingest.UpdateRecords;
import io.dplrf.ingest.produce.UpdateProducer;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.tree.TreeConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Ingest benchmark ({@code dplrf bench ingest}): updates/s from a Kafka topic into the sketch
 * tree, beside a bare consumer reading the same topic from the same (embedded, KRaft) broker in
 * the same run, so that a slower or faster host moves both figures alike.
 *
 * <p><b>What is measured.</b> The dplrf side is the service's own path: {@link IngestLoop} →
 * {@link ContributionBounds} → {@link TreeTarget} → {@code ContinualSketch}, with the service's
 * default mechanism, a fresh {@link StateStore} and node store per run. The stream of N updates
 * is cut into two epochs of N/2:
 * <ul>
 *   <li><b>the ingest rate</b>: epoch 1, from the loop's start until its N/2 updates are decoded,
 *       bounded and applied to the accumulator (the buffered ones flushed): no epoch close and no
 *       release inside this window. The target is ≥ 0.8 × the bare consumer's rate, as the
 *       median of the rounds;
 *   <li><b>what an epoch close costs</b>: epoch 1's close (the nodes made and written durably, then
 *       the snapshot) runs on the closer thread while ingest goes on with epoch 2; printed are its
 *       duration and the ingest rate while it runs, against the rate of the first window;
 *   <li><b>what a release costs</b>: epoch 1's release (noise, sum, factorization) runs on a
 *       second thread after the close, as in the service; printed are its latency and the ingest
 *       rate while it runs (up to the end of epoch 2).
 * </ul>
 * Runs are alternated (bare, dplrf, bare, dplrf, ...) so that the host's changing load does not
 * favour one side, after uncounted warm-up rounds of the same runs (the JIT's, see {@link #run}).
 *
 * <p>The bare consumer uses the ingest loop's client settings ({@link IngestClients}), so the
 * ratio measures what dplrf adds to reading the topic. Those settings include throughput defaults
 * ({@link IngestClients#CONSUMER_DEFAULTS}); so that they cannot flatter the ratio by slowing the
 * baseline, each round also runs a bare consumer with Kafka's own defaults (the classic consumer,
 * 500 records per poll), and its rate and ratio are printed beside.
 *
 * <p>Uses a fixed test key ({@code --seed}): nothing it computes is labelled private.
 */
public final class IngestBench {
  private static final String TOPIC = "bench-updates";
  /** Name of the thread the benchmark computes releases on ({@link ThreadCpu}). */
  static final String RELEASE_THREAD = "dplrf-bench-release";
  /** The ratio the issue asks of the first window. */
  static final double TARGET = 0.8;

  /** One bare-consumer run; {@code cpu}: the process's CPU and the host's idle time in it. */
  public record BareRun(long updates, double seconds, double checksum, HostCpu.Usage cpu) {
    double rate() {
      return updates / seconds;
    }
  }

  /**
   * One dplrf run.
   *
   * @param startupSeconds TreeTarget creation (tree, matrices, first nodes) and loop creation
   * @param windowSeconds epoch 1: from the loop's start until its updates are applied (no close)
   * @param cpuSeconds CPU seconds per group of threads in that window ({@link ThreadCpu})
   * @param cpu the process's CPU and the host's idle time in that window ({@link HostCpu})
   * @param closeSeconds epoch 1's close: its start on the ingest thread, its nodes on the closer
   *     thread, then the snapshot, until the listener hears of it
   * @param duringClose updates/s applied while epoch 1's close ran
   * @param releaseSeconds epoch 1's release (noisy sum and factorization) on the release thread
   * @param duringRelease updates/s applied while it ran, up to the end of epoch 2 (NaN if epoch 2
   *     ended before the release began)
   */
  public record DplrfRun(long updates, double startupSeconds, double windowSeconds,
      Map<String, Double> cpuSeconds, HostCpu.Usage cpu, double closeSeconds, double duringClose,
      double releaseSeconds, double duringRelease, long sketchBytes, long heapBytes) {
    /** Updates/s of the first window (epoch 1). */
    double rate() {
      return updates / 2 / windowSeconds;
    }
  }

  private final int m;
  private final int n;
  private final int k;
  private final long updates;
  private final Mechanism mechanism;
  private final int batch;
  private final long seed;
  private final SketchSizes sizes;

  /**
   * {@code updates} is rounded up to a multiple of 2·batch, so that both epochs close on a record
   * boundary.
   */
  public IngestBench(int m, int n, int k, long updates, String mechanism, int batch, long seed) {
    if (updates <= 0 || batch <= 0) {
      throw new IllegalArgumentException("updates and batch must be > 0. Provided values: "
          + updates + ", " + batch);
    }
    this.m = m;
    this.n = n;
    this.k = k;
    long unit = 2L * batch;
    this.updates = (updates + unit - 1) / unit * unit;
    this.mechanism = Mechanism.parse("mechanism", mechanism, Mechanism.of(Mechanism.Use.LOW_RANK_STREAM));
    this.batch = batch;
    this.seed = seed;
    this.sizes = SketchSizes.of(m, n, k, null, null, SketchSizes.DEFAULT_ALPHA);
  }

  /**
   * After {@code warmUpRounds} uncounted rounds, alternates {@code rounds} bare and dplrf runs and
   * prints their table, with the median ratio: on a shared host the bare consumer alone varies by
   * 2× from round to round, so compare builds by the median of several rounds run back to back.
   *
   * <p>Why whole warm-up rounds: the runs share one JVM with the broker, and the JIT goes on
   * compiling, and recompiling after deoptimisations, the broker's and the consumer's hot methods
   * for about two rounds (plausibly because each kind of run takes paths the others do not).
   * Counted rounds should measure the steady state a long-running service is in, not the JIT's
   * warm-up.
   */
  public void run(int warmUpRounds, int rounds, PrintStream out) throws Exception {
    if (warmUpRounds < 0 || rounds < 1) {
      throw new IllegalArgumentException("warm-up rounds must be >= 0 and rounds >= 1. Provided"
          + " values: " + warmUpRounds + ", " + rounds);
    }
    Path dir = Files.createTempDirectory("dplrf-ingest-bench");
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), "127.0.0.1", 0)) {
      kafka.createTopic(TOPIC, 1);
      Map<String, Object> props = Map.of("bootstrap.servers", kafka.bootstrapServers());
      out.printf("%n== ingest: %d x %d, k = %d, %s (t = %d, v = %d), %d updates in records of %d"
          + " in 2 epochs, broker %s%n", m, n, k, mechanism.cliName(), sizes.t(), sizes.v(),
          updates, batch, kafka.bootstrapServers());
      double produceSeconds = produce(props);
      out.printf("produce: %d updates (%d records) in %.2f s = %,.0f updates/s%n", updates,
          updates / batch, produceSeconds, updates / produceSeconds);

      Map<String, Object> kafkaDefaults = new HashMap<>(props);
      kafkaDefaults.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, GroupProtocol.CLASSIC.name);
      kafkaDefaults.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
          ConsumerConfig.DEFAULT_MAX_POLL_RECORDS);
      gc();
      for (int w = 1; w <= warmUpRounds; w++) {
        Round r = round(props, kafkaDefaults, dir.resolve("state-warm-up-" + w));
        out.printf("warm-up round %d (not counted): bare consumer %,.0f, Kafka's defaults %,.0f,"
            + " dplrf %,.0f updates/s%n", w, r.bare().rate(), r.kafkaDefaults().rate(),
            r.dplrf().rate());
      }
      List<BareRun> bare = new ArrayList<>();
      List<BareRun> bareKafkaDefaults = new ArrayList<>();
      List<DplrfRun> dplrf = new ArrayList<>();
      for (int r = 1; r <= rounds; r++) {
        Round x = round(props, kafkaDefaults, dir.resolve("state-" + r));
        bare.add(x.bare());
        bareKafkaDefaults.add(x.kafkaDefaults());
        dplrf.add(x.dplrf());
        out.printf("round %d bare consumer: %,.0f updates/s (%.2f s)%n", r, x.bare().rate(),
            x.bare().seconds());
        out.printf("round %d bare consumer, Kafka's defaults: %,.0f updates/s (%.2f s)%n", r,
            x.kafkaDefaults().rate(), x.kafkaDefaults().seconds());
        out.printf("round %d dplrf ingest: %,.0f updates/s (epoch 1, %.2f s; startup %.2f s)%n",
            r, x.dplrf().rate(), x.dplrf().windowSeconds(), x.dplrf().startupSeconds());
      }
      print(bare, bareKafkaDefaults, dplrf, out);
    } finally {
      deleteTree(dir);
    }
  }

  private record Round(BareRun bare, BareRun kafkaDefaults, DplrfRun dplrf) {}

  /** A bare consumer, one with Kafka's defaults, then dplrf, with a collection before each. */
  private Round round(Map<String, Object> props, Map<String, Object> kafkaDefaults, Path state)
      throws Exception {
    BareRun b = bare(props);
    gc();
    BareRun k = bare(kafkaDefaults);
    gc();
    DplrfRun d = dplrf(props, state);
    deleteTree(state); // its leaf alone is ≈ 400 MB at the default sizes
    gc();
    return new Round(b, k, d);
  }

  private double produce(Map<String, Object> props) throws IOException {
    SplittableRandom rnd = new SplittableRandom(seed);
    long t0 = System.nanoTime();
    try (UpdateProducer p = UpdateProducer.create(props, TOPIC, batch, null,
        Double.POSITIVE_INFINITY, null)) {
      p.send(sink -> {
        for (long u = 0; u < updates; u++) {
          sink.accept(rnd.nextInt(m), rnd.nextInt(n), rnd.nextDouble(-1, 1));
        }
      });
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  /** A plain consumer with the ingest loop's settings, decoding every update into a sum. */
  private BareRun bare(Map<String, Object> props) throws MalformedRecordException {
    TopicPartition tp = new TopicPartition(TOPIC, 0);
    double[] sum = new double[1];
    long[] count = new long[1];
    HostCpu.Sample cpu0 = HostCpu.sample();
    long t0 = System.nanoTime();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(IngestClients.consumerConfig(props))) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long end = c.endOffsets(List.of(tp)).get(tp);
      while (c.position(tp) < end) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          UpdateRecords.forEach(r.value(), (i, j, d) -> {
            sum[0] += i + j + d;
            count[0]++;
          });
        }
      }
    }
    double s = (System.nanoTime() - t0) / 1e9;
    HostCpu.Usage cpu = HostCpu.since(cpu0);
    if (count[0] != updates) {
      throw new IllegalStateException("bare consumer read " + count[0] + " updates, expected " + updates);
    }
    return new BareRun(count[0], s, sum[0], cpu);
  }

  private DplrfRun dplrf(Map<String, Object> props, Path state) throws Exception {
    SecretKey key = SecretKey.forTesting(seed);
    TreeConfig config = new TreeConfig(mechanism, sizes, new PrivacyParams(1, 1e-6), 1, 2, true);
    long t0 = System.nanoTime();
    StateStore store = new StateStore(state);
    TreeTarget tree = TreeTarget.tree(config, key, state.resolve("nodes"), false);
    Map<Long, Long> cpuAtStart = new HashMap<>();
    HostCpu.Sample[] hostAtStart = new HostCpu.Sample[1];
    TimedTarget timed = new TimedTarget(tree, updates, () -> {
      // Epoch 1's updates are applied: the first window ends, before its close begins.
      return new TimedTarget.Window(ThreadCpu.since(cpuAtStart), HostCpu.since(hostAtStart[0]));
    });
    ContributionBounds.Config bounds = new ContributionBounds.Config(m, n, 1,
        ContributionBounds.Unit.UPDATE, ContributionBounds.BudgetPolicy.CLIP);
    // As in the service (Service.releaseLater): each epoch's release is computed on a second
    // thread while ingest goes on.
    ExecutorService releaser = Executors.newSingleThreadExecutor(r -> new Thread(r, RELEASE_THREAD));
    long[] closedAt = new long[3];
    long[] release = new long[2]; // epoch 1's release: start, end
    List<Future<?>> releases = new ArrayList<>();
    try (IngestLoop loop = IngestLoop.create(IngestConfig.byUpdates(TOPIC, bounds, updates / 2),
        props, store, timed, b -> RecordDecoder.updates(b, timed::update), new EpochListener() {
          @Override
          public void epochClosed(int epoch) {
            closedAt[epoch] = System.nanoTime();
            releases.add(releaser.submit(() -> {
              long r0 = System.nanoTime();
              if (tree.prefix(epoch, k).factorization() == null) {
                throw new IllegalStateException("no factorization at epoch " + epoch);
              }
              if (epoch == 1) {
                release[0] = r0;
                release[1] = System.nanoTime();
              }
            }));
          }

          @Override
          public void restored(int epochsClosed, java.time.Instant lastClosed) {}
        })) {
      cpuAtStart.putAll(ThreadCpu.sample());
      hostAtStart[0] = HostCpu.sample();
      long t1 = System.nanoTime();
      timed.start(t1);
      loop.run();
      if (loop.state() != IngestLoop.State.EXHAUSTED || tree.epochsClosed() != 2) {
        throw new IllegalStateException("ingest ended in state " + loop.state() + " after "
            + tree.epochsClosed() + " epochs", loop.failure());
      }
      long applied = loop.stats().updatesApplied();
      if (applied != updates) {
        throw new IllegalStateException("applied " + applied + " updates, expected " + updates);
      }
      for (Future<?> f : releases) {
        f.get();
      }
      long closeEnd = closedAt[1];
      long epoch2End = timed.epochEnd(2);
      double duringRelease = release[0] < epoch2End
          ? timed.rate(release[0], Math.min(release[1], epoch2End)) : Double.NaN;
      return new DplrfRun(updates, (t1 - t0) / 1e9, (timed.epochEnd(1) - t1) / 1e9,
          timed.window().cpuSeconds(), timed.window().host(),
          (closeEnd - timed.epochEnd(1)) / 1e9, timed.rate(timed.epochEnd(1), closeEnd),
          (release[1] - release[0]) / 1e9, duringRelease, tree.sizeInBytes(), heapUsed());
    } finally {
      releaser.shutdownNow();
    }
  }

  private void print(List<BareRun> bare, List<BareRun> bareKafkaDefaults, List<DplrfRun> dplrf,
      PrintStream out) {
    long dense = 8L * m * n;
    out.printf("%n%-38s", "");
    for (int r = 1; r <= bare.size(); r++) {
      out.printf(" %16s", "round " + r);
    }
    out.println();
    row(out, "bare consumer (updates/s)", bare.stream().map(b -> fmt(b.rate())).toList());
    row(out, "  with Kafka's defaults", bareKafkaDefaults.stream().map(b -> fmt(b.rate()))
        .toList());
    row(out, "dplrf, no close in window (updates/s)", dplrf.stream().map(d -> fmt(d.rate()))
        .toList());
    ratios(out, "ratio (target >= " + TARGET + ")", "median ratio of %d rounds", bare, dplrf);
    ratios(out, "  ratio, Kafka's defaults", "  median of %d, Kafka's defaults",
        bareKafkaDefaults, dplrf);
    row(out, "startup (s)", dplrf.stream().map(d -> String.format("%.2f", d.startupSeconds()))
        .toList());
    row(out, "epoch close: nodes + snapshot (s)", dplrf.stream().map(d -> String.format("%.2f",
        d.closeSeconds())).toList());
    row(out, "  ingest while it runs (updates/s)", dplrf.stream().map(d -> fmt(d.duringClose()))
        .toList());
    row(out, "  that, over the rate without it", dplrf.stream().map(d -> String.format("%.2f",
        d.duringClose() / d.rate())).toList());
    row(out, "release latency (s)", dplrf.stream().map(d -> String.format("%.2f",
        d.releaseSeconds())).toList());
    row(out, "  ingest while it runs (updates/s)", dplrf.stream().map(d -> Double.isNaN(
        d.duringRelease()) ? "-" : fmt(d.duringRelease())).toList());
    row(out, "  that, over the rate without it", dplrf.stream().map(d -> Double.isNaN(
        d.duringRelease()) ? "-" : String.format("%.2f", d.duringRelease() / d.rate())).toList());
    java.util.SortedSet<String> groups = new java.util.TreeSet<>();
    dplrf.forEach(d -> groups.addAll(d.cpuSeconds().keySet()));
    out.println("in dplrf's window (epoch 1):");
    for (String g : groups) {
      row(out, "  CPU s, " + g, dplrf.stream().map(d -> String.format("%.1f",
          d.cpuSeconds().getOrDefault(g, 0.0))).toList());
    }
    // The process's CPU beyond the Java threads counted above: the GC and the JIT (not Java
    // threads), and any Java thread that ended inside the window (ThreadCpu misses those).
    row(out, "  CPU s, JVM: GC, JIT (not threads)", dplrf.stream().map(d -> String.format("%.1f",
        d.cpu().process() - d.cpuSeconds().values().stream().mapToDouble(x -> x).sum()))
        .toList());
    row(out, "  cores x window (s)", dplrf.stream().map(d -> String.format("%.1f",
        Runtime.getRuntime().availableProcessors() * d.windowSeconds())).toList());
    row(out, "  host idle|iowait|steal (core s)", dplrf.stream().map(d -> idle(d.cpu()))
        .toList());
    row(out, "bare consumer: process CPU s", bare.stream().map(b -> String.format("%.1f",
        b.cpu().process())).toList());
    row(out, "  cores x its window (s)", bare.stream().map(b -> String.format("%.1f",
        Runtime.getRuntime().availableProcessors() * b.seconds())).toList());
    row(out, "  host idle|iowait|steal (core s)", bare.stream().map(b -> idle(b.cpu())).toList());
    row(out, "sketch memory (MiB)", dplrf.stream().map(d -> mib(d.sketchBytes())).toList());
    row(out, "  vs dense m x n (" + mib(dense) + " MiB)",
        dplrf.stream().map(d -> String.format("%.4f", d.sketchBytes() / (double) dense)).toList());
    row(out, "JVM heap used after GC (MiB)", dplrf.stream().map(d -> mib(d.heapBytes())).toList());
  }

  /** dplrf's ratio to one bare series per round, and their median for several rounds. */
  private static void ratios(PrintStream out, String label, String medianLabel,
      List<BareRun> bare, List<DplrfRun> dplrf) {
    double[] ratios = new double[bare.size()];
    for (int r = 0; r < bare.size(); r++) {
      ratios[r] = dplrf.get(r).rate() / bare.get(r).rate();
    }
    row(out, label, Arrays.stream(ratios).mapToObj(x -> String.format("%.3f", x)).toList());
    if (ratios.length > 1) {
      double[] sorted = ratios.clone();
      Arrays.sort(sorted);
      int h = sorted.length / 2;
      double median = sorted.length % 2 == 1 ? sorted[h] : (sorted[h - 1] + sorted[h]) / 2;
      row(out, String.format(medianLabel, sorted.length), List.of(String.format("%.3f", median)));
    }
  }

  private static void row(PrintStream out, String label, List<String> cells) {
    out.printf("%-38s", label);
    for (String c : cells) {
      out.printf(" %16s", c);
    }
    out.println();
  }

  private static String idle(HostCpu.Usage u) {
    return String.format("%.1f|%.1f|%.1f", u.hostIdle(), u.hostIowait(), u.hostSteal());
  }

  private static String fmt(double rate) {
    return String.format("%,.0f", rate);
  }

  private static String mib(long bytes) {
    return String.format("%,.1f", bytes / (1024.0 * 1024));
  }

  private static long heapUsed() {
    gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static void gc() {
    System.gc();
    System.gc();
  }

  /** Deletes {@code dir} and everything under it, if it exists (benchmark scratch space). */
  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
