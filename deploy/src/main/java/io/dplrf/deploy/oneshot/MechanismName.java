package io.dplrf.deploy.oneshot;

import io.dplrf.sketch.params.NeighbouringRelation;
import java.util.Arrays;
import java.util.stream.Collectors;

/** The one-shot mechanisms selectable by {@code --mechanism}: the ℓ2 ones and the robust ℓp ones. */
public enum MechanismName {
  PRIV1("priv1", NeighbouringRelation.RANK_ONE, "PRIVATE-OPTIMAL-LRF, Upadhyay 2018 (paper 002) Algorithm 1"),
  PRIV2("priv2", NeighbouringRelation.FROBENIUS, "Priv2 sketches Y = A Phi + N1, Z = S A + N2, Upadhyay 2018 (paper 002) Section 3"),
  PRIV2_SPARSE("priv2-sparse", NeighbouringRelation.ENTRYWISE_L1, "Priv2 sketches (paper 002 Section 3) with sparse sign embeddings Phi, S (OSNAP, Nelson-Nguyen 2013), 4 non-zeros per column; docs/privacy/sparse-embeddings.md"),
  INPUT_PERTURBATION("input-perturbation", NeighbouringRelation.FROBENIUS, "dense input perturbation A + N then truncated SVD (baseline)"),
  ROBUST_LRA("robust-lra", NeighbouringRelation.ENTRYWISE_L1, "ROBUST-LRA, Arora-Braverman-Upadhyay 2018 (paper 000) Algorithm 1: p-stable sketches Yr = Phi A, Yc = A Psi, Z = S A T with Laplace noise; docs/privacy/robust.md"),
  ROBUST_PCA("robust-pca", NeighbouringRelation.ENTRYWISE_L1, "ROBUST-PCA, Arora-Braverman-Upadhyay 2018 (paper 000) Algorithm 2: p-stable sketches with Laplace noise, orthonormal basis released; docs/privacy/robust.md");

  private final String cliName;
  private final NeighbouringRelation relation;
  private final String reference;

  MechanismName(String cliName, NeighbouringRelation relation, String reference) {
    this.cliName = cliName;
    this.relation = relation;
    this.reference = reference;
  }

  public String cliName() {
    return cliName;
  }

  /** The relation the mechanism protects unless {@code --relation} chooses another. */
  public NeighbouringRelation relation() {
    return relation;
  }

  /**
   * Whether the mechanism can be calibrated for {@code r} (docs/privacy/l1-units.md): priv2 and
   * input perturbation for Frobenius or entrywise-ℓ1 neighbours (ℓ1 is contained in Frobenius;
   * priv2 then uses the drawn matrices' exact norms), the others for their own relation only.
   */
  public boolean supports(NeighbouringRelation r) {
    return r == relation || (this == PRIV2 || this == INPUT_PERTURBATION)
        && r == NeighbouringRelation.ENTRYWISE_L1;
  }

  public String reference() {
    return reference;
  }

  /** The robust ℓp family (paper 000): pure ε-DP, takes --p. */
  public boolean robust() {
    return this == ROBUST_LRA || this == ROBUST_PCA;
  }

  public static MechanismName parse(String s) {
    for (MechanismName m : values()) {
      if (m.cliName.equals(s)) {
        return m;
      }
    }
    throw new IllegalArgumentException("mechanism must be one of "
        + Arrays.stream(values()).map(MechanismName::cliName).collect(Collectors.joining(", "))
        + ". Provided value: " + s);
  }
}
