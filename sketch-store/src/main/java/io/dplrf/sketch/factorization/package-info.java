/**
 * Lower-triangular Toeplitz factorizations A = B·C of the prefix-sum matrix for continual
 * release: the encoder C adds noise to, the decoder B = A·C⁻¹ turns noisy encoded epochs into
 * prefix releases Ax + Bz (docs/privacy/blt-factorization.md). Buffered linear Toeplitz (BLT)
 * encoders ({@link io.dplrf.sketch.factorization.BltParameters}) make both directions streaming
 * with d buffers per entry ({@link io.dplrf.sketch.factorization.BltEncoder},
 * {@link io.dplrf.sketch.factorization.BltDecoder}); their noise figures are closed forms
 * ({@link io.dplrf.sketch.factorization.ToeplitzFactorization}), and
 * {@link io.dplrf.sketch.factorization.BltOptimizer} picks parameters for a given T. The
 * √-factorization is kept as the reference the BLTs are measured against.
 *
 * <p>Pure double arithmetic on public parameters (T, d) and on caller-owned arrays. What may not
 * live here: sketches, noise sampling, privacy calibration (σ, ε, δ: {@code calibration}), files
 * or Kafka. Numerics that feed stored or documented values use {@code StrictMath}, so they are
 * identical on every JVM.
 *
 * <p>References, cited as [n] in this package:
 *
 * <ol>
 *   <li>K. Dvijotham, H. B. McMahan, K. Pillutla, T. Steinke, A. Thakurta. Efficient and
 *       Near-Optimal Noise Generation for Streaming Differential Privacy. FOCS 2024,
 *       arXiv:2404.16706. §5: BLTs, Lemma 5.2 (parameters from the two decay vectors), Lemma 5.3
 *       (sensitivity), Lemma 5.4 (max error).
 *   <li>H. B. McMahan, Z. Xu, Y. Zhang. A Hassle-free Algorithm for Private Learning in Practice:
 *       Don't Use Tree Aggregation, Use BLTs. EMNLP Industry 2024, arXiv:2408.08868. Alg. 2
 *       (streaming C), Alg. 3 (streaming C⁻¹).
 *   <li>H. B. McMahan, K. Pillutla. An Inversion Theorem for Buffered Linear Toeplitz (BLT)
 *       Matrices and Applications to Streaming Differential Privacy. 2025, arXiv:2504.21413.
 *       Theorem 1 (C⁻¹ of a BLT is a BLT; the well-behaved class), Theorem 2.
 *   <li>H. Fichtenberger, M. Henzinger, J. Upadhyay. Constant Matters: Fine-grained Error Bound
 *       on Differentially Private Continual Observation. ICML 2023, arXiv:2202.11205 (the
 *       √-factorization).
 * </ol>
 *
 * The lemma and algorithm numbers are those the reference implementation (google-deepmind/
 * jax_privacy, {@code matrix_factorization/buffered_toeplitz.py}) cites; the derivations used
 * here are restated in the doc.
 */
package io.dplrf.sketch.factorization;
