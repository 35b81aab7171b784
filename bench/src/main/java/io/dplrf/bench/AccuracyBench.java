package io.dplrf.bench;

import io.dplrf.deploy.io.SyntheticMatrix;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.deploy.oneshot.OneShot;
import io.dplrf.deploy.oneshot.UpdateSource;
import io.dplrf.release.Errors;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Accuracy benchmark: for each ε and mechanism, ‖A − Ã‖_F next to the best rank-k error and the
 * dense input-perturbation baseline measured in the same run, plus sketch memory against the
 * dense matrix. The matrix is fed to every mechanism as a stream of turnstile updates.
 */
public final class AccuracyBench {
  /** One measured row. */
  public record Row(
      String mechanism, double epsilon, double error, double relativeToBaseline,
      long sketchBytes, double memoryFraction, double seconds) {}

  private final Dense a;
  private final String name;
  private final int k;
  private final double delta;
  private final double clip;
  private final Integer t;
  private final Integer v;
  private final double alpha;
  private final SecretKey key;

  public AccuracyBench(String name, Dense a, int k, double delta, double clip, Integer t, Integer v,
      double alpha, SecretKey key) {
    this.name = name;
    this.a = a;
    this.k = k;
    this.delta = delta;
    this.clip = clip;
    this.t = t;
    this.v = v;
    this.alpha = alpha;
    this.key = key;
  }

  public List<Row> run(double[] epsilons, double bestRankK, List<Mechanism> mechanisms,
      PrintStream out) throws Exception {
    int m = a.rows();
    int n = a.cols();
    long denseBytes = 8L * m * n;
    double normA = SyntheticMatrix.frobeniusNorm(a);
    SketchSizes sizes = SketchSizes.of(m, n, k, t, v, alpha);
    out.printf("%n== %s: %d x %d, k = %d, delta = %s, clip = %s, t = %d, v = %d%n",
        name, m, n, k, delta, clip, sizes.t(), sizes.v());
    out.printf("||A||_F = %.6g, best rank-%d error ||A - [A]_k||_F = %.6g%n", normA, k, bestRankK);
    out.printf("%-22s %6s %14s %10s %12s %9s %14s %8s %8s%n", "mechanism", "eps", "||A-A~||_F",
        "rel ||A||", "x baseline", "vs best", "sketch bytes", "vs dense", "time s");
    List<Row> rows = new ArrayList<>();
    List<Mechanism> sketches =
        mechanisms.stream().filter(x -> x != Mechanism.INPUT_PERTURBATION).toList();
    for (Mechanism mech : sketches) {
      one(mech, sizes, 1, true, rows, denseBytes, 0, out, normA, bestRankK);
    }
    for (double eps : epsilons) {
      double base = mechanisms.contains(Mechanism.INPUT_PERTURBATION)
          ? one(Mechanism.INPUT_PERTURBATION, new SketchSizes(m, n, k, k, k), eps, false,
              rows, denseBytes, 0, out, normA, bestRankK)
          : 0;
      for (Mechanism mech : sketches) {
        one(mech, sizes, eps, false, rows, denseBytes, base, out, normA, bestRankK);
      }
    }
    return rows;
  }

  private double one(Mechanism mech, SketchSizes sizes, double eps, boolean noNoise,
      List<Row> rows, long denseBytes, double baseline, PrintStream out, double normA,
      double best) throws Exception {
    long t0 = System.nanoTime();
    OneShot.Result r = OneShot.run(
        new OneShot.Request(mech, sizes, new PrivacyParams(eps, delta), clip, noNoise), key,
        denseSource(a));
    double err = Errors.frobeniusError(a, r.release().factorization());
    double secs = (System.nanoTime() - t0) / 1e9;
    String label = mech.cliName() + (noNoise ? " (no noise)" : "");
    double rel = baseline > 0 ? err / baseline : Double.NaN;
    double mem = (double) r.sketchBytes() / denseBytes;
    String vsBaseline = baseline > 0 ? String.format("%.3f", rel)
        : mech == Mechanism.INPUT_PERTURBATION ? "(baseline)" : "-";
    out.printf("%-22s %6s %14.6g %10.4f %12s %9s %14d %7.1f%% %8.1f%n", label,
        noNoise ? "-" : eps, err, err / normA, vsBaseline,
        best > 0 ? String.format("%.3f", err / best) : "-", r.sketchBytes(), 100 * mem, secs);
    out.flush();
    rows.add(new Row(label, noNoise ? 0 : eps, err, rel, r.sketchBytes(), mem, secs));
    return err;
  }

  /** Streams the non-zero entries of a dense matrix as updates, row by row. */
  public static UpdateSource denseSource(Dense a) {
    return sink -> {
      double[] d = a.data();
      int n = a.cols();
      for (int i = 0; i < a.rows(); i++) {
        for (int j = 0; j < n; j++) {
          double x = d[i * n + j];
          if (x != 0) {
            sink.accept(i, j, x);
          }
        }
      }
    };
  }
}
