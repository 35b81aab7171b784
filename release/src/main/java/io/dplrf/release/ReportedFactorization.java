package io.dplrf.release;

import java.util.Objects;

/**
 * One release: the factorization and its utility report. Both are post-processing of the
 * mechanism's output and may be published together.
 */
public record ReportedFactorization(Factorization factorization, UtilityReport report) {
  public ReportedFactorization {
    Objects.requireNonNull(factorization, "factorization");
    Objects.requireNonNull(report, "report");
  }
}
