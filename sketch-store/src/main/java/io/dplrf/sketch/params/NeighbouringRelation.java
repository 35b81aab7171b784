package io.dplrf.sketch.params;

import java.util.Locale;

/**
 * Which pairs of inputs a guarantee protects (docs/privacy/README.md §1). Every relation is scaled
 * by the contribution bound C. Containments: ONE_ENTRY ⊂ ENTRYWISE_L1 ⊂ FROBENIUS (‖D‖_F ≤ ‖D‖₁),
 * ONE_ENTRY ⊂ RANK_ONE.
 */
public enum NeighbouringRelation {
  /** Priv1 of Upadhyay 2018 (paper 002, §2): A − A' = C·u vᵀ for unit vectors u, v. */
  RANK_ONE("A - A' = C u v^T, |u| = |v| = 1 (Priv1)"),
  /** Priv2 of paper 002, §2: ‖A − A'‖_F ≤ C. Contains RANK_ONE and ENTRYWISE_L1. */
  FROBENIUS("||A - A'||_F <= C (Priv2)"),
  /** One entry changes: A − A' = Δ·e_i e_jᵀ with |Δ| ≤ C (one turnstile update). */
  ONE_ENTRY("A - A' = delta e_i e_j^T, |delta| <= C (one entry)"),
  /**
   * Row-level PCA (docs/privacy/README.md §1, "one row"): A' is A with one row x added or removed,
   * ‖x‖₂ ≤ C (rows are clipped to that norm before they are used). Then AᵀA − A'ᵀA' = ±x xᵀ, whose
   * Frobenius norm is ‖x‖₂² ≤ C².
   */
  ONE_ROW("one row x added or removed, ||x||_2 <= C (rows clipped to C)"),
  /**
   * Entrywise ℓ1: ‖A − A'‖₁ = Σ_ij |A_ij − A'_ij| ≤ C. The service's privacy units (one update, or
   * a key's or a row's updates with Σ|Δ| ≤ C; docs/privacy/l1-units.md) and the robust
   * mechanisms' relation (paper 000, §1; docs/privacy/robust.md).
   */
  ENTRYWISE_L1("entrywise l1: ||A - A'||_1 = sum_ij |A_ij - A'_ij| <= C"),
  /**
   * Local DP (docs/privacy/local-pca.md): each user's report is private for replacing that
   * user's row by any other row of norm ≤ C, even towards the server; releases are
   * post-processing of the reports.
   */
  LOCAL("local: each report is private for replacing its user's row x by any x' (rows clipped"
      + " to C)"),
  /**
   * One user (joint DP, docs/privacy/completion.md): one user's whole ratings row replaced; the
   * public model is DP, each user's own output is computed from it and her own row.
   */
  ONE_USER("one user's ratings replaced (joint DP)");

  private final String description;

  NeighbouringRelation(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }

  /** The short name in documents and flags: rank-one, frobenius, one-entry, one-row, entrywise-l1. */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
