package io.dplrf.release.completion;

import java.util.Optional;

/**
 * Public training diagnostics of a completion run: everything here is computed from the released
 * (noisy) quantities or from public parameters.
 *
 * @param mechanism "private-frank-wolfe" or "frank-wolfe" (non-private)
 * @param solver the eigen solver of the global component
 * @param iterations T
 * @param ojaSteps Γ (OJA only; 0 otherwise)
 * @param nuclearNorm k
 * @param lambdaHat λ̂_t, t = 1..T: the noisy top singular value estimates
 * @param account the privacy accounting, empty for the non-private baseline
 */
public record CompletionDiagnostics(String mechanism, EigenSolver solver, int iterations,
    int ojaSteps, double nuclearNorm, double[] lambdaHat, Optional<CompletionAccount> account) {
  public CompletionDiagnostics {
    lambdaHat = lambdaHat.clone();
  }

  /** True when the model was trained under {@link #account}'s guarantee. */
  public boolean isPrivate() {
    return account.isPresent();
  }

  @Override
  public double[] lambdaHat() {
    return lambdaHat.clone();
  }
}
