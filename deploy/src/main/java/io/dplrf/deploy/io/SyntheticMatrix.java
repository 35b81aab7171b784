package io.dplrf.deploy.io;

import io.dplrf.sketch.matrix.Dense;
import java.util.SplittableRandom;

/**
 * A seeded synthetic input for the demo and the benchmarks: an exactly rank-k matrix. Synthetic
 * data, not private noise, so a seeded {@link SplittableRandom} is right here.
 */
public final class SyntheticMatrix {
  private SyntheticMatrix() {}

  /**
   * A = L Rᵀ with L (m×k) and R (n×k) standard normal, scaled so that max |A_ij| = maxEntry.
   * Exactly rank k, so the best rank-k error is 0.
   */
  public static Dense lowRank(int m, int n, int k, double maxEntry, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] l = normals(rnd, m * k);
    double[] r = normals(rnd, n * k);
    double[] a = new double[m * n];
    double max = 0;
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        double s = 0;
        for (int c = 0; c < k; c++) {
          s += l[i * k + c] * r[j * k + c];
        }
        a[i * n + j] = s;
        max = Math.max(max, Math.abs(s));
      }
    }
    double scale = maxEntry / max;
    for (int x = 0; x < a.length; x++) {
      a[x] *= scale;
    }
    return new Dense(m, n, a);
  }

  public static double frobeniusNorm(Dense d) {
    double s = 0;
    for (double x : d.data()) {
      s += x * x;
    }
    return Math.sqrt(s);
  }

  /** Standard normals by Box–Muller over a seeded generator (synthetic data only). */
  public static double[] normals(SplittableRandom rnd, int count) {
    double[] out = new double[count];
    for (int x = 0; x < count; x += 2) {
      double u1 = 1 - rnd.nextDouble();
      double u2 = rnd.nextDouble();
      double rad = Math.sqrt(-2 * Math.log(u1));
      out[x] = rad * Math.cos(2 * Math.PI * u2);
      if (x + 1 < count) {
        out[x + 1] = rad * Math.sin(2 * Math.PI * u2);
      }
    }
    return out;
  }
}
