package io.dplrf.sketch.params;

/**
 * Which pairs of inputs a guarantee protects (DESIGN.md, privacy model). Every relation is scaled
 * by the contribution bound C.
 */
public enum NeighbouringRelation {
  /** Priv1 of Upadhyay 2018 (paper 002, §2): A − A' = C·u vᵀ for unit vectors u, v. */
  RANK_ONE("A - A' = C u v^T, |u| = |v| = 1 (Priv1)"),
  /** Priv2 of paper 002, §2: ‖A − A'‖_F ≤ C. Implies RANK_ONE. */
  FROBENIUS("||A - A'||_F <= C (Priv2)"),
  /**
   * One entry changes: A − A' = Δ·e_i e_jᵀ with |Δ| ≤ C (one turnstile update). Implied by
   * FROBENIUS and by RANK_ONE; the relation of Priv2 with sparse embeddings.
   */
  ONE_ENTRY("A - A' = delta e_i e_j^T, |delta| <= C (one entry, Priv2 with sparse embeddings)"),
  /**
   * Row-level PCA (DESIGN.md "one row"): A' is A with one row x added or removed, ‖x‖₂ ≤ C
   * (rows are clipped to that norm before they are used). Then AᵀA − A'ᵀA' = ±x xᵀ, whose
   * Frobenius norm is ‖x‖₂² ≤ C².
   */
  ONE_ROW("one row x added or removed, ||x||_2 <= C (rows clipped to C)"),
  /**
   * Entrywise ℓ1 (paper 000, §1): ‖A − A'‖₁ = Σ_ij |A_ij − A'_ij| ≤ C. Contains ONE_ENTRY; the
   * relation of the robust mechanisms (docs/privacy/robust.md).
   */
  ENTRYWISE_L1("entrywise l1: ||A - A'||_1 = sum_ij |A_ij - A'_ij| <= C (robust-lra, robust-pca)");

  private final String description;

  NeighbouringRelation(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }
}
