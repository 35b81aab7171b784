package io.dplrf.release.completion;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.List;

/**
 * The simple private baseline of the completion benchmark: per-item means of the bounded ratings,
 * user level, under the same relation as private FW (one user's row replaced,
 * docs/privacy/completion.md §5). Two Gaussian releases over the same {@link Ratings}:
 * <ul>
 *   <li>per-item sums s = Σ_i P_Ω(Y*_i): each user's vector has ‖·‖₂ ≤ L (clipped), so replacing
 *       it moves s by ≤ 2L;
 *   <li>per-item counts c = Σ_i 1[j ∈ Ω_i]: two indicator vectors with ≤ ξ ones differ in ≤ 2ξ
 *       coordinates by 1, so Δ = √(2ξ) — exact, the counts are integers.
 * </ul>
 * Both are summed exactly ({@link ExactSum}) and released with grid Gaussian noise, μ/√2 each
 * for μ = μ(ε, δ) of the analytic Gaussian (Dong–Roth–Su composition). The mean of item j is
 * s̃_j / max(c̃_j, σ_c): below one noise standard deviation of count the estimate shrinks to 0.
 * Stateless.
 */
public final class ItemMeans {
  private ItemMeans() {}

  /**
   * The noisy per-item means (of the values in {@code ratings}, e.g. centred ratings) and the
   * noise scales they were released with.
   */
  public record Estimate(double[] means, List<NoiseScale> noise) {}

  public static Estimate fit(Ratings ratings, PrivacyParams privacy, SecretKey key,
      String runLabel) {
    int d = ratings.items();
    int xi = ratings.maxPerUser();
    double muEach = AnalyticGaussian.mu(privacy.epsilon(), privacy.delta()) / Math.sqrt(2);
    long changed = Math.min(d, 2L * xi);
    GaussianSketchNoise sumNoise =
        GaussianSketchNoise.calibrate("item sums", 2 * ratings.clip(), changed, muEach);
    GaussianSketchNoise countNoise =
        GaussianSketchNoise.calibrate("item counts", Math.sqrt(2.0 * xi), changed, muEach);
    // bound 2√ξ > √ξ: an indicator row is never scaled, so counts stay exact integers.
    ExactSum sums = new ExactSum(d, ratings.clip());
    ExactSum counts = new ExactSum(d, 2 * Math.sqrt(xi));
    int[] cols = ratings.cols();
    double[] vals = ratings.vals();
    double[] ones = new double[xi];
    java.util.Arrays.fill(ones, 1.0);
    double[] row = new double[xi];
    for (int i = 0; i < ratings.users(); i++) {
      int s = ratings.start(i);
      int len = ratings.end(i) - s;
      System.arraycopy(vals, s, row, 0, len);
      sums.add(cols, s, row, len);
      counts.add(cols, s, ones, len);
    }
    RandomBits bits = KeyStream.of(key, runLabel + "/item-means").bits();
    double[] s = sums.release(sumNoise, bits);
    double[] c = counts.release(countNoise, bits);
    double floor = countNoise.sigma();
    double[] means = new double[d];
    for (int j = 0; j < d; j++) {
      means[j] = s[j] / Math.max(c[j], floor);
    }
    return new Estimate(means, List.of(sumNoise.scale(d), countNoise.scale(d)));
  }
}
