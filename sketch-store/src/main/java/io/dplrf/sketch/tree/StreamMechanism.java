package io.dplrf.sketch.tree;

import io.dplrf.sketch.params.Preconditions;

/**
 * The mechanisms a continual-release tree can run; CLI names {@code priv1}, {@code priv2},
 * {@code priv2-sparse}, {@code robust-lra}, {@code robust-pca}.
 */
public enum StreamMechanism {
  /** Paper 002 Algorithm 1 under Priv1 (rank-one neighbours): {@code Priv1Sketch} nodes. */
  PRIV1("priv1"),
  /** Paper 002 §3 under Priv2 (Frobenius neighbours): {@code Priv2Sketch} nodes. */
  PRIV2("priv2"),
  /**
   * Priv2 with sparse sign embeddings (4 non-zeros per column): O(1) per update, private for
   * single-entry neighbours only (the update privacy unit).
   */
  PRIV2_SPARSE("priv2-sparse"),
  /**
   * Paper 000 Algorithm 1 (ROBUST-LRA) under entrywise-ℓ1 neighbours: {@code RobustSketch} nodes
   * with Laplace noise (pure ε-DP; docs/privacy/robust.md).
   */
  ROBUST_LRA("robust-lra"),
  /** Paper 000 Algorithm 2 (ROBUST-PCA): robust nodes without Yc. */
  ROBUST_PCA("robust-pca");

  /** Non-zeros per column of the sparse embeddings: 1/√4 = 1/2 is exact in binary. */
  public static final int SPARSITY = 4;

  private final String cliName;

  StreamMechanism(String cliName) {
    this.cliName = cliName;
  }

  public String cliName() {
    return cliName;
  }

  /** The robust ℓp family (paper 000): entrywise-ℓ1 neighbours, p-stable sketches, Laplace noise. */
  public boolean robust() {
    return this == ROBUST_LRA || this == ROBUST_PCA;
  }

  /** The mechanism with CLI name {@code name}. */
  public static StreamMechanism fromCliName(String name) {
    for (StreamMechanism m : values()) {
      if (m.cliName.equals(name)) {
        return m;
      }
    }
    throw Preconditions.invalid("mechanism", "one of priv1, priv2, priv2-sparse, robust-lra, robust-pca", name);
  }
}
