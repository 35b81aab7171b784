package io.dplrf.bench;

import io.dplrf.deploy.io.SyntheticMatrix;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.deploy.oneshot.LocalPcaOneShot;
import io.dplrf.deploy.oneshot.PcaOneShot;
import io.dplrf.release.Pca;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.pca.Gram;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.PublicSeed;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Row-level PCA accuracy: the captured variance ‖A V‖_F² / ‖A V*_k‖_F² of every implemented
 * mechanism across ε, beside the non-private optimum (1 by definition) and a random orthonormal
 * V measured in the same run, averaged over test keys (seeds; for {@code local}, repetitions with
 * fresh client noise and a fresh public seed). Captured variance is computed
 * from the exact Gram matrix, ‖A V‖_F² = tr(Vᵀ AᵀA V). Test keys: nothing here is private.
 */
public final class PcaBench {
  /** A named data set: its rows, already scaled to norm ≤ 1. */
  public record Data(String name, double[][] rows) {}

  private final int k;
  private final double delta;
  private final int seeds;

  public PcaBench(int k, double delta, int seeds) {
    this.k = k;
    this.delta = delta;
    this.seeds = seeds;
  }

  public void run(List<Data> sets, double[] epsilons, List<Mechanism> mechanisms, PrintStream out) {
    out.printf("%n== row-level PCA: captured variance ||A V||_F^2 / ||A V*_k||_F^2, k = %d, delta = %s,"
        + " clip C = 1 (local-robust: l1 clip sqrt(d), which no unit row exceeds), mean [min, max]"
        + " over %d test keys%n", k, delta, seeds);
    out.printf("%-42s %-24s %6s %28s%n", "data", "mechanism", "eps", "captured variance");
    for (Data set : sets) {
      int d = set.rows()[0].length;
      Gram g = new Gram(d, 1);
      for (double[] r : set.rows()) {
        g.addRow(r);
      }
      Dense gram = g.toDense();
      Pca.Subspace truth = Pca.topEigenvectors(gram, Math.min(d, k + 1));
      double best = 0;
      for (int c = 0; c < k; c++) {
        best += truth.eigenvalues()[c];
      }
      String label = set.name() + " (" + d + " cols)";
      out.printf("%-42s %-24s %6s %28s   lambda_k = %.4g, lambda_k+1 = %.4g%n", label,
          "optimum", "-", fmt(new double[] {1}), truth.eigenvalues()[k - 1],
          k < d ? truth.eigenvalues()[k] : 0);
      double[] random = new double[seeds];
      for (int s = 0; s < seeds; s++) {
        random[s] = captured(gram, randomOrthonormal(d, k, 1000 + s)) / best;
      }
      out.printf("%-42s %-24s %6s %28s%n", label, "random V", "-", fmt(random));
      SketchSizes sizes = SketchSizes.of(d, d, k, null, null, SketchSizes.DEFAULT_ALPHA);
      for (double eps : epsilons) {
        for (Mechanism mech : mechanisms) {
          double[] ratios = new double[seeds];
          for (int s = 0; s < seeds; s++) {
            Dense v = mech == Mechanism.LOCAL
                ? local(set, sizes.t(), new PrivacyParams(eps, delta))
                : mech == Mechanism.LOCAL_ROBUST
                ? localRobust(set, new PrivacyParams(eps, delta))
                : PcaOneShot.run(new PcaOneShot.Request(mech, d, k, new PrivacyParams(eps, delta),
                    1, sizes), SecretKey.forTesting(s + 1), g).subspace().v();
            ratios[s] = captured(gram, v) / best;
          }
          out.printf("%-42s %-24s %6s %28s%n", label, mech.cliName(), eps, fmt(ratios));
          out.flush();
        }
      }
    }
  }

  /**
   * Local-DP PCA as deployed: one client randomizer per row (its own SecureRandom noise), a fresh
   * public seed per run, t = the default sketch width (d for these data sets).
   */
  private Dense local(Data set, int t, PrivacyParams privacy) {
    int d = set.rows()[0].length;
    try {
      return LocalPcaOneShot.run(LocalPcaProtocol.of(PublicSeed.random(), d, t, 1, privacy), k,
          sink -> {
            for (double[] r : set.rows()) {
              sink.accept(r);
            }
          }).subspace().v();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * LOCAL-ROBUST-PCA as deployed: one client randomizer per row (slot = row index, its own
   * SecureRandom noise), a fresh public seed per run, p = 1 (Cauchy), default sizes
   * (t = min(4k, m, d), v = 2t) and stable clip. The ℓ1 row bound is √d: the rows have ℓ2 norm
   * ≤ 1, so ‖x‖₁ ≤ √d and no row is changed (the same matrix as every other mechanism sees).
   */
  private Dense localRobust(Data set, PrivacyParams privacy) {
    int d = set.rows()[0].length;
    try {
      LocalRobustProtocol p = LocalRobustProtocol.of(PublicSeed.random(), set.rows().length, d, k,
          null, null, 1, Math.sqrt(d), RobustMatrices.DEFAULT_STABLE_CLIP, privacy);
      return LocalPcaOneShot.run(p, k, sink -> {
        for (double[] r : set.rows()) {
          sink.accept(r);
        }
      }).subspace().v();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String fmt(double[] x) {
    double mean = 0;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (double v : x) {
      mean += v / x.length;
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    return x.length == 1 ? String.format("%.3f", mean)
        : String.format("%.3f [%.3f, %.3f]", mean, min, max);
  }

  /** tr(Vᵀ G V). */
  static double captured(Dense gram, Dense v) {
    int d = gram.rows();
    double s = 0;
    for (int c = 0; c < v.cols(); c++) {
      for (int i = 0; i < d; i++) {
        double gv = 0;
        for (int j = 0; j < d; j++) {
          gv += gram.get(i, j) * v.get(j, c);
        }
        s += v.get(i, c) * gv;
      }
    }
    return s;
  }

  static Dense randomOrthonormal(int d, int k, long seed) {
    return Pca.orthonormalColumns(new Dense(d, k, SyntheticMatrix.normals(new SplittableRandom(seed), d * k)));
  }

  /**
   * UCI optdigits (train and test parts, 5,620 × 64 pixel counts; the label column dropped),
   * every row scaled to unit norm — a per-row transform that needs no data-dependent constant.
   */
  public static Data optdigits(Path dir) throws IOException {
    return optdigits(dir, true);
  }

  /** optdigits rows, scaled to unit norm ({@code unitRows}) or raw pixel counts 0..16. */
  public static Data optdigits(Path dir, boolean unitRows) throws IOException {
    List<double[]> rows = new ArrayList<>();
    for (String part : new String[] {"optdigits.tra", "optdigits.tes"}) {
      Path f = dir.resolve(part);
      try (BufferedReader r = Files.newBufferedReader(f)) {
        for (String line; (line = r.readLine()) != null; ) {
          if (line.isBlank()) {
            continue;
          }
          String[] t = line.split(",");
          if (t.length != 65) {
            throw new IOException(f + ": expected 65 fields, found " + t.length);
          }
          double[] x = new double[64];
          for (int j = 0; j < 64; j++) {
            x[j] = Double.parseDouble(t[j].trim());
          }
          rows.add(unitRows ? unit(x) : x);
        }
      }
    }
    return new Data("uci-optdigits", rows.toArray(double[][]::new));
  }

  /**
   * n Gaussian rows with per-direction scales: with an eigengap, the first k directions have
   * scale 1 and the rest 0.2 (λ_k/λ_{k+1} ≈ 25); without one, the scales fall linearly from 1 to
   * 0.5 over all d directions. Rows are scaled to unit norm. Synthetic data: a seeded
   * {@link SplittableRandom} is fine here.
   */
  public static Data synthetic(int n, int d, int k, boolean gap, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[][] rows = new double[n][];
    for (int i = 0; i < n; i++) {
      double[] x = SyntheticMatrix.normals(rnd, d);
      for (int j = 0; j < d; j++) {
        x[j] *= gap ? (j < k ? 1 : 0.2) : 1 - 0.5 * j / (d - 1.0);
      }
      rows[i] = unit(x);
    }
    return new Data(gap ? "synthetic, eigengap" : "synthetic, no gap", rows);
  }

  private static double[] unit(double[] x) {
    double s = 0;
    for (double v : x) {
      s += v * v;
    }
    if (s > 0) {
      double f = 1 / Math.sqrt(s);
      for (int j = 0; j < x.length; j++) {
        x[j] *= f;
      }
    }
    return x;
  }
}
