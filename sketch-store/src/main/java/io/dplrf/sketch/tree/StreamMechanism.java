package io.dplrf.sketch.tree;

import io.dplrf.sketch.params.Preconditions;

/** The mechanisms a continual-release tree can run; CLI names {@code priv1}, {@code priv2}. */
public enum StreamMechanism {
  /** Paper 002 Algorithm 1 under Priv1 (rank-one neighbours): {@code Priv1Sketch} nodes. */
  PRIV1("priv1"),
  /** Paper 002 §3 under Priv2 (Frobenius neighbours): {@code Priv2Sketch} nodes. */
  PRIV2("priv2");

  private final String cliName;

  StreamMechanism(String cliName) {
    this.cliName = cliName;
  }

  public String cliName() {
    return cliName;
  }

  /** The mechanism with CLI name {@code name}. */
  public static StreamMechanism fromCliName(String name) {
    for (StreamMechanism m : values()) {
      if (m.cliName.equals(name)) {
        return m;
      }
    }
    throw Preconditions.invalid("mechanism", "one of priv1, priv2", name);
  }
}
