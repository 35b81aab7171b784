package io.dplrf.sketch.calibration;

/**
 * n-point Gauss–Legendre nodes and weights on [−1, 1], by Newton's method on P_n from the
 * Tricomi initial guesses (Numerical Recipes §4.6, {@code gauleg}); exact for polynomials of degree
 * ≤ 2n − 1. Immutable after construction.
 */
final class GaussLegendre {
  final double[] nodes;
  final double[] weights;

  private GaussLegendre(int n) {
    nodes = new double[n];
    weights = new double[n];
    int half = (n + 1) / 2;
    for (int i = 0; i < half; i++) {
      double z = Math.cos(Math.PI * (i + 0.75) / (n + 0.5));
      double pp;
      double z1;
      do {
        double p1 = 1;
        double p2 = 0;
        for (int j = 0; j < n; j++) {
          double p3 = p2;
          p2 = p1;
          p1 = ((2.0 * j + 1) * z * p2 - j * p3) / (j + 1);
        }
        pp = n * (z * p1 - p2) / (z * z - 1);
        z1 = z;
        z = z1 - p1 / pp;
      } while (Math.abs(z - z1) > 1e-15);
      nodes[i] = -z;
      nodes[n - 1 - i] = z;
      weights[i] = 2 / ((1 - z * z) * pp * pp);
      weights[n - 1 - i] = weights[i];
    }
  }

  private static final java.util.concurrent.ConcurrentHashMap<Integer, GaussLegendre> CACHE =
      new java.util.concurrent.ConcurrentHashMap<>();

  static GaussLegendre of(int n) {
    return CACHE.computeIfAbsent(n, GaussLegendre::new);
  }
}
