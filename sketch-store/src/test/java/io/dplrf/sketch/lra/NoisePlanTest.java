package io.dplrf.sketch.lra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.AnalyticGaussian;
import io.dplrf.sketch.calibration.CovarianceMechanism;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every plan must meet its (ε, δ) exactly as documented, and must fail to meet it if any noise
 * were halved: the checks recompute the privacy profile from the plan's own numbers.
 */
class NoisePlanTest {
  private static double mu(GaussianSketchNoise g) {
    return g.sensitivity() / g.sigma();
  }

  @ParameterizedTest(name = "eps={0} delta={1} clip={2} t={3} v={4}")
  @CsvSource({"1, 1e-6, 1, 40, 160", "0.5, 1e-8, 5, 100, 400", "4, 1e-5, 1, 10, 40"})
  void priv2_meetsItsBudget_andHalvingEitherNoiseBreaksIt(
      double eps, double delta, double clip, int t, int v) {
    PrivacyParams p = new PrivacyParams(eps, delta);
    Priv2Plan plan = Priv2Plan.calibrate(p, clip, new SketchSizes(2000, 3000, 10, t, v));
    double deltaMech = delta * (1 - plan.jlDeltaShare());
    double muTotal = AnalyticGaussian.composeMu(mu(plan.yNoise()), mu(plan.zNoise()));
    assertTrue(AnalyticGaussian.delta(eps, muTotal) <= deltaMech);
    // The calibration spends the budget (nothing wasted beyond the grid rounding).
    assertEquals(AnalyticGaussian.mu(eps, deltaMech), muTotal, 1e-6 * muTotal);
    // Sensitivities scale with the clip; the noise does too.
    assertEquals(clip * plan.phiFactor(), plan.yNoise().baseSensitivity(), 1e-12);
    // Halved noise doubles that sketch's μ: the composed δ then exceeds the budget.
    double halvedY = AnalyticGaussian.composeMu(2 * mu(plan.yNoise()), mu(plan.zNoise()));
    double halvedZ = AnalyticGaussian.composeMu(mu(plan.yNoise()), 2 * mu(plan.zNoise()));
    assertTrue(AnalyticGaussian.delta(eps, halvedY) > delta);
    assertTrue(AnalyticGaussian.delta(eps, halvedZ) > delta);
  }

  @ParameterizedTest(name = "eps={0} delta={1} t={2} v={3}")
  @CsvSource({"1, 1e-6, 40, 160", "2, 1e-7, 20, 80"})
  void priv1_meetsItsBudget_andHalvingAnyNoiseBreaksIt(double eps, double delta, int t, int v) {
    PrivacyParams p = new PrivacyParams(eps, delta);
    Priv1Plan plan = Priv1Plan.calibrate(p, 1, new SketchSizes(500, 800, 5, t, v));
    double deltaMech = delta * (1 - plan.jlDeltaShare());
    double muG = AnalyticGaussian.composeMu(mu(plan.yrNoise()), mu(plan.zNoise()));
    double r = plan.clip() / plan.sigmaMin();
    assertTrue(CovarianceMechanism.delta(eps, t, r, muG) <= deltaMech);
    assertTrue(CovarianceMechanism.delta(eps, t, 2 * r, muG) > delta, "halved padding");
    assertTrue(CovarianceMechanism.delta(eps, t, r,
        AnalyticGaussian.composeMu(2 * mu(plan.yrNoise()), mu(plan.zNoise()))) > delta, "halved N1");
    assertTrue(CovarianceMechanism.delta(eps, t, r,
        AnalyticGaussian.composeMu(mu(plan.yrNoise()), 2 * mu(plan.zNoise()))) > delta, "halved N2");
    // Far below the paper's σmin (Alg. 1 line 1), which uses loose tail bounds.
    assertTrue(plan.sigmaMin() < Priv1Plan.paperSigmaMin(p, t, 0.25, 1) / 20);
  }

  @ParameterizedTest(name = "eps={0} delta={1}")
  @CsvSource({"1, 1e-6", "0.1, 1e-9"})
  void dense_isTheAnalyticGaussian(double eps, double delta) {
    DensePlan plan = DensePlan.calibrate(new PrivacyParams(eps, delta), 3, 100, 200);
    double sigma = AnalyticGaussian.sigma(eps, delta, 3);
    // Larger only by the grid: the rounding slack γ√(mn) with γ ≤ σ·2^-30 (relative
    // (σ/Δ)·√(mn)·2^-30) and the rounding of σ up to the grid (relative ≤ 2^-30).
    double grid = Math.scalb(1.0, -30) * (sigma / 3 * Math.sqrt(100 * 200) + 1);
    assertTrue(plan.noise().sigma() >= sigma);
    assertTrue(plan.noise().sigma() <= sigma * (1 + grid) * (1 + 1e-12), plan.noise().sigma() + " vs " + sigma);
    assertTrue(AnalyticGaussian.delta(eps, mu(plan.noise())) <= delta);
    assertTrue(AnalyticGaussian.delta(eps, 2 * mu(plan.noise())) > delta);
  }
}
