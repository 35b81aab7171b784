/**
 * Additive privacy noise, sampled exactly: discrete Gaussian and discrete Laplace after Canonne,
 * Kamath and Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020; arXiv
 * 2004.00010), Algorithms 1–3, plus the power-of-two grids ({@link
 * io.dplrf.sketch.noise.GridGaussian}, {@link io.dplrf.sketch.noise.GridLaplace}) that let real
 * sketches use them. For noise whose scale is data-dependent (smooth sensitivity, paper 003) and
 * therefore sits on a grid fixed in advance: {@link io.dplrf.sketch.noise.RationalDiscreteGaussian}
 * (CKS Algorithm 3 for any rational σ², BigInteger arithmetic) and {@link
 * io.dplrf.sketch.noise.DiscreteCauchy} (P[x] ∝ s²/(s² + x²), an exact rejection sampler with
 * unbounded support, for pure ε-DP).
 *
 * <p>Rules for this package: every accept/reject decision is made in exact integer arithmetic on
 * bits from {@link io.dplrf.sketch.randomness.RandomBits} — no floating point, no {@code
 * Math.exp}, no {@code Random}. Floating point appears only to scale an exact integer sample onto
 * its grid, which is exact because the grid step is a power of two. Overflow is either impossible
 * by a stated bound or detected ({@code Math.*Exact}), never silent.
 *
 * <p>What may not live here: privacy accounting (turning σ into (ε, δ)) — that belongs to
 * calibration code, which must add the grid's rounding slack to the sensitivity.
 */
package io.dplrf.sketch.noise;
