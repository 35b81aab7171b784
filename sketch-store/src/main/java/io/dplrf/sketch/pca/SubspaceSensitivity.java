package io.dplrf.sketch.pca;

import io.dplrf.sketch.params.Preconditions;

/**
 * Local and smooth sensitivity of the top-k principal subspace under {@link
 * io.dplrf.sketch.params.NeighbouringRelation#ONE_ROW} (add or remove one row of norm ≤ C). This
 * replaces Theorem 5 of Gonen &amp; Gilad-Bachrach (paper 003), whose constant is not given, by a
 * bound with every constant explicit. Derivation: docs/privacy/smooth-sensitivity.md §2–§4; the
 * formulas, in the notation used there:
 *
 * <ul>
 *   <li><b>Sensitivity measure</b>: the Procrustes distance d_P(V, V′) = min_{Q ∈ O(k)} ‖V − V′Q‖_F
 *       between orthonormal bases, a function of the two subspaces only (the mechanism's random
 *       rotation makes the output law depend on the subspace only, §1). With θ_i the principal
 *       angles, d_P² = 2Σ(1 − cos θ_i); at most m = min(k, d − k) angles are non-zero.
 *   <li><b>Local bound</b> (§2, Davis–Kahan sin θ with a one-sided gap): with g = λ_k(G) − λ_{k+1}(G)
 *       the eigengap of the unnormalised Gram matrix G = AᵀA of the clipped rows,
 *       t = ‖sin Θ‖_F ≤ min(√m, C²/g, C²/(2(g − C²)) [if g &gt; C²]).
 *   <li><b>From sin Θ to d_P</b> (§3): maximising Σ(1 − √(1 − u_i)) under Σu_i ≤ t², u_i ∈ [0, 1]
 *       (a convex function: the maximum sits at a vertex) gives d_P ≤ φ(t) =
 *       √(2(⌊t²⌋ + 1 − √(1 − (t² − ⌊t²⌋)))), ≈ t for small t, and φ ≤ √(2m) (the global bound).
 *   <li><b>A^{(j)}</b> (§4): one row moves each eigenvalue of G by at most C² in one direction
 *       (Weyl), so the gap of any input at distance j is ≥ g − jC², and L(g) = min(√(2m), φ(t(g)))
 *       is non-increasing: A^{(j)} = L(max(0, g − jC²)).
 *   <li><b>Smooth bound</b> (NRS 2007): U = max_{j ≥ 0} e^{−βj}A^{(j)}. The maximum includes j = 0
 *       and is not cut at n (paper 003 writes k ∈ [n]; §4 explains why both matter).
 * </ul>
 *
 * <p>Stateless, thread-safe. Inputs are the exact eigengap and public parameters; the outputs are
 * NOT private (they are functions of the data) and must only be used to scale noise.
 */
public final class SubspaceSensitivity {
  private SubspaceSensitivity() {}

  /** m = min(k, d − k): how many principal angles between two k-subspaces of ℝ^d can be non-zero. */
  public static int angles(int d, int k) {
    checkRank(d, k);
    return Math.min(k, d - k);
  }

  /** The global bound √(2m) on d_P: every pair of k-subspaces, whatever their gap. */
  public static double globalBound(int d, int k) {
    return Math.sqrt(2.0 * angles(d, k));
  }

  /**
   * φ(t): the largest d_P of two k-subspaces with ‖sin Θ‖_F ≤ t (and at most m non-zero angles).
   * 1 − √(1 − u) is computed as u/(1 + √(1 − u)) to keep precision for small u.
   */
  public static double procrustesOfSin(double t, int m) {
    Preconditions.check(t >= 0 && !Double.isNaN(t), "t", ">= 0", t);
    Preconditions.check(m >= 0, "m", ">= 0", m);
    double t2 = t * t;
    if (t2 >= m) {
      return Math.sqrt(2.0 * m);
    }
    double whole = Math.floor(t2);
    double u = t2 - whole;
    return Math.sqrt(2 * (whole + u / (1 + Math.sqrt(1 - u))));
  }

  /**
   * t(g): the bound on ‖sin Θ(V, V′)‖_F for every one-row neighbour when the eigengap of G is g.
   *
   * @param gap g = λ_k(G) − λ_{k+1}(G) ≥ 0 (0 when the subspace is not unique)
   * @param clip C, the row-norm bound
   */
  public static double sinThetaBound(double gap, double clip, int d, int k) {
    Preconditions.check(gap >= 0 && !Double.isNaN(gap), "gap", ">= 0", gap);
    Preconditions.checkPositiveFinite("clip", clip);
    double m = angles(d, k);
    double c2 = clip * clip;
    double t = Math.sqrt(m);
    if (gap > 0) {
      t = Math.min(t, c2 / gap);
      if (gap > c2) {
        t = Math.min(t, c2 / (2 * (gap - c2)));
      }
    }
    return t;
  }

  /** L(g) = min(√(2m), φ(t(g))): the local sensitivity bound of d_P at an input with gap g. */
  public static double localBound(double gap, double clip, int d, int k) {
    int m = angles(d, k);
    return Math.min(Math.sqrt(2.0 * m), procrustesOfSin(sinThetaBound(gap, clip, d, k), m));
  }

  /** A^{(j)} = L(max(0, g − jC²)): the largest local bound over inputs at distance ≤ j. */
  public static double atDistance(long j, double gap, double clip, int d, int k) {
    Preconditions.check(j >= 0, "j", ">= 0", j);
    return localBound(Math.max(0, gap - j * clip * clip), clip, d, k);
  }

  /**
   * U = max_{j ≥ 0} e^{−βj}·A^{(j)}, a β-smooth upper bound on the local sensitivity (NRS 2007).
   * The scan stops once e^{−βj}·√(2m) cannot beat the running maximum (A^{(j)} ≤ √(2m)) or the
   * gap is used up (A^{(j)} is then constant and e^{−βj} only falls); at most
   * min(g/C², ln(√(2m)/L(g))/β) + 1 steps.
   *
   * @param beta β &gt; 0, the smoothness the noise distribution tolerates
   */
  public static double smoothBound(double gap, double clip, int d, int k, double beta) {
    Preconditions.checkPositiveFinite("beta", beta);
    double global = globalBound(d, k);
    double best = localBound(gap, clip, d, k);
    double c2 = clip * clip;
    for (long j = 1; ; j++) {
      double w = Math.exp(-beta * j);
      if (w * global <= best) {
        return best;
      }
      double remaining = gap - j * c2;
      best = Math.max(best, w * localBound(Math.max(0, remaining), clip, d, k));
      if (remaining <= 0) {
        return best;
      }
    }
  }

  private static void checkRank(int d, int k) {
    Preconditions.checkPositive("dimension (d)", d);
    Preconditions.check(k >= 1 && k <= d, "rank (k)", "in 1..d = " + d, k);
  }
}
