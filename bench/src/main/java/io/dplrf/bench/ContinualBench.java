package io.dplrf.bench;

import io.dplrf.deploy.io.SyntheticMatrix;
import io.dplrf.release.Errors;
import io.dplrf.release.PostProcessing;
import io.dplrf.sketch.continual.BltConfig;
import io.dplrf.sketch.continual.BltStream;
import io.dplrf.sketch.factorization.BltOptimizer;
import io.dplrf.sketch.factorization.ToeplitzFactorization;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.lra.Priv2Sketches;
import io.dplrf.sketch.lra.ReleasedSketches;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.tree.ContinualSketch;
import io.dplrf.sketch.tree.TreeConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * {@code dplrf bench continual}: the prefix releases of {@code continual = factorization} (the BLT
 * stream) beside {@code continual = tree} (the binary tree), on one stream, in one run, for each T.
 *
 * <ul>
 *   <li><b>Noise.</b> Each structure is fed an all-zero stream under the same key and instance as
 *       its data run, so its release after epoch t is exactly the noise the data run's release
 *       carries (the noise is a function of key, instance, epoch and part). The per-entry
 *       variance of Y and Z is measured at every t, beside the variance each release states
 *       ({@link NoiseScale}); the worst over t is compared with the √-factorization's worst prefix
 *       variance at the same ε, δ (the optimum among Toeplitz factorizations up to lower-order
 *       terms, [FHU23]), computed exactly from the factorizations' coefficients.
 *   <li><b>Error.</b> The data run: every entry of a rank-k m×n matrix A gets one update
 *       a_ij / T per epoch (|Δ| ≤ C = 1), so the prefix after epoch t is (t/T)·A. The release is
 *       factorized to rank k as the service does; its error ‖A_t − Â_t‖_F is printed beside the
 *       trivial answer 0 (‖A_t‖_F) at t = 1, 2, 4, …, T.
 * </ul>
 *
 * <p>Uses a fixed test key ({@code --seed}): nothing here is private.
 */
public final class ContinualBench {
  private final int m;
  private final int n;
  private final int k;
  private final int updatesPerEntry;
  private final PrivacyParams privacy;
  private final long seed;

  public ContinualBench(int m, int n, int k, int updatesPerEntry, double epsilon, double delta,
      long seed) {
    this.m = m;
    this.n = n;
    this.k = k;
    this.updatesPerEntry = updatesPerEntry;
    this.privacy = new PrivacyParams(epsilon, delta);
    this.seed = seed;
  }

  /**
   * One structure's figures at one T: the worst measured per-entry variance of Y over the prefix
   * releases, its epoch and the variance the release states there, the largest measured/stated
   * ratio over t, the worst measured variance in units of one one-shot σ² (measured/stated times
   * the stated variance in those units), and the error ‖A_t − Â_t‖_F after every epoch t
   * ({@code errors[t]}, t ≥ 1).
   */
  public record Result(String structure, int epochs, double worstVariance, int worstEpoch,
      double worstStated, double largestMeasuredOverStated, double worstInOneShotUnits,
      double[] errors) {
    double finalError() {
      return errors[epochs];
    }

    double worstError() {
      return java.util.Arrays.stream(errors, 1, epochs + 1).max().orElseThrow();
    }

    double meanError() {
      return java.util.Arrays.stream(errors, 1, epochs + 1).average().orElseThrow();
    }
  }

  /**
   * The epochs printed: every one up to T = 64; beyond, 1, then 2^j − 1 and 2^j up to T (the
   * tree's worst and best prefixes: the prefix [1, t] sums popcount(t) nodes), and T − 1, T (the
   * worst and mean over all epochs are printed too).
   */
  static int[] checkpoints(int epochs) {
    if (epochs <= 64) {
      return java.util.stream.IntStream.rangeClosed(1, epochs).toArray();
    }
    java.util.TreeSet<Integer> t = new java.util.TreeSet<>();
    for (int x = 1; x <= epochs; x *= 2) {
      t.add(x);
      if (x > 2) {
        t.add(x - 1);
      }
    }
    t.add(Math.max(1, epochs - 1));
    t.add(epochs);
    return t.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Where the bench keeps the structures' files: tmpfs where there is one (/dev/shm), so that
   * their crash-safe writes (fsync at every close) do not dominate a run of a thousand epochs.
   */
  private static Path scratch() throws IOException {
    Path shm = Path.of("/dev/shm");
    return Files.isDirectory(shm) && Files.isWritable(shm)
        ? Files.createTempDirectory(shm, "dplrf-continual-bench")
        : Files.createTempDirectory("dplrf-continual-bench");
  }

  /** The runs of every T in {@code epochsList}; prints a table per T. */
  public List<Result> run(int[] epochsList, PrintStream out) throws IOException {
    SketchSizes sizes = SketchSizes.of(m, n, k, null, null, SketchSizes.DEFAULT_ALPHA);
    out.printf(Locale.ROOT, "bench continual: %d x %d rank-%d matrix, priv2-sparse, t = %d,"
        + " v = %d, epsilon = %s, delta = %s, C = 1, %d update(s) per entry per epoch%n", m, n,
        k, sizes.t(), sizes.v(), privacy.epsilon(), privacy.delta(), updatesPerEntry);
    List<Result> all = new ArrayList<>();
    for (int epochs : epochsList) {
      // entries up to u·T, each epoch's u updates of a_ij/(u·T): |Δ| ≤ C = 1
      Dense a = SyntheticMatrix.lowRank(m, n, k, (double) updatesPerEntry * epochs, seed);
      int depth = new TreeConfig(Mechanism.PRIV2_SPARSE, sizes, privacy, 1, epochs, true).depth();
      ToeplitzFactorization f = ToeplitzFactorization.blt(BltOptimizer.optimize(epochs));
      // the stated variance of prefix t in one-shot σ² units: L·popcount(t) nodes of L σ²
      // each; sens²·Σ_{k<t} b_k² for the factorization (prefix_variance.py)
      Result tree = measure("tree", epochs, a, dir -> tree(sizes, epochs, dir),
          t -> (double) depth * Integer.bitCount(t));
      Result blt = measure("factorization", epochs, a, dir -> blt(sizes, epochs, dir),
          t -> f.sensitivitySquared(epochs) * f.prefixVariance(t));
      double sqrtWorst = ToeplitzFactorization.sqrt().maxLoss(epochs);
      double bltWorst = f.maxLoss(epochs);
      out.printf(Locale.ROOT, "%nT = %d%n", epochs);
      out.printf(Locale.ROOT, "  %-14s %14s %6s %14s %14s %16s %14s%n", "continual",
          "worst var(Y)", "at t", "stated there", "max meas/stat", "worst, one-shot",
          "/ sqrt optimum");
      for (Result r : List.of(tree, blt)) {
        out.printf(Locale.ROOT, "  %-14s %14.4g %6d %14.4g %14.3f %16.2f %14.3f%n",
            r.structure(), r.worstVariance(), r.worstEpoch(), r.worstStated(),
            r.largestMeasuredOverStated(), r.worstInOneShotUnits(),
            r.worstInOneShotUnits() / sqrtWorst);
      }
      out.printf(Locale.ROOT, "  worst prefix variance, factorization / tree: %.3f measured"
          + " (standard deviation %.3f)%n", blt.worstVariance() / tree.worstVariance(),
          Math.sqrt(blt.worstVariance() / tree.worstVariance()));
      out.printf(Locale.ROOT, "  worst prefix variance, factorization / sqrt-factorization,"
          + " same epsilon and delta: %.4f (exact, from the coefficients: %.2f / %.2f one-shot"
          + " sigma^2)%n", bltWorst / sqrtWorst, bltWorst, sqrtWorst);
      out.printf(Locale.ROOT, "  %8s %14s %14s %10s %14s%n", "epoch t", "error tree",
          "error factor.", "ratio", "error of 0");
      for (int t : checkpoints(epochs)) {
        out.printf(Locale.ROOT, "  %8d %14.4g %14.4g %10.3f %14.4g%n", t, tree.errors()[t],
            blt.errors()[t], blt.errors()[t] / tree.errors()[t],
            SyntheticMatrix.frobeniusNorm(a) * t / epochs);
      }
      out.printf(Locale.ROOT, "  %8s %14.4g %14.4g %10.3f%n", "worst", tree.worstError(),
          blt.worstError(), blt.worstError() / tree.worstError());
      out.printf(Locale.ROOT, "  %8s %14.4g %14.4g %10.3f%n", "mean", tree.meanError(),
          blt.meanError(), blt.meanError() / tree.meanError());
      all.add(tree);
      all.add(blt);
    }
    return all;
  }

  /** A continual structure as the bench drives it. */
  interface Structure {
    void update(int i, int j, double delta);

    void closeEpoch();

    ReleasedSketches prefix(int t);

    long sizeInBytes();
  }

  private Structure tree(SketchSizes sizes, int epochs, Path dir) {
    try {
      ContinualSketch s = ContinualSketch.create(new TreeConfig(Mechanism.PRIV2_SPARSE, sizes,
          privacy, 1, epochs, true), SecretKey.forTesting(seed), "bench/continual", dir);
      return new Structure() {
        public void update(int i, int j, double delta) {
          s.update(i, j, delta);
        }

        public void closeEpoch() {
          s.closeEpoch();
        }

        public ReleasedSketches prefix(int t) {
          return s.rangeRelease(1, t).get();
        }

        public long sizeInBytes() {
          return s.sizeInBytes();
        }
      };
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Structure blt(SketchSizes sizes, int epochs, Path dir) {
    try {
      BltStream s = BltStream.create(new BltConfig(Mechanism.PRIV2_SPARSE,
          NeighbouringRelation.ONE_ENTRY, sizes, privacy, 1, epochs, true),
          SecretKey.forTesting(seed), "bench/continual", dir);
      return new Structure() {
        public void update(int i, int j, double delta) {
          s.update(i, j, delta);
        }

        public void closeEpoch() {
          s.closeEpoch();
          try { // a release reads only epochs a written snapshot names, as in the service
            s.writeClosedState(java.io.OutputStream.nullOutputStream());
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }

        public ReleasedSketches prefix(int t) {
          return s.releasePrefix(t);
        }

        public long sizeInBytes() {
          return s.sizeInBytes();
        }
      };
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The cost at the service's sizes ({@code --cost}): for each structure, {@code closes} epochs of
   * {@code updatesPerEpoch} random updates each, then the prefix release of the last one,
   * factorized to rank k as the service does. Prints the heap the structure holds, the seconds of
   * each close (encode, noise, decode and the crash-safe writes of its files), the bytes it
   * writes per close and keeps on disk, and the release's seconds. Files go to the temporary
   * directory (a disk, as the service's state directory).
   */
  public void cost(SketchSizes sizes, int epochs, long updatesPerEpoch, int closes,
      PrintStream out) throws IOException {
    out.printf(Locale.ROOT, "bench continual --cost: %d x %d, k = %d, t = %d, v = %d"
        + " (sketches of %.0f MiB), T = %d, %d epochs of %d updates, priv2-sparse%n", sizes.m(),
        sizes.n(), sizes.k(), sizes.t(), sizes.v(),
        io.dplrf.sketch.lra.Priv2Sketch.stateBytes(sizes) / 1048576.0, epochs, closes,
        updatesPerEpoch);
    out.printf(Locale.ROOT, "  %-14s %10s %26s %14s %12s %12s%n", "continual", "heap GiB",
        "close s (each)", "written/close", "on disk", "release s");
    for (String name : List.of("tree", "factorization")) {
      Path dir = Files.createTempDirectory("dplrf-continual-cost");
      try {
        Structure s = name.equals("tree") ? tree(sizes, epochs, dir) : blt(sizes, epochs, dir);
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        StringBuilder closeSeconds = new StringBuilder();
        long written = 0;
        for (int e = 1; e <= closes; e++) {
          for (long u = 0; u < updatesPerEpoch; u++) {
            s.update(rnd.nextInt(sizes.m()), rnd.nextInt(sizes.n()), rnd.nextDouble(-1, 1));
          }
          long before = bytesUnder(dir);
          long t0 = System.nanoTime();
          s.closeEpoch();
          closeSeconds.append(String.format(Locale.ROOT, "%s%.2f", e > 1 ? " " : "",
              (System.nanoTime() - t0) / 1e9));
          written = Math.max(written, bytesUnder(dir) - before);
        }
        long t0 = System.nanoTime();
        PostProcessing.factorize(s.prefix(closes), sizes.k());
        double release = (System.nanoTime() - t0) / 1e9;
        out.printf(Locale.ROOT, "  %-14s %10.2f %26s %11.0f MiB %8.0f MiB %12.2f%n", name,
            s.sizeInBytes() / (double) (1L << 30), closeSeconds, written / 1048576.0,
            bytesUnder(dir) / 1048576.0, release);
      } finally {
        delete(dir);
      }
    }
  }

  private static long bytesUnder(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      long b = 0;
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        b += Files.size(p);
      }
      return b;
    }
  }

  private static void delete(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The zero run (noise) and the data run (error) of one structure, each in its own directory. */
  private Result measure(String name, int epochs, Dense a, Function<Path, Structure> make,
      java.util.function.IntToDoubleFunction oneShotUnits) throws IOException {
    Path root = scratch();
    try {
      Structure zero = make.apply(root.resolve("zero"));
      double worst = -1;
      int worstAt = 0;
      double worstStated = 0;
      double largestRatio = 0;
      for (int t = 1; t <= epochs; t++) {
        zero.closeEpoch();
        Priv2Sketches noise = (Priv2Sketches) zero.prefix(t);
        double var = meanSquare(noise.y().data());
        double stated = square(noise.noise().get(0).sigma());
        largestRatio = Math.max(largestRatio, var / stated);
        if (var > worst) {
          worst = var;
          worstAt = t;
          worstStated = stated;
        }
      }
      Structure data = make.apply(root.resolve("data"));
      double[] errors = new double[epochs + 1]; // [t]: after epoch t
      for (int t = 1; t <= epochs; t++) {
        for (int i = 0; i < m; i++) {
          for (int j = 0; j < n; j++) {
            double d = a.get(i, j) / ((double) updatesPerEntry * epochs);
            for (int u = 0; d != 0 && u < updatesPerEntry; u++) {
              data.update(i, j, d);
            }
          }
        }
        data.closeEpoch();
        errors[t] = Errors.frobeniusError(scaled(a, (double) t / epochs),
            PostProcessing.factorize(data.prefix(t), k).factorization());
      }
      return new Result(name, epochs, worst, worstAt, worstStated, largestRatio,
          worst / worstStated * oneShotUnits.applyAsDouble(worstAt), errors);
    } finally {
      delete(root);
    }
  }

  private static Dense scaled(Dense a, double factor) {
    Dense out = a.copy();
    double[] d = out.data();
    for (int i = 0; i < d.length; i++) {
      d[i] *= factor;
    }
    return out;
  }

  private static double meanSquare(double[] a) {
    double s = 0;
    for (double x : a) {
      s += x * x;
    }
    return s / a.length;
  }

  private static double square(double x) {
    return x * x;
  }
}
