package io.dplrf.deploy.oneshot;

import io.dplrf.sketch.params.NeighbouringRelation;
import java.util.Arrays;
import java.util.stream.Collectors;

/** The one-shot ℓ2 mechanisms selectable by {@code --mechanism}. */
public enum MechanismName {
  PRIV1("priv1", NeighbouringRelation.RANK_ONE, "PRIVATE-OPTIMAL-LRF, Upadhyay 2018 (paper 002) Algorithm 1"),
  PRIV2("priv2", NeighbouringRelation.FROBENIUS, "Priv2 sketches Y = A Phi + N1, Z = S A + N2, Upadhyay 2018 (paper 002) Section 3"),
  PRIV2_SPARSE("priv2-sparse", NeighbouringRelation.ONE_ENTRY, "Priv2 sketches (paper 002 Section 3) with sparse sign embeddings Phi, S (OSNAP, Nelson-Nguyen 2013), 4 non-zeros per column; docs/privacy/sparse-embeddings.md"),
  INPUT_PERTURBATION("input-perturbation", NeighbouringRelation.FROBENIUS, "dense input perturbation A + N then truncated SVD (baseline)");

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

  public NeighbouringRelation relation() {
    return relation;
  }

  public String reference() {
    return reference;
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
