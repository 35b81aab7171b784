package io.dplrf.bench;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.deploy.oneshot.OneShot;
import io.dplrf.release.DenseRelease;
import io.dplrf.release.Errors;
import io.dplrf.release.Factorization;
import io.dplrf.release.RobustRelease.Regression;
import io.dplrf.sketch.lra.DenseNoisyMatrix;
import io.dplrf.sketch.lra.RobustPlan;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * {@code dplrf bench robust}: the robust ℓp mechanisms (paper 000) on matrices with gross sparse
 * outliers, beside Priv2 at the same ε and the non-private truncated SVD measured in the same run.
 * For each output M: the entrywise ℓ1 error ‖A − M‖₁ on the corrupted input A (the papers'
 * objective) and the recovery error ‖L − M‖₁ against the clean matrix L, both divided by ‖L‖₁.
 * ROBUST-PCA's output is M = AΠ = A V Vᵀ (Definition 3). Fixed test key: nothing printed here is
 * labelled private.
 */
public final class RobustBench {
  /** One input: the clean matrix, the corrupted one, and a name. */
  public record Data(String name, Dense clean, Dense corrupted, int outliers) {}

  private final int k;
  private final double delta;
  private final double clip;
  private final double p;
  private final double[] stableClips;
  private final Integer t;
  private final Integer v;
  private final SecretKey key;

  public RobustBench(int k, double delta, double clip, double p, double[] stableClips, Integer t,
      Integer v, SecretKey key) {
    this.stableClips = stableClips;
    this.k = k;
    this.delta = delta;
    this.clip = clip;
    this.p = p;
    this.t = t;
    this.v = v;
    this.key = key;
  }

  /**
   * L plus, independently per entry with probability {@code rate}, ±{@code factor}·(mean |L_ij|)
   * (synthetic corruption, seeded; not private noise).
   */
  public static Data withOutliers(String name, Dense clean, double rate, double factor, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double typical = l1(clean) / clean.data().length;
    Dense a = clean.copy();
    int count = 0;
    for (int x = 0; x < a.data().length; x++) {
      if (rnd.nextDouble() < rate) {
        a.data()[x] += (rnd.nextBoolean() ? factor : -factor) * typical;
        count++;
      }
    }
    return new Data(name + String.format(", %d outliers (%.1f%%) of +-%.0fx the mean |entry| %.3g",
        count, 100.0 * count / a.data().length, factor, typical), clean, a, count);
  }

  public void run(List<Data> sets, double[] epsilons, PrintStream out) throws Exception {
    for (Data d : sets) {
      int m = d.clean().rows();
      int n = d.clean().cols();
      SketchSizes robust = RobustPlan.defaultSizes(m, n, k, t, v);
      SketchSizes l2 = SketchSizes.of(m, n, k, null, null, SketchSizes.DEFAULT_ALPHA);
      double normL = l1(d.clean());
      out.printf("%n== %s: %d x %d, k = %d, p = %s, clip = %s, robust t = %d, v = %d; priv2 t = %d,"
          + " v = %d, delta = %s%n", d.name(), m, n, k, p, clip, robust.t(), robust.v(), l2.t(),
          l2.v(), delta);
      out.printf("||L||_1 = %.6g, ||A - L||_1 = %.6g (the outliers: an upper bound on OPT_k)%n",
          normL, l1diff(d.corrupted(), d.clean()));
      out.printf("%-34s %6s %14s %16s %8s%n", "mechanism", "eps", "||A-M||_1/||L||_1",
          "||L-M||_1/||L||_1", "time s");
      Factorization svd = DenseRelease.factorize(
          new DenseNoisyMatrix(d.corrupted(), List.of()), k).factorization();
      print(out, "truncated SVD (exact)", "-", d, svd, null, 0);
      for (double sc : stableClips) {
        for (Mechanism mech : List.of(Mechanism.ROBUST_LRA, Mechanism.ROBUST_PCA)) {
          for (Regression reg : Regression.values()) {
            one(out, d, mech, robust, 1, true, reg, sc);
          }
        }
      }
      for (double eps : epsilons) {
        one(out, d, Mechanism.PRIV2, l2, eps, false, Regression.L2, 1);
        for (double sc : stableClips) {
          for (Mechanism mech : List.of(Mechanism.ROBUST_LRA, Mechanism.ROBUST_PCA)) {
            for (Regression reg : Regression.values()) {
              one(out, d, mech, robust, eps, false, reg, sc);
            }
          }
        }
      }
    }
  }

  private void one(PrintStream out, Data d, Mechanism mech, SketchSizes sizes, double eps,
      boolean noNoise, Regression reg, double stableClip) throws Exception {
    long t0 = System.nanoTime();
    OneShot.Result r = OneShot.run(new OneShot.Request(mech, mech.relation(), sizes,
        new PrivacyParams(eps, delta), clip, noNoise, new OneShot.RobustOptions(p, reg, stableClip)), key,
        AccuracyBench.denseSource(d.corrupted()));
    double secs = (System.nanoTime() - t0) / 1e9;
    String label = mech.cliName() + (mech.robust() ? " " + reg.name().toLowerCase(Locale.ROOT)
        + " tau=" + (Double.isInfinite(stableClip) ? "inf" : String.format("%.0f", stableClip)) + "x"
        : "") + (noNoise ? " (no noise)" : "");
    if (r.release() != null) {
      print(out, label, noNoise ? "-" : "" + eps, d, r.release().factorization(), null, secs);
    } else {
      print(out, label, noNoise ? "-" : "" + eps, d, null, r.basis().v(), secs);
    }
  }

  private static void print(PrintStream out, String label, String eps, Data d, Factorization f,
      Dense basis, double secs) {
    double normL = l1(d.clean());
    Factorization m = f != null ? f : projection(d.corrupted(), basis);
    double err = Errors.entrywiseError(d.corrupted(), m, 1);
    double rec = Errors.entrywiseError(d.clean(), m, 1);
    out.printf("%-34s %6s %14.4f %16.4f %8.1f%n", label, eps, err / normL, rec / normL, secs);
    out.flush();
  }

  /** A V Vᵀ as a factorization (A V) · I · Vᵀ (for the blockwise error). */
  static Factorization projection(Dense a, Dense basis) {
    int k = basis.cols();
    Dense av = new Dense(a.rows(), k);
    for (int i = 0; i < a.rows(); i++) {
      for (int j = 0; j < a.cols(); j++) {
        double x = a.get(i, j);
        if (x != 0) {
          for (int c = 0; c < k; c++) {
            av.add(i, c, x * basis.get(j, c));
          }
        }
      }
    }
    double[] ones = new double[k];
    Arrays.fill(ones, 1.0);
    return new Factorization(av, ones, basis);
  }

  static double l1(Dense a) {
    double s = 0;
    for (double x : a.data()) {
      s += Math.abs(x);
    }
    return s;
  }

  private static double l1diff(Dense a, Dense b) {
    double s = 0;
    for (int x = 0; x < a.data().length; x++) {
      s += Math.abs(a.data()[x] - b.data()[x]);
    }
    return s;
  }
}
