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
 * The blocked sampler ({@link io.dplrf.sketch.noise.BlockDiscreteGaussian}) draws the same law as
 * CKS Algorithm 3 about 4.5 times faster; {@link io.dplrf.sketch.noise.GaussianSampler} names
 * which one a noise stream uses.
 *
 * <p>Rules for this package: every accept/reject decision is exact — it equals the comparison of
 * a uniform real made of bits from {@link io.dplrf.sketch.randomness.RandomBits} with the exact
 * acceptance probability. No {@code Random}. Floating point may decide only as a certified filter:
 * where a stated error bound (IEEE rounding, {@code StrictMath}'s one-ulp fdlibm functions, which
 * are deterministic on every platform) proves the exact comparison has the same answer; otherwise
 * exact integer or rational arithmetic decides ({@link io.dplrf.sketch.noise.ScaledExp}). Floating
 * point also scales an exact integer sample onto its grid, which is exact because the grid step is
 * a power of two. Overflow is either impossible by a stated bound or detected ({@code
 * Math.*Exact}), never silent.
 *
 * <p>What may not live here: privacy accounting (turning σ into (ε, δ)) — that belongs to
 * calibration code, which must add the grid's rounding slack to the sensitivity.
 */
package io.dplrf.sketch.noise;
