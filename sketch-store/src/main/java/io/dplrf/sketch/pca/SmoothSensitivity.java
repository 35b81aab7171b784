package io.dplrf.sketch.pca;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.noise.DiscreteCauchy;
import io.dplrf.sketch.noise.RationalDiscreteGaussian;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.function.Function;

/**
 * The private step of paper 003's Algorithm 1 (Gonen &amp; Gilad-Bachrach, "Smooth Sensitivity
 * Based Approach for Differentially Private PCA"): given the exact top-k eigenbasis Û of the Gram
 * matrix G = AᵀA of the clipped rows and its eigengap, release Ū + E with Ū = ÛR, R a secret Haar
 * rotation of O(k) ({@link HaarRotation}), E noise of per-coordinate scale
 * {@link SmoothSensitivityPlan#noiseScale}(U), U the β-smooth bound of {@link SubspaceSensitivity}.
 * The caller orthonormalises the result (QR), which is post-processing. Privacy argument:
 * docs/privacy/smooth-sensitivity.md.
 *
 * <p><b>Exact noise.</b> Each coordinate is released as the integer round(Ū_ij/γ) + Z_ij, Z_ij from
 * {@link RationalDiscreteGaussian} (Gaussian variant) or {@link DiscreteCauchy} (pure variant) at
 * scale noiseScale/γ, γ = 2^−60 fixed; the integer is converted to a double only afterwards
 * (post-processing). Labels: R from {@code label + "/R"}, the noise from {@code label + "/E"}; a
 * caller must use a fresh label per run on new data.
 *
 * <p><b>Inputs are not private.</b> Û and the eigenvalues are the non-private PCA oracle of the
 * paper; they must be exactly the top-k eigenvectors and top-(k+1) eigenvalues of {@code gram} —
 * the privacy proof depends on it — and this class checks the eigen-residuals before using them.
 * Stateless, thread-safe.
 */
public final class SmoothSensitivity {
  /** Absolute margin on β against rounding in U (see {@link #release}'s comment). */
  static final double BETA_MARGIN = 0x1p-40;

  private SmoothSensitivity() {}

  /**
   * Values computed from the data that scaled the noise: NOT private, for the data holder's
   * terminal only (the noise scale, in particular, reveals the eigengap).
   *
   * @param gap λ_k − λ_{k+1} of G (clamped at 0; +∞ when k = d)
   * @param localBound L(gap), the local sensitivity bound of d_P
   * @param smoothBound U = max_j e^{−βj}A^{(j)}
   * @param noiseScale the per-coordinate σ (Gaussian) or scale b (Cauchy) used
   */
  public record Diagnostics(double gap, double localBound, double smoothBound, double noiseScale) {}

  /**
   * The noisy basis and the (non-private) diagnostics.
   *
   * @param noisyBasis Ū + E, d×k: private (the released value before QR)
   * @param notPrivate not private: never release
   */
  public record Perturbed(Dense noisyBasis, Diagnostics notPrivate) {}

  /**
   * Algorithm 1 without its final QR.
   *
   * @param gram the exact Gram matrix the oracle decomposed (dimension and clip must match the plan)
   * @param basis Û, d×k, the top-k orthonormal eigenvectors of {@code gram}
   * @param eigenvalues the top min(k + 1, d) eigenvalues of {@code gram}, descending
   */
  public static Perturbed perturb(SmoothSensitivityPlan plan, Gram gram, Dense basis,
      double[] eigenvalues, SecretKey key, String label) {
    int d = plan.dimension();
    int k = plan.rank();
    if (gram.dimension() != d || gram.clip() != plan.clip()) {
      throw new IllegalArgumentException("Gram matrix (d = " + gram.dimension() + ", C = "
          + gram.clip() + ") does not match the plan (d = " + d + ", C = " + plan.clip() + ")");
    }
    if (basis.rows() != d || basis.cols() != k || eigenvalues.length < Math.min(k + 1, d)) {
      throw new IllegalArgumentException("need a " + d + "x" + k + " basis and "
          + Math.min(k + 1, d) + " eigenvalues, got " + basis.rows() + "x" + basis.cols()
          + " and " + eigenvalues.length);
    }
    checkEigenpairs(gram.toDense(), basis, eigenvalues, plan.clip());
    double gap = k == d ? Double.POSITIVE_INFINITY : Math.max(0, eigenvalues[k - 1] - eigenvalues[k]);
    double local = k == d ? 0 : SubspaceSensitivity.localBound(gap, plan.clip(), d, k);
    // U is computed for β − 2⁻⁴⁰ and rounded up: the ratio U(S)/U(S') of two computed bounds may be
    // off by a few ulps, which the margin e^{2⁻⁴⁰} ≈ 1 + 9·10⁻¹³ absorbs (smooth-sensitivity.md §8).
    double smooth = k == d ? 0 : Math.nextUp(
        SubspaceSensitivity.smoothBound(gap, plan.clip(), d, k, plan.beta() - BETA_MARGIN));
    double scale = plan.noiseScale(smooth);
    if (!(plan.beta() > 2 * BETA_MARGIN)) {
      throw new IllegalArgumentException("beta = " + plan.beta() + " is below the rounding margin "
          + 2 * BETA_MARGIN + ": choose a larger epsilon or a smaller d·k");
    }

    Dense r = HaarRotation.draw(key, label + "/R", k);
    double gridScale = Math.scalb(scale, -Math.getExponent(plan.gridStep())); // scale/γ, exact
    Function<RandomBits, BigInteger> noise;
    if (plan.variant() == SmoothSensitivityPlan.Variant.GAUSSIAN) {
      RationalDiscreteGaussian g = RationalDiscreteGaussian.withScale(gridScale);
      noise = g::sample;
    } else {
      DiscreteCauchy c = DiscreteCauchy.withScale(gridScale);
      noise = c::sample;
    }
    RandomBits bits = KeyStream.of(key, label + "/E").bits();
    Dense out = new Dense(d, k);
    for (int j = 0; j < k; j++) {
      for (int i = 0; i < d; i++) {
        double rotated = 0;
        for (int p = 0; p < k; p++) {
          rotated += basis.get(i, p) * r.get(p, j);
        }
        BigInteger m = toGrid(rotated, plan.gridStep()).add(noise.apply(bits));
        out.set(i, j, Math.scalb(m.doubleValue(), Math.getExponent(plan.gridStep())));
      }
    }
    return new Perturbed(out, new Diagnostics(gap, local, smooth, scale));
  }

  /** round(x/γ), halves away from zero, exactly (x/γ is a power-of-two scaling). */
  static BigInteger toGrid(double x, double gamma) {
    double scaled = Math.scalb(x, -Math.getExponent(gamma));
    return new BigDecimal(scaled).setScale(0, RoundingMode.HALF_UP).toBigInteger();
  }

  /**
   * The oracle's output must be orthonormal eigenpairs of G, in descending order: ‖ÛᵀÛ − I‖_max
   * ≤ 1e-9·k and ‖G û_c − λ_c û_c‖₂ ≤ 1e-9·(‖G‖_F + C²) per column. A solver failure would
   * otherwise void the sensitivity bound silently. O(d²k).
   */
  static void checkEigenpairs(Dense g, Dense basis, double[] lambda, double clip) {
    int d = g.rows();
    int k = basis.cols();
    double frob = 0;
    for (double v : g.data()) {
      frob += v * v;
    }
    double tol = 1e-9 * (Math.sqrt(frob) + clip * clip);
    for (int c = 0; c < lambda.length - 1; c++) {
      if (!(lambda[c] >= lambda[c + 1])) {
        throw new IllegalArgumentException("eigenvalues must be in descending order");
      }
    }
    for (int a = 0; a < k; a++) {
      for (int b = a; b < k; b++) {
        double dot = 0;
        for (int i = 0; i < d; i++) {
          dot += basis.get(i, a) * basis.get(i, b);
        }
        if (Math.abs(dot - (a == b ? 1 : 0)) > 1e-9 * k) {
          throw new IllegalArgumentException("the basis is not orthonormal (column " + a + "·" + b
              + " = " + dot + ")");
        }
      }
      double res = 0;
      for (int i = 0; i < d; i++) {
        double gv = 0;
        for (int j = 0; j < d; j++) {
          gv += g.get(i, j) * basis.get(j, a);
        }
        double e = gv - lambda[a] * basis.get(i, a);
        res += e * e;
      }
      if (Math.sqrt(res) > tol) {
        throw new IllegalArgumentException("column " + a + " is not an eigenvector of the Gram "
            + "matrix for eigenvalue " + lambda[a] + " (residual " + Math.sqrt(res) + ")");
      }
    }
  }
}
