package io.dplrf.release.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The sensitivities of docs/privacy/completion.md §2 on neighbouring inputs (user 0's row
 * replaced, everyone else's residual row unchanged): the exact queries never move by more than the
 * Δ the noise is calibrated to, and the tight cases reach it (so the bounds are not slack).
 */
class NeighbourSensitivityTest {
  private static final int D = 30;
  private static final int XI = 6;
  private static final double L = 1.5;

  @Test
  void full_packedGramMovesByAtMost4Sqrt2LSquared_andDisjointSingleItemsAttainIt() {
    CompletionPlan plan = CompletionPlan.calibrate(
        CompletionParams.of(new PrivacyParams(1, 1e-6), XI, L).withIterations(3), 3, D);
    double delta = plan.eigen().baseSensitivity();
    assertEquals(4 * Math.sqrt(2) * L * L, delta, 1e-12);
    double tight = packedDistance(new int[] {0}, new double[] {2 * L}, new int[] {1},
        new double[] {2 * L});
    assertTrue(tight <= delta && tight >= delta * (1 - 1e-8), tight + " vs " + delta);
    assertEquals(0, packedDistance(new int[] {2, 5}, new double[] {L, -L}, new int[] {2, 5},
        new double[] {-L, L}), 1e-9, "a and -a give the same Gram matrix");
    SplittableRandom rnd = new SplittableRandom(17);
    for (int trial = 0; trial < 200; trial++) {
      Row a = randomRow(rnd);
      Row b = randomRow(rnd);
      double dist = packedDistance(a.items, a.values, b.items, b.values);
      assertTrue(dist <= delta, "trial " + trial + ": " + dist + " > " + delta);
    }
  }

  @Test
  void oja_matvecMovesByAtMost4LSquared_notTheTriangleBound8LSquared() {
    CompletionParams p = CompletionParams.of(new PrivacyParams(1, 1e-6), XI, L).withIterations(3)
        .withSolver(EigenSolver.OJA, 5);
    double delta = CompletionPlan.calibrate(p, 3, D).eigen().baseSensitivity();
    double[] v = new double[D];
    v[0] = v[1] = Math.sqrt(0.5);
    double tight = matvecDistance(new int[] {0}, new double[] {2 * L}, new int[] {1},
        new double[] {2 * L}, v);
    assertTrue(tight <= delta && tight >= 4 * L * L * (1 - 1e-8), tight + " vs " + delta);
    SplittableRandom rnd = new SplittableRandom(18);
    for (int trial = 0; trial < 200; trial++) {
      double[] u = new double[D];
      for (int j = 0; j < D; j++) {
        u[j] = rnd.nextDouble() - 0.5;
      }
      GlobalComponent.normalize(u);
      Row a = randomRow(rnd);
      Row b = randomRow(rnd);
      double dist = matvecDistance(a.items, a.values, b.items, b.values, u);
      assertTrue(dist <= delta, "trial " + trial + ": " + dist + " > " + delta);
    }
  }

  private record Row(int[] items, double[] values) {}

  /** A residual row: ≤ ξ random items, random signs, norm exactly 2L (the proved maximum). */
  private static Row randomRow(SplittableRandom rnd) {
    int n = 1 + rnd.nextInt(XI);
    int[] items = rnd.ints(0, D).distinct().limit(n).sorted().toArray();
    double[] values = new double[items.length];
    double ss = 0;
    for (int x = 0; x < values.length; x++) {
      values[x] = rnd.nextDouble() - 0.5;
      ss += values[x] * values[x];
    }
    for (int x = 0; x < values.length; x++) {
      values[x] *= 2 * L / Math.sqrt(ss);
    }
    return new Row(items, values);
  }

  /** Three fixed other users, then user 0's row; returns (ratings, residuals aligned to it). */
  private static Object[] dataset(int[] items0, double[] residual0) {
    int[][] others = {{0, 3, 4}, {1, 2}, {7, 8, 9, 29}};
    int total = items0.length;
    for (int[] o : others) {
      total += o.length;
    }
    int[] user = new int[total];
    int[] item = new int[total];
    double[] value = new double[total];
    double[] residual = new double[total];
    int r = 0;
    for (int x = 0; x < items0.length; x++, r++) {
      user[r] = 0;
      item[r] = items0[x];
      residual[r] = residual0[x];
    }
    for (int u = 0; u < others.length; u++) {
      for (int j : others[u]) {
        user[r] = u + 1;
        item[r] = j;
        residual[r++] = 0.3 * (j + 1) / (u + 2) - 0.4;
      }
    }
    // Items are sorted per user above, so Ratings keeps this order and the residuals line up.
    return new Object[] {Ratings.of(4, D, XI, L, user, item, value), residual};
  }

  private static double packedDistance(int[] ia, double[] ra, int[] ib, double[] rb) {
    Object[] a = dataset(ia, ra);
    Object[] b = dataset(ib, rb);
    Dense wa = GlobalComponent.exact((Ratings) a[0]).gram((double[]) a[1]).toDense();
    Dense wb = GlobalComponent.exact((Ratings) b[0]).gram((double[]) b[1]).toDense();
    double ss = 0;
    for (int i = 0; i < D; i++) {
      for (int j = i; j < D; j++) {
        double e = wa.get(i, j) - wb.get(i, j);
        ss += e * e;
      }
    }
    return Math.sqrt(ss);
  }

  /**
   * Oja's 4L² sensitivity needs ‖A_i‖ ≤ 2L; the projection gives it only up to rounding, so the
   * solver clips each residual row to 2L itself: a row 3× too long comes out at ≤ 2L, the others
   * unchanged.
   */
  @Test
  void oja_clipsEveryResidualRowTo2L() {
    CompletionParams p = CompletionParams.of(new PrivacyParams(1, 1e-6), XI, L).withIterations(1)
        .withSolver(EigenSolver.OJA, 1);
    Object[] a = dataset(new int[] {5, 6}, new double[] {6 * L, 0});
    Ratings ratings = (Ratings) a[0];
    double[] residual = (double[]) a[1];
    double[] clipped = ((GlobalComponent.Oja) GlobalComponent.oja(ratings,
        CompletionPlan.calibrate(p, 1, D), SecretKey.forTesting(1), "s")).clippedRows(residual);
    double norm0 = Math.hypot(clipped[0], clipped[1]);
    assertTrue(norm0 <= 2 * L && norm0 > 2 * L * (1 - 1e-8), "user 0's row: " + norm0);
    for (int x = 2; x < residual.length; x++) {
      assertEquals(residual[x], clipped[x], "other users' rows are within 2L: unchanged");
    }
  }

  private static double matvecDistance(int[] ia, double[] ra, int[] ib, double[] rb,
      double[] v) {
    CompletionParams p = CompletionParams.of(new PrivacyParams(1, 1e-6), XI, L).withIterations(1)
        .withSolver(EigenSolver.OJA, 1);
    Object[] a = dataset(ia, ra);
    Object[] b = dataset(ib, rb);
    SecretKey key = SecretKey.forTesting(1);
    double[] sa = ((GlobalComponent.Oja) GlobalComponent.oja((Ratings) a[0],
        CompletionPlan.calibrate(p, 1, D), key, "s")).matvec((double[]) a[1], v).exact();
    double[] sb = ((GlobalComponent.Oja) GlobalComponent.oja((Ratings) b[0],
        CompletionPlan.calibrate(p, 1, D), key, "s")).matvec((double[]) b[1], v).exact();
    double ss = 0;
    for (int j = 0; j < D; j++) {
      ss += (sa[j] - sb[j]) * (sa[j] - sb[j]);
    }
    return Math.sqrt(ss);
  }
}
