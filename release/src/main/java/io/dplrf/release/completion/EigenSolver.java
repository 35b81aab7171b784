package io.dplrf.release.completion;

/** How the global component of private Frank–Wolfe finds its noisy top eigenvector. */
public enum EigenSolver {
  /**
   * Paper 004, Algorithm 1: the top eigenpair of Σ A_iᵀA_i + N with N a dense symmetric Gaussian
   * matrix (d(d+1)/2 noise draws per iteration, O(d³) eigen-decomposition).
   */
  FULL,
  /**
   * Paper 004, Algorithm 2 (private Oja): Γ noisy power-like steps v ← v + η(Wv + g), one noise
   * vector g per step; never forms W. Linear in d per step.
   */
  OJA
}
