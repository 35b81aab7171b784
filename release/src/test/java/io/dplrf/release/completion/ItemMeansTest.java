package io.dplrf.release.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.SecretKey;
import org.junit.jupiter.api.Test;

class ItemMeansTest {
  @Test
  void fit_sigmasAreReplaceSensitivitiesOverMuHalf() {
    Synthetic s = new Synthetic(100, 20, 5, 2);
    ItemMeans.Estimate r =
        ItemMeans.fit(s.ratings(5, 2), new PrivacyParams(1, 1e-6), SecretKey.forTesting(1), "m");
    double muEach = AnalyticGaussian.mu(1, 1e-6) / Math.sqrt(2);
    assertEquals(4 / muEach, r.noise().get(0).sigma(), 4 / muEach * 1e-6);
    assertEquals(Math.sqrt(10) / muEach, r.noise().get(1).sigma(), Math.sqrt(10) / muEach * 1e-6);
  }

  /**
   * At ε = 10⁴ (σ_sum ≈ 0.02, σ_count ≈ 0.02) the released means equal the exact means of the
   * bounded ratings to within σ_sum/c + |mean|·σ_count/c per item, c ≥ 100 here: 10⁻³ covers
   * five standard deviations.
   */
  @Test
  void fit_atLargeEpsilon_matchesTheExactItemMeans() {
    Synthetic s = new Synthetic(3000, 10, 4, 6);
    Ratings r = s.ratings(4, 2);
    ItemMeans.Estimate est = ItemMeans.fit(r, new PrivacyParams(1e4, 1e-6),
        SecretKey.forTesting(2), "m");
    double[] sum = new double[10];
    int[] count = new int[10];
    for (int i = 0; i < r.users(); i++) {
      Ratings.Row row = r.row(i);
      for (int x = 0; x < row.size(); x++) {
        sum[row.items()[x]] += row.values()[x];
        count[row.items()[x]]++;
      }
    }
    for (int j = 0; j < 10; j++) {
      assertTrue(count[j] >= 100, "count " + count[j]);
      assertEquals(sum[j] / count[j], est.means()[j], 1e-3, "item " + j);
    }
  }
}
