package io.dplrf.sketch.calibration;

import static io.dplrf.sketch.params.Preconditions.checkPositiveFinite;

/** The Laplace mechanism (Dwork, McSherry, Nissim &amp; Smith, TCC 2006, Proposition 1). */
public final class Laplace {
  private Laplace() {}

  /**
   * The scale b = Δ₁/ε of Laplace noise (density e^{−|z|/b}/(2b)) that makes a query of ℓ1
   * sensitivity Δ₁ ε-differentially private.
   */
  public static double scale(double epsilon, double l1Sensitivity) {
    checkPositiveFinite("epsilon", epsilon);
    checkPositiveFinite("l1Sensitivity", l1Sensitivity);
    return l1Sensitivity / epsilon;
  }
}
