package io.dplrf.sketch.params;

import static io.dplrf.sketch.params.Preconditions.checkOpenUnit;
import static io.dplrf.sketch.params.Preconditions.checkPositiveFinite;

/**
 * An (ε, δ) privacy budget for one mechanism run (one-shot) or for a whole stream (continual
 * release). δ = 0 is not accepted: every mechanism here is an approximate-DP mechanism.
 */
public record PrivacyParams(double epsilon, double delta) {
  public PrivacyParams {
    checkPositiveFinite("epsilon", epsilon);
    checkOpenUnit("delta", delta);
  }
}
